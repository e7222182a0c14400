/**
 * crawler's flags and its --help text: what a user can ask of it, in one
 * place (src/cli/crawler.ts parses them and runs the crawl). The help opens
 * with the usage line and the flags most runs need (the delay, then the
 * scope), groups the rest, and ends with examples that the tests parse.
 */
import { DEFAULT_LEASE_MS } from '../frontier/claim-store.js';
import { DEFAULT_FRONTIER_WAIT_MS } from '../frontier/pg-faults.js';
import { CRAWLER_USER_AGENT, DEFAULT_DEPTH_LIMIT } from '../programs/tse-settings.js';
import { defineFlags } from './args.js';
import { ON_CRAWL_HOSTS_FLAG, REQUISITE_FLAGS } from './requisite-flags.js';
import { CONNECTION_FLAGS, INFO_FLAGS, PACE_FLAGS, REPORT_FLAGS, REQUEST_LIMIT_FLAGS, WARC_FLAGS } from './common-flags.js';
import { formatExamples, formatOptions, type HelpExample } from './help-format.js';

export const FLAGS = defineFlags([
  { name: 'delay', type: 'duration', arg: 'SECONDS', default: 1, group: 'politeness', help: 'least time between the starts of two requests to a server (a robots.txt Crawl-delay can make it longer); 0 for a server you own' },
  ...PACE_FLAGS,
  { name: 'ignore-robots', type: 'boolean', group: 'politeness', help: 'do not fetch or obey robots.txt' },
  { name: 'user-agent', type: 'string', arg: 'TEXT', default: CRAWLER_USER_AGENT, group: 'politeness', help: 'the name sent in the User-Agent header and looked up in robots.txt' },
  { name: 'retries', type: 'count', arg: 'N', default: 2, group: 'politeness', help: 'try a page again, later in the crawl, up to N times when it is answered 429, 500, 502, 503 or 504, times out or is cut off' },
  { name: 'internal', type: 'string', arg: 'PREFIX', repeatable: true, group: 'scope', help: 'crawl the URLs that start with PREFIX (a server such as http://h:8080, or a path); give it again for more' },
  { name: 'internal-domain', type: 'string', arg: 'DOMAIN', repeatable: true, group: 'scope', help: 'crawl every host of DOMAIN (example.org: also a.b.example.org, not badexample.org), on any scheme and port; again for more' },
  { name: 'any-host', type: 'boolean', group: 'scope', help: 'follow links to every host, to maxDepth (each host\'s robots.txt and delay still apply)' },
  { name: 'exclude', type: 'string', arg: 'REGEX', repeatable: true, group: 'scope', help: 'never crawl a URL that the JavaScript regular expression REGEX matches, e.g. "/calendar/|[?&]sort="; again for more (no backreference or lookaround)' },
  { name: 'seeds', type: 'string', arg: 'FILE', group: 'scope', help: 'also crawl from the URLs in FILE, at depth 0 after seedURL: one absolute http(s) URL a line (blank lines and # lines skipped)' },
  { name: 'sitemaps', type: 'boolean', group: 'scope', help: 'also crawl, at depth 1, the URLs the seed\'s site lists in its sitemaps (robots.txt\'s, else /sitemap.xml)' },
  { name: 'quiet', short: 'q', type: 'boolean', group: 'output', help: 'print no log on stdout' },
  { name: 'json', type: 'boolean', group: 'output', help: 'log one JSON object per event, {"event","depth","url","reason"?}, instead of the CS50 lines' },
  ...REPORT_FLAGS,
  ...WARC_FLAGS,
  ...REQUISITE_FLAGS.slice(0, 1),
  ...ON_CRAWL_HOSTS_FLAG,
  ...REQUISITE_FLAGS.slice(1),
  { name: 'overwrite', type: 'boolean', group: 'output', help: 'crawl into a pageDirectory holding numbered files that no crawl of ours wrote (no .crawler marker), replacing them' },
  { name: 'write-thread', type: 'string', arg: 'WHEN', default: 'auto', group: 'output', help: 'write page files on a second thread: auto when writes prove slow, on after the first 50 pages, off never' },
  { name: 'max-pages', type: 'count', arg: 'N', group: 'limits', help: 'stop after N responses (default: no limit)' },
  { name: 'depth-limit', type: 'count', arg: 'N', default: DEFAULT_DEPTH_LIMIT, group: 'limits', help: 'largest maxDepth accepted' },
  { name: 'resume', type: 'boolean', group: 'resume', help: 'continue the interrupted crawl recorded in pageDirectory (same seedURL, seed file and maxDepth)' },
  { name: 'since', type: 'string', arg: 'OLD_DIR', group: 'resume', help: 'refresh the crawl in OLD_DIR: ask for each of its pages with its validators, and copy from it each page answered 304 (OLD_DIR is only read)' },
  { name: 'frontier', type: 'string', arg: 'URL', group: 'distributed', help: 'be one worker of a crawl shared through a database: postgresql://USER@HOST:PORT/DB or sqlite:FILE' },
  { name: 'lease', type: 'duration', arg: 'SECONDS', default: DEFAULT_LEASE_MS / 1000, group: 'distributed', help: 'a URL that a worker has not finished this long after taking it (the worker died, say) goes to another worker' },
  { name: 'strict-bfs', type: 'boolean', group: 'distributed', help: 'no worker takes a URL of the next depth before every URL of the current depth is done' },
  { name: 'frontier-wait', type: 'duration', arg: 'SECONDS', default: DEFAULT_FRONTIER_WAIT_MS / 1000, group: 'distributed', help: 'with postgresql://: how long to wait for the database to come back (a restart, a failover) before exiting 1' },
  ...REQUEST_LIMIT_FLAGS,
  ...CONNECTION_FLAGS,
  ...INFO_FLAGS,
]);

/** What each group says before its flags. */
const NOTES = {
  scope: 'A URL is inside the crawl when --internal, --internal-domain or --any-host takes it in (without them: when it has a seed\'s scheme, host and port), unless --exclude takes it out. Every seed must be inside.',
  output: 'With --resume an archive is continued; in a shared crawl each worker writes its own FILE, with its tag before the extension. A CDXJ index goes beside it (crawl.warc.gz: crawl.cdxj).',
  distributed: 'Any number of crawler processes, on any machines, run one crawl through one database: each is started with the same arguments and its own pageDirectory; IDs run 1..N across them, every host\'s delay holds across them.',
} as const;

/** The examples --help ends with (test/cli-unit/help-examples.test.ts parses each as shown). */
export const CRAWLER_EXAMPLES: readonly HelpExample[] = [
  { about: 'Your own server, fast: no delay between requests.', argv: ['--delay', '0', 'http://127.0.0.1:8080/', 'pages', '3'] },
  { about: 'A polite crawl of a site: 2 s between requests, at most 1000 pages, and a report to open in a browser.', argv: ['--delay', '2', '--max-pages', '1000', '--report', 'report.html', 'https://www.example.org/', 'pages', '5'] },
  { about: 'A broad crawl of every host of example.org, from the seed URLs in seeds.txt (one a line), 16 hosts at a time:', argv: ['--seeds', 'seeds.txt', '--internal-domain', 'example.org', '--concurrency', '16', '--max-pages', '100000', 'https://www.example.org/', 'pages', '3'] },
];

/** crawler's --help, made when asked for (laying it out costs some 0.7 ms, which a crawl need not pay). */
export function crawlerHelp(): string {
  return `Usage: crawler [options] seedURL pageDirectory maxDepth

Crawls breadth first from seedURL to maxDepth within the seed's server (same
scheme, host and port), obeying robots.txt, and saves each page as
pageDirectory/ID: the URL, a newline, the depth, a newline, then the page
exactly as served. IDs are 1, 2, 3... in the order pages are saved.

  seedURL        absolute http:// or https:// URL of the first page
  pageDirectory  an existing, writable directory; an earlier crawl is replaced
  maxDepth       0 to the depth limit (${DEFAULT_DEPTH_LIMIT}); 0 saves only the seed

${formatOptions(FLAGS, NOTES)}

Log (stdout): one line per event, "%2d %*s%9s: %s" (depth, indent, word, URL),
words Fetched, Scanning, Found, Added, IgnDupl, IgnExtrn, IgnRobots, Failed;
with --since, a line Unchanged after the Fetched line of a page answered 304.

Exit status: 0 the crawl ran (some pages may have failed); 1 an error stopped
it (bad arguments, an unusable directory or one in use by another crawl, a seed
that cannot be fetched: "PANIC: cannot crawl"); 130 stopped by SIGINT/SIGTERM;
141 stopped because stdout's reader went away (as SIGPIPE would). What was
saved stays saved, and --resume continues the crawl.

Examples (each pageDirectory must exist: mkdir pages):
${formatExamples('crawler', CRAWLER_EXAMPLES)}
`;
}
