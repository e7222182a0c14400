/**
 * `crawler [options] seedURL pageDirectory maxDepth`: the TinySearch Engine
 * crawler. Breadth first within one server, polite, each page saved as
 * `pageDirectory/ID`, a CS50-format log on stdout.
 */
import { CrawlerError, describeError, type ErrorCode } from '../errors.js';
import { DEFAULT_LEASE_MS } from '../frontier/claim-store.js';
import { CRAWLER_USER_AGENT, DEFAULT_DEPTH_LIMIT } from '../programs/tse.js';
import { runTse } from '../programs/tse-run.js';
import { leaseMsFrom } from '../programs/tse-worker.js';
import { parseHttpUrl, type HttpUrl } from '../url/http-url.js';
import { prefixesScope, sameOriginScope, type Scope } from '../url/scope.js';
import { defineFlags, formatFlags, parseArgs } from './args.js';
import { reportSettings } from '../report/run-info.js';
import { archiveFrom, clientOptionsFrom, concurrencyFrom, HTTP_FLAGS, REPORT_FLAGS, WARC_FLAGS } from './common-flags.js';
import type { CliIo } from './run-cli.js';

export { CRAWLER_USER_AGENT, DEFAULT_DEPTH_LIMIT };

const FLAGS = defineFlags([
  { name: 'help', short: 'h', type: 'boolean', help: 'print this help and exit' },
  { name: 'delay', type: 'duration', arg: 'SECONDS', default: 1, help: 'least time between request starts to the server (robots.txt Crawl-delay can raise it)' },
  { name: 'depth-limit', type: 'count', arg: 'N', default: DEFAULT_DEPTH_LIMIT, help: 'largest maxDepth accepted' },
  { name: 'internal', type: 'string', arg: 'PREFIX', repeatable: true, help: 'URLs starting with PREFIX are internal; give it again for more servers (default: same scheme, host and port as the seed)' },
  { name: 'ignore-robots', type: 'boolean', help: 'do not fetch or obey robots.txt' },
  { name: 'max-pages', type: 'count', arg: 'N', help: 'stop after N responses (default: no limit)' },
  { name: 'user-agent', type: 'string', arg: 'TEXT', default: CRAWLER_USER_AGENT, help: 'User-Agent header and robots.txt agent' },
  { name: 'retries', type: 'count', arg: 'N', default: 2, help: 'tries after the first for a page answered 429, 500, 502, 503 or 504, or lost to a timeout or reset (later in the crawl; the host backs off meanwhile)' },
  { name: 'overwrite', type: 'boolean', help: 'crawl into a pageDirectory that holds numbered files but no .crawler marker (not a crawl of ours); its numbered files are then replaced' },
  { name: 'resume', type: 'boolean', help: 'continue the interrupted crawl recorded in pageDirectory (same seedURL and maxDepth)' },
  { name: 'quiet', short: 'q', type: 'boolean', help: 'print no log on stdout' },
  { name: 'json', type: 'boolean', help: 'log one JSON object per event instead of the CS50 format' },
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
  pageDirectory  existing, writable directory (an earlier crawl in it is replaced)
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
prevented it (bad arguments, unusable directory, seed not fetchable:
"PANIC: cannot crawl"); 130 stopped by SIGINT/SIGTERM.
`;

function usage(message: string, code: ErrorCode = 'ERR_USAGE'): CrawlerError {
  return new CrawlerError(code, message, { hint: 'Usage: crawler [options] seedURL pageDirectory maxDepth (see --help)' });
}

/** The value `make` gives, or its error as an option error with the usage line. */
function option<T>(make: () => T, prefix = ''): T {
  try {
    return make();
  } catch (err) {
    throw usage(`${prefix}${describeError(err)}`, 'ERR_INVALID_OPTION');
  }
}

/** crawler's main: returns the exit status. */
export async function crawlerMain(argv: string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(argv, FLAGS);
  } catch (err) {
    throw usage(describeError(err), 'ERR_INVALID_OPTION');
  }
  const { flags, positionals } = parsed;
  if (flags.help) {
    io.stdout(CRAWLER_HELP);
    return 0;
  }
  if (positionals.length !== 3) throw usage(`expected 3 arguments (seedURL pageDirectory maxDepth), got ${positionals.length}`);
  const [seedText, pageDir, depthText] = positionals as [string, string, string];

  let seed: HttpUrl;
  try {
    seed = parseHttpUrl(seedText, flags.maxUrlLength);
  } catch (err) {
    throw usage(`invalid seedURL "${seedText}": ${describeError(err)}`, 'ERR_INVALID_URL');
  }
  const depthLimit = flags.depthLimit;
  if (!/^[0-9]+$/.test(depthText)) throw usage(`maxDepth must be a non-negative integer written in digits, got "${depthText}"`);
  const maxDepth = Number(depthText);
  if (maxDepth > depthLimit) throw usage(`maxDepth ${depthText} is above the depth limit ${depthLimit} (--depth-limit N changes it)`);
  const scope: Scope = option(() => (flags.internal !== undefined ? prefixesScope(flags.internal) : sameOriginScope(seed)), 'invalid --internal prefix: ');
  if (!scope(seed)) throw usage(`seedURL ${seed.key} is not inside --internal ${(flags.internal ?? []).join(' or ')}`, 'ERR_INVALID_OPTION');
  const parallel = option(() => concurrencyFrom(flags));
  const userAgent = flags.userAgent;
  // RFC 9110 §5.5: no control characters in a field value; an empty one names no robots.txt group.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(userAgent)) throw usage('--user-agent must not contain control characters (CR, LF, NUL, TAB...)', 'ERR_INVALID_OPTION');
  if (userAgent.trim() === '') throw usage('--user-agent must not be empty', 'ERR_INVALID_OPTION');
  const frontierSpec = flags.frontier; // a shared crawl: see src/programs/tse-worker.ts
  if (frontierSpec === undefined) {
    if (flags.strictBfs) throw usage('--strict-bfs goes with --frontier (a private crawl is strictly breadth first already)', 'ERR_INVALID_OPTION');
  } else if (flags.resume) {
    throw usage('--resume does not go with --frontier: a shared crawl is joined (and so resumed) by running the same command again', 'ERR_INVALID_OPTION');
  }
  const report = option(() => reportSettings(flags.report, 'crawler', argv));
  const leaseMs = option(() => leaseMsFrom(flags.leaseMs));
  const archive = option(() => archiveFrom(flags));
  const quiet = flags.quiet;
  return runTse(
    {
      seed,
      pageDir,
      maxDepth,
      scope,
      delayMs: flags.delayMs,
      delayFactor: flags.delayFactor,
      userAgent,
      ignoreRobots: flags.ignoreRobots,
      maxPages: flags.maxPages,
      maxUrlLength: flags.maxUrlLength,
      maxRedirects: flags.maxRedirects,
      maxRetryAfterMs: flags.maxRetryAfterMs,
      retries: flags.retries,
      maxPathSegments: flags.maxPathDepth,
      client: clientOptionsFrom(flags, userAgent),
      ...parallel,
      log: flags.json ? 'json' : quiet ? 'quiet' : 'cs50',
      progress: io.stderrIsTTY && (quiet || !io.stdoutIsTTY),
      resume: flags.resume,
      overwrite: flags.overwrite,
      shared: frontierSpec === undefined ? undefined : { spec: frontierSpec, leaseMs, strictBfs: flags.strictBfs },
      archive: archive === undefined ? undefined : { ...archive, commandLine: ['crawler', ...argv] },
    },
    io,
    report,
  );
}
