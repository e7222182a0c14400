/**
 * crawler's flags and its --help text: what a user can ask of it, in one
 * place (src/cli/crawler.ts parses them and runs the crawl).
 */
import { DEFAULT_LEASE_MS } from '../frontier/claim-store.js';
import { CRAWLER_USER_AGENT, DEFAULT_DEPTH_LIMIT } from '../programs/tse.js';
import { defineFlags, formatFlags } from './args.js';
import { HTTP_FLAGS, REPORT_FLAGS, WARC_FLAGS } from './common-flags.js';

export const FLAGS = defineFlags([
  { name: 'help', short: 'h', type: 'boolean', help: 'print this help and exit' },
  { name: 'delay', type: 'duration', arg: 'SECONDS', default: 1, help: 'least time between request starts to the server (robots.txt Crawl-delay can raise it)' },
  { name: 'depth-limit', type: 'count', arg: 'N', default: DEFAULT_DEPTH_LIMIT, help: 'largest maxDepth accepted' },
  { name: 'internal', type: 'string', arg: 'PREFIX', repeatable: true, help: 'URLs starting with PREFIX are internal; give it again for more servers (default: same scheme, host and port as the seed)' },
  { name: 'ignore-robots', type: 'boolean', help: 'do not fetch or obey robots.txt' },
  { name: 'max-pages', type: 'count', arg: 'N', help: 'stop after N responses (default: no limit)' },
  { name: 'user-agent', type: 'string', arg: 'TEXT', default: CRAWLER_USER_AGENT, help: 'User-Agent header and robots.txt agent' },
  { name: 'retries', type: 'count', arg: 'N', default: 2, help: 'tries after the first for a page answered 429, 500, 502, 503 or 504, or lost to a timeout or reset (later in the crawl; the host backs off meanwhile)' },
  { name: 'overwrite', type: 'boolean', help: 'crawl into a pageDirectory that holds numbered files no crawl of ours recorded (a user\'s, or no .crawler marker); they are then replaced' },
  { name: 'since', type: 'string', arg: 'OLD_DIR', help: 'refresh the crawl in OLD_DIR: copy from it each page answered 304' },
  { name: 'resume', type: 'boolean', help: 'continue the interrupted crawl recorded in pageDirectory (same seedURL and maxDepth)' },
  { name: 'quiet', short: 'q', type: 'boolean', help: 'print no log on stdout' },
  { name: 'json', type: 'boolean', help: 'log one JSON object per event instead of the CS50 format' },
  { name: 'write-thread', type: 'string', arg: 'WHEN', default: 'auto', help: 'when the page files get a thread of their own, which writes them while the crawl goes on: auto (once the median page write costs the crawl over 150 us in 3 of 5 windows of 50 pages, as on a busy disk), on (from the 51st page), off (never; a thread costs some 10 MiB)' },
  ...HTTP_FLAGS,
  ...WARC_FLAGS,
  ...REPORT_FLAGS,
  { name: 'frontier', type: 'string', arg: 'URL', help: 'run as one worker of a crawl shared through postgresql://USER@HOST:PORT/DB or sqlite:FILE (default: a private crawl, state in pageDirectory)' },
  { name: 'lease', type: 'duration', arg: 'SECONDS', default: DEFAULT_LEASE_MS / 1000, help: 'with --frontier: how long a worker may hold a URL before another worker takes it over' },
  { name: 'strict-bfs', type: 'boolean', help: 'with --frontier: finish each depth before any worker takes a deeper URL' },
]);

export const CRAWLER_HELP = `Usage: crawler [options] seedURL pageDirectory maxDepth

Crawls breadth first from seedURL, following links within the seed's server
(same scheme, host and port) to maxDepth, and saves each page as
pageDirectory/ID: the URL, a newline, the depth, a newline, then the page
exactly as served. IDs are 1, 2, 3... in the order pages are saved.

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

Log (stdout): one line per event, "%2d %*s%9s: %s" (depth, indent, word, URL),
words Fetched, Scanning, Found, Added, IgnDupl, IgnExtrn, IgnRobots, Failed.

Exit status: 0 the crawl ran (some pages may have failed); 1 an error
prevented it (bad arguments, unusable directory or one in use by another crawl, seed not
fetchable: "PANIC: cannot crawl"); 130 stopped by SIGINT/SIGTERM.
`;
