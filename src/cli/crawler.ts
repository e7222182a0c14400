/**
 * `crawler [options] seedURL pageDirectory maxDepth`: the TinySearch Engine
 * crawler. Breadth first within one server, polite, each page saved as
 * `pageDirectory/ID`, a CS50-format log on stdout.
 */
import { CrawlerError, describeError, type ErrorCode } from '../errors.js';
import { Crawl, type CrawlProgram, type FetchedPage } from '../engine/crawl.js';
import { PoliteFetcher } from '../engine/polite-fetch.js';
import { HtmlLinkExtractor } from '../extract/html.js';
import { SqliteFrontier } from '../frontier/sqlite-store.js';
import { Politeness } from '../frontier/politeness.js';
import type { FrontierEntry } from '../frontier/store.js';
import { HttpClient, type FetchResponse } from '../http/client.js';
import { encodeTarget } from '../url/request-target.js';
import { headerValue } from '../http/response-parser.js';
import { CRAWLER_FAILURE_POLICY, RobotsPolicy } from '../robots/policy.js';
import { checkPageDirectory, TsePageDirectory } from '../sink/tse-pagedir.js';
import { parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../url/http-url.js';
import { checkPathDepth } from '../url/limits.js';
import { hasNonHtmlExtension, isHtmlContentType } from '../url/non-html.js';
import { prefixesScope, sameOriginScope, type Scope } from '../url/scope.js';
import { formatFlags, parseArgs, type FlagSpec } from './args.js';
import { clientOptionsFrom, concurrencyFrom, HTTP_FLAGS } from './common-flags.js';
import { CrawlLog } from './crawl-log.js';
import { leaseMsFrom, openClaimStore, runWorker, WORKER_FLAGS } from './crawler-worker.js';
import { Progress } from './progress.js';
import { EXIT_INTERRUPTED, type CliIo } from './run-cli.js';

export const CRAWLER_USER_AGENT = 'polite-crawler/0.1 (TinySearch Engine crawler)';
export const DEFAULT_DEPTH_LIMIT = 10;

const FLAGS: readonly FlagSpec[] = [
  { name: 'help', short: 'h', type: 'boolean', help: 'print this help and exit' },
  { name: 'delay', type: 'seconds', arg: 'SECONDS', default: 1, help: 'least time between request starts to the server (robots.txt Crawl-delay can raise it)' },
  { name: 'depth-limit', type: 'count', arg: 'N', default: DEFAULT_DEPTH_LIMIT, help: 'largest maxDepth accepted' },
  { name: 'internal', type: 'string', arg: 'PREFIX', repeatable: true, help: 'URLs starting with PREFIX are internal; give it again for more servers (default: same scheme, host and port as the seed)' },
  { name: 'ignore-robots', type: 'boolean', help: 'do not fetch or obey robots.txt' },
  { name: 'max-pages', type: 'count', arg: 'N', help: 'stop after N responses (default: no limit)' },
  { name: 'user-agent', type: 'string', arg: 'TEXT', default: CRAWLER_USER_AGENT, help: 'User-Agent header and robots.txt agent' },
  { name: 'resume', type: 'boolean', help: 'continue the interrupted crawl recorded in pageDirectory (same seedURL and maxDepth)' },
  { name: 'quiet', short: 'q', type: 'boolean', help: 'print no log on stdout' },
  { name: 'json', type: 'boolean', help: 'log one JSON object per event instead of the CS50 format' },
  ...HTTP_FLAGS,
  ...WORKER_FLAGS,
];

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

Log (stdout): one line per event, "%2d %*s%9s: %s" (depth, indent, word, URL),
words Fetched, Scanning, Found, Added, IgnDupl, IgnExtrn, IgnRobots, Failed.

Exit status: 0 the crawl ran (some pages may have failed); 1 an error
prevented it (bad arguments, unusable directory, seed not fetchable:
"PANIC: cannot crawl"); 130 stopped by SIGINT/SIGTERM.
`;

function usage(message: string, code: ErrorCode = 'ERR_USAGE'): CrawlerError {
  return new CrawlerError(code, `${message}\nUsage: crawler [options] seedURL pageDirectory maxDepth (see --help)`);
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
  if (flags['help'] === true) {
    io.stdout(CRAWLER_HELP);
    return 0;
  }
  if (positionals.length !== 3) throw usage(`expected 3 arguments (seedURL pageDirectory maxDepth), got ${positionals.length}`);
  const [seedText, pageDir, depthText] = positionals as [string, string, string];

  let seed: HttpUrl;
  try {
    seed = parseHttpUrl(seedText, flags['max-url-length'] as number);
  } catch (err) {
    throw usage(`invalid seedURL "${seedText}": ${describeError(err)}`, 'ERR_INVALID_URL');
  }
  const depthLimit = flags['depth-limit'] as number;
  if (!/^[0-9]+$/.test(depthText)) throw usage(`maxDepth must be a non-negative integer written in digits, got "${depthText}"`);
  const maxDepth = Number(depthText);
  if (maxDepth > depthLimit) throw usage(`maxDepth ${depthText} is above the depth limit ${depthLimit} (--depth-limit N changes it)`);
  let scope: Scope;
  try {
    scope = flags['internal'] !== undefined ? prefixesScope(flags['internal'] as string[]) : sameOriginScope(seed);
  } catch (err) {
    throw usage(`invalid --internal prefix: ${describeError(err)}`, 'ERR_INVALID_OPTION');
  }
  if (!scope(seed)) throw usage(`seedURL ${seed.key} is not inside --internal ${(flags['internal'] as string[]).join(' or ')}`, 'ERR_INVALID_OPTION');
  let parallel;
  try {
    parallel = concurrencyFrom(flags);
  } catch (err) {
    throw usage(describeError(err), 'ERR_INVALID_OPTION');
  }
  const userAgent = flags['user-agent'] as string;
  // RFC 9110 §5.5: no control characters in a field value; an empty one names no robots.txt group.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(userAgent)) throw usage('--user-agent must not contain control characters (CR, LF, NUL, TAB...)', 'ERR_INVALID_OPTION');
  if (userAgent.trim() === '') throw usage('--user-agent must not be empty', 'ERR_INVALID_OPTION');
  const frontierSpec = flags['frontier'] as string | undefined; // a shared crawl: see crawler-worker.ts
  if (frontierSpec === undefined) {
    if (flags['strict-bfs'] === true) throw usage('--strict-bfs goes with --frontier (a private crawl is strictly breadth first already)', 'ERR_INVALID_OPTION');
  } else if (flags['resume'] === true) {
    throw usage('--resume does not go with --frontier: a shared crawl is joined (and so resumed) by running the same command again', 'ERR_INVALID_OPTION');
  }
  let leaseMs;
  try {
    leaseMs = leaseMsFrom(flags['lease'] as number);
  } catch (err) {
    throw usage(describeError(err), 'ERR_INVALID_OPTION');
  }
  await checkPageDirectory(pageDir);

  const client = new HttpClient(clientOptionsFrom(flags, userAgent));
  const politeness = new Politeness({ delayMs: (flags['delay'] as number) * 1000 });
  const fetcher = new PoliteFetcher(client, politeness, io.signal);
  const maxUrl = flags['max-url-length'] as number;
  const maxRedirects = flags['max-redirects'] as number;
  const maxSegments = flags['max-path-depth'] as number;
  const resolve = (href: string, base: HttpUrl): HttpUrl => checkPathDepth(resolveHttpUrl(href, base, maxUrl), maxSegments);
  // Why a host's robots.txt counts as "disallow all" (RFC 9309: 5xx or unreachable), for the PANIC message.
  const robotsFailures = new Map<string, string>();
  // robots.txt redirects are followed, but never off the crawl: "External URLs
  // are never requested, robots.txt of other hosts included".
  // A shared crawl (--frontier) holds only the robots.txt host's turn across
  // workers, so there a redirect is followed on that host only.
  const shared = frontierSpec !== undefined;
  const robotsFetch = fetcher.robotsFetcher((h) => parseHttpUrl(h, maxUrl), resolve, maxRedirects, (next, from) => {
    if (next.origin === from.origin || (!shared && scope(next))) return true;
    io.stderr(`crawler: ${from.key} redirects to ${next.key}, ${shared ? 'another host' : 'outside the crawl'}: not followed, robots.txt treated as unavailable (allow all)\n`);
    return false;
  });
  const robots =
    flags['ignore-robots'] === true
      ? undefined
      : new RobotsPolicy({
          userAgent,
          onFailure: CRAWLER_FAILURE_POLICY,
          fetch: async (robotsUrl, origin) => {
            const result = await robotsFetch(robotsUrl, origin);
            if (!('status' in result)) robotsFailures.set(origin, `${robotsUrl} could not be fetched (${describeError(result.error)})`);
            else if (CRAWLER_FAILURE_POLICY(result) === 'disallow') robotsFailures.set(origin, `${robotsUrl} answered HTTP ${result.status}`);
            return result;
          },
        });
  const quiet = flags['quiet'] === true;
  const progress = new Progress(io, io.stderrIsTTY && (quiet || !io.stdoutIsTTY));
  const log = new CrawlLog(io, flags['json'] === true ? 'json' : quiet ? 'quiet' : 'cs50');
  const inScope = (url: HttpUrl): boolean => scope(url) && !hasNonHtmlExtension(url.path);
  const extractor = new HtmlLinkExtractor();
  /** Why a final response is not saved: only a 200 with an HTML (or no) Content-Type is. */
  const rejectReason = (response: FetchResponse): string | undefined => {
    if (response.status !== 200) return `(HTTP ${response.status})`;
    const type = headerValue(response.headers, 'content-type');
    return isHtmlContentType(type) ? undefined : `(not HTML: ${type})`;
  };

  if (frontierSpec !== undefined) {
    let store;
    try {
      store = await openClaimStore(frontierSpec, parallel.concurrency);
    } catch (err) {
      throw usage(describeError(err), 'ERR_INVALID_OPTION');
    }
    try {
      return await runWorker({
        io,
        store,
        seed,
        pageDir,
        maxDepth,
        delayMs: (flags['delay'] as number) * 1000,
        leaseMs,
        strictBfs: flags['strict-bfs'] === true,
        lanes: parallel.concurrency,
        maxPages: flags['max-pages'] as number | undefined,
        userAgent,
        robotsFetch: flags['ignore-robots'] === true ? undefined : robotsFetch,
        resolve,
        inScope,
        rejectReason,
        extractor,
        fetcher,
        politeness,
        log,
        progress,
      });
    } finally {
      client.close();
      await store.close();
    }
  }

  const frontier = new SqliteFrontier(pageDir, { seed: seed.key, maxDepth, resume: flags['resume'] === true });
  const sink = new TsePageDirectory(pageDir, { firstId: frontier.lastDocumentId + 1 });
  if (frontier.resumed) io.stderr(`crawler: resuming: ${frontier.lastDocumentId} pages saved, ${frontier.pending} URLs queued\n`);
  let panic: CrawlerError | undefined;
  const isSeed = (entry: FrontierEntry): boolean => entry.key === seed.key;
  const fail = (entry: FrontierEntry, url: HttpUrl, reason: string): void => {
    if (isSeed(entry) && sink.peekId === 1) panic = new CrawlerError('ERR_SEED', `PANIC: cannot crawl ${seed.key}: ${reason}`, { url: seed.key });
    else log.event(entry.depth, 'Failed', url.key, reason);
  };

  const program: CrawlProgram = {
    resolveLink: resolve,
    inScope,
    async onResponse(page: FetchedPage) {
      const { response, url, entry } = page;
      const reject = rejectReason(response);
      if (reject !== undefined) {
        fail(entry, url, reject);
        return 'done';
      }
      frontier.recordDocument(await sink.save({ url: url.key, depth: page.depth, body: response.body }));
      log.event(page.depth, 'Fetched', url.key);
      log.flush();
      progress.update(() => `crawler: ${sink.peekId - 1} pages saved, ${frontier.pending} URLs queued, depth ${page.depth}`);
      return 'scan';
    },
    onFailure(entry, url, error) {
      // A chain of too many redirects was reported by onRedirect, at the URL that redirected.
      if (error.code === 'ERR_REDIRECT_LIMIT') return;
      fail(entry, url, `(${error.message})`);
    },
    onSeedDisallowed(url) {
      const failure = robotsFailures.get(url.origin);
      const why = failure === undefined ? 'robots.txt disallows it' : `${failure}, which means disallow all (RFC 9309)`;
      panic = new CrawlerError('ERR_SEED', `PANIC: cannot crawl ${url.key}: ${why} (--ignore-robots to crawl anyway)`, { url: url.key });
    },
  };

  const crawl = new Crawl({
    seed,
    seedDepth: 0,
    maxDepth,
    maxRedirects,
    maxPages: flags['max-pages'] as number | undefined,
    extractor,
    fetcher,
    politeness,
    robots,
    frontier,
    program,
    signal: io.signal,
    ...parallel,
    events: {
      onScan: (url, depth) => log.event(depth, 'Scanning', url.key),
      onLink: (raw, url, action, depth) => {
        // An unusable link is shown as written, but encoded like a request
        // target: no space, control character or line break reaches the log.
        const shown = url?.key ?? encodeTarget(raw);
        log.event(depth, 'Found', shown);
        log.event(depth, action === 'follow' ? 'Added' : action === 'duplicate' ? 'IgnDupl' : action === 'robots' ? 'IgnRobots' : 'IgnExtrn', shown);
      },
      onRedirect: (from, to, raw, action, depth, error) => {
        if (action === 'follow') return;
        const why = error?.message ?? (action === 'duplicate' ? 'already seen' : action === 'robots' ? 'disallowed by robots.txt' : action === 'invalid' ? 'not a crawlable URL' : 'outside the crawl');
        // The seed (the only page at depth 0) not fetched because of where it redirects: nothing to crawl.
        if (depth === 0 && sink.peekId === 1) {
          const via = from.key === seed.key ? '' : ` (by ${from.key})`;
          panic = new CrawlerError('ERR_SEED', `PANIC: cannot crawl ${seed.key}: redirected to ${to?.key ?? raw}${via}: ${why}`, { url: seed.key });
          return;
        }
        log.event(depth, 'Failed', from.key, `(redirects to ${to?.key ?? raw}: ${why})`);
      },
    },
  });
  let summary;
  let failure: unknown;
  try {
    summary = await crawl.run();
  } catch (err) {
    failure = err;
  }
  log.flush();
  progress.done();
  client.close();
  try {
    frontier.close();
  } catch (err) {
    failure ??= err; // the first failure is the one to report (a full disk fails both)
  }
  if (failure !== undefined) throw failure;
  if (summary === undefined) throw new CrawlerError('ERR_STATE', 'the crawl ended without a summary');
  if (panic !== undefined) throw panic;
  const saved = sink.peekId - 1;
  if (summary.stoppedBy === 'signal') {
    io.stderr(`crawler: interrupted after ${saved} page${saved === 1 ? '' : 's'} in ${pageDir}\n`);
    return EXIT_INTERRUPTED;
  }
  const removed = await sink.removeStale();
  if (removed > 0) io.stderr(`crawler: removed ${removed} page files of an earlier crawl from ${pageDir}\n`);
  io.stderr(`crawler: saved ${saved} page${saved === 1 ? '' : 's'} in ${pageDir}\n`);
  return 0;
}
