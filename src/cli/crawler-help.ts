/**
 * crawler's flags and its --help text: what a user can ask of it, in one
 * place (src/cli/crawler.ts parses them and runs the crawl).
 */
import { DEFAULT_LEASE_MS } from '../frontier/claim-store.js';
import { DEFAULT_FRONTIER_WAIT_MS } from '../frontier/pg-faults.js';
import { CRAWLER_USER_AGENT, DEFAULT_DEPTH_LIMIT } from '../programs/tse-settings.js';
import { defineFlags } from './args.js';
import { formatFlags } from './help-format.js';
import { HTTP_FLAGS, INFO_FLAGS, REPORT_FLAGS, WARC_FLAGS } from './common-flags.js';

export const FLAGS = defineFlags([
  ...INFO_FLAGS,
  { name: 'delay', type: 'duration', arg: 'SECONDS', default: 1, help: 'least time between the starts of two requests to the server; a robots.txt Crawl-delay can make it longer; 0 for a server you own' },
  { name: 'depth-limit', type: 'count', arg: 'N', default: DEFAULT_DEPTH_LIMIT, help: 'largest maxDepth accepted' },
  { name: 'internal', type: 'string', arg: 'PREFIX', repeatable: true, help: 'crawl the URLs that start with PREFIX (a server such as http://h:8080, or a path); give it again for more (default: the scheme, host and port of the seeds)' },
  { name: 'internal-domain', type: 'string', arg: 'DOMAIN', repeatable: true, help: 'crawl every host of DOMAIN: example.org covers example.org and a.b.example.org (not badexample.org), over http and https, on any port; an IP address covers only itself; give it again for more' },
  { name: 'any-host', type: 'boolean', help: 'follow links to every host, to maxDepth (each host\'s robots.txt and delay still apply)' },
  { name: 'exclude', type: 'string', arg: 'REGEX', repeatable: true, help: 'never crawl a URL that REGEX, a JavaScript regular expression, matches anywhere in the URL as the log prints it (^ and $ anchor it), even when another option takes it in: e.g. "/calendar/|[?&]sort="; give it again for more; a pattern that some URL could make slow to match (a backreference, a lookaround) is refused' },
  { name: 'seeds', type: 'string', arg: 'FILE', help: 'crawl from the URLs in FILE too, at depth 0 after seedURL, in file order: one absolute http(s) URL a line (blank lines and lines starting with # skipped); without a scope option above, their origins are inside the crawl like the seed\'s' },
  { name: 'ignore-robots', type: 'boolean', help: 'do not fetch or obey robots.txt' },
  { name: 'max-pages', type: 'count', arg: 'N', help: 'stop after N responses (default: no limit)' },
  { name: 'user-agent', type: 'string', arg: 'TEXT', default: CRAWLER_USER_AGENT, help: 'the name sent in the User-Agent header and looked up in robots.txt' },
  { name: 'retries', type: 'count', arg: 'N', default: 2, help: 'try a page again, up to N times, when it is answered 429, 500, 502, 503 or 504, times out or is cut off; the try comes later in the crawl, and its server is asked less often meanwhile' },
  { name: 'overwrite', type: 'boolean', help: 'crawl into a pageDirectory that holds numbered files no crawl of ours wrote (a user\'s, or no .crawler marker); they are then replaced' },
  { name: 'since', type: 'string', arg: 'OLD_DIR', help: 'refresh the crawl in OLD_DIR: copy from it each page answered 304' },
  { name: 'resume', type: 'boolean', help: 'continue the interrupted crawl recorded in pageDirectory (same seedURL, seed file and maxDepth)' },
  { name: 'quiet', short: 'q', type: 'boolean', help: 'print no log on stdout' },
  { name: 'sitemaps', type: 'boolean', help: 'also crawl the URLs that the seed\'s site lists in its sitemaps (named by robots.txt, else /sitemap.xml): they are queued at depth 1, after the seed\'s own links; stderr says what each sitemap gave' },
  { name: 'json', type: 'boolean', help: 'print the log as one JSON object per event, {"event","depth","url","reason"?}, instead of the CS50 format' },
  { name: 'write-thread', type: 'string', arg: 'WHEN', default: 'auto', help: 'write page files on a second thread, which helps on slow disks: auto decides by measuring how long page writes take, on starts the thread after the first 50 pages, off never does (and saves the thread\'s 10 MiB of memory)' },
  ...HTTP_FLAGS,
  ...WARC_FLAGS,
  ...REPORT_FLAGS,
  { name: 'frontier', type: 'string', arg: 'URL', help: 'run as one worker of a crawl shared with other crawler processes through a database: postgresql://USER@HOST:PORT/DB or sqlite:FILE (default: a crawl of its own, its state in pageDirectory)' },
  { name: 'lease', type: 'duration', arg: 'SECONDS', default: DEFAULT_LEASE_MS / 1000, help: 'with --frontier: a URL that a worker has not finished this long after taking it (the worker died, say) is handed to another worker' },
  { name: 'strict-bfs', type: 'boolean', help: 'with --frontier: no worker takes a URL of the next depth before every URL of the current depth is done' },
  { name: 'frontier-wait', type: 'duration', arg: 'SECONDS', default: DEFAULT_FRONTIER_WAIT_MS / 1000, help: 'with --frontier postgresql://: how long a worker waits for its database to come back (a restart, a failover) before it gives up and exits 1' },
]);

export const CRAWLER_HELP = `Usage: crawler [options] seedURL pageDirectory maxDepth

Crawls breadth first from seedURL, following links within the seed's server
(same scheme, host and port) to maxDepth, and saves each page as
pageDirectory/ID: the URL, a newline, the depth, a newline, then the page
exactly as served. IDs are 1, 2, 3... in the order pages are saved.

Broad crawls: --internal, --internal-domain and --any-host widen the crawl (a
URL is inside when any of them takes it in), --exclude narrows it, and --seeds
adds starting points. Every seed must be inside the crawl. robots.txt, the
delay and every limit apply to every host. With --seeds, a seed that cannot be
fetched is a Failed line; the crawl is a PANIC only when none of them can be.

  seedURL        absolute http:// or https:// URL of the first page
  pageDirectory  existing, writable directory, one crawl at a time; an earlier crawl is replaced
  maxDepth       0 to the depth limit (${DEFAULT_DEPTH_LIMIT}); 0 saves only the seed

Options:
${formatFlags(FLAGS)}

Shared crawls: with --frontier, this process is one worker of a crawl that
any number of crawler processes (on this machine or others) run together
through one database. The first creates the crawl, the others join it with
the same arguments; each saves the pages it fetches into its own
pageDirectory under IDs the database hands out (1..N across all workers),
every host's delay holds across all of them, and all end with exit 0 when
nothing is left. --concurrency is then the URLs this worker holds at once.

Archive: --warc FILE writes every request and response (robots.txt and each
redirect hop included) byte for byte into a WARC/1.1 file, with a metadata
record per page; with --resume it is continued, and in a shared crawl each
worker writes FILE with its own tag before the extension. At the end a CDXJ
index goes beside it (crawl.warc.gz: crawl.cdxj), and --wacz FILE packages
archive, index and pages into one WACZ that ReplayWeb.page opens.

Refresh: --since OLD_DIR crawls again into a new pageDirectory, asking for each page the earlier
crawl in OLD_DIR saved with its validators (If-None-Match, If-Modified-Since). A page answered
304 is written from its earlier copy, as a fresh crawl would write it, and its links are read
there; OLD_DIR is only read. With --wacz, the package holds the earlier archive too.

Log (stdout): one line per event, "%2d %*s%9s: %s" (depth, indent, word, URL),
words Fetched, Scanning, Found, Added, IgnDupl, IgnExtrn, IgnRobots, Failed; with
--since, a line Unchanged after the Fetched line of a page answered 304.

Exit status: 0 the crawl ran (some pages may have failed); 1 an error prevented it (bad
arguments, an unusable directory or one in use by another crawl, a seed that cannot be fetched:
"PANIC: cannot crawl"); 130 stopped by SIGINT/SIGTERM, and 141 stopped because stdout's reader
went away (as SIGPIPE would): what was saved stays saved, and --resume continues the crawl.
`;
