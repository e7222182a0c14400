/**
 * `crawler --frontier URL ...`: this process is one worker of a crawl shared
 * through a frontier database (PostgreSQL, or a SQLite file for workers on
 * one machine). The first worker creates the crawl, the others join it;
 * each saves the pages it fetches into its own pageDirectory (or a shared
 * one) under document IDs the database hands out, and all of them end with
 * exit 0 once nothing is waiting and no claim is out.
 */
import { CrawlerError, describeError } from '../errors.js';
import { Worker, type WorkerProgram, type WorkerReport, type WorkerSummary } from '../engine/worker.js';
import type { PoliteFetcher } from '../engine/polite-fetch.js';
import type { LinkExtractor } from '../extract/types.js';
import { DEFAULT_LEASE_MS, type ClaimStore } from '../frontier/claim-store.js';
import type { Politeness } from '../frontier/politeness.js';
import { CRAWLER_FAILURE_POLICY, decodeRobotsBody, DEFAULT_MAX_CRAWL_DELAY, DEFAULT_MAX_ROBOTS_BYTES, rulesFromAnswer, type RobotsFetcher } from '../robots/policy.js';
import { TsePageDirectory } from '../sink/tse-pagedir.js';
import type { HttpUrl } from '../url/http-url.js';
import { defineFlags } from './args.js';
import type { CrawlLog } from './crawl-log.js';
import type { Progress } from './progress.js';
import { EXIT_INTERRUPTED, type CliIo } from './run-cli.js';

/** The flags of worker mode. */
export const WORKER_FLAGS = defineFlags([
  { name: 'frontier', type: 'string', arg: 'URL', help: 'run as one worker of a crawl shared through postgresql://USER@HOST:PORT/DB or sqlite:FILE (default: a private crawl, state in pageDirectory)' },
  { name: 'lease', type: 'duration', arg: 'SECONDS', default: DEFAULT_LEASE_MS / 1000, help: 'with --frontier: how long a worker may hold a URL before another worker takes it over' },
  { name: 'strict-bfs', type: 'boolean', help: 'with --frontier: finish each depth before any worker takes a deeper URL' },
]);

/** Opens the store a --frontier value names (its module is loaded only then: a private crawl never loads pg). */
export async function openClaimStore(spec: string, lanes: number): Promise<ClaimStore> {
  if (/^postgres(ql)?:\/\//i.test(spec)) {
    const { PostgresClaimStore } = await import('../frontier/claim-postgres.js');
    return new PostgresClaimStore(spec, { maxConnections: lanes + 1 });
  }
  const sqlite = /^sqlite:(.+)$/i.exec(spec);
  if (sqlite !== null) {
    const { SqliteClaimStore } = await import('../frontier/claim-sqlite.js');
    return new SqliteClaimStore(sqlite[1] as string);
  }
  throw new CrawlerError('ERR_INVALID_OPTION', `--frontier must be postgresql://USER@HOST:PORT/DB or sqlite:FILE, got "${spec}"`);
}

/** What crawler's main has set up, handed to the worker. */
export interface WorkerSetup {
  io: CliIo;
  store: ClaimStore;
  seed: HttpUrl;
  pageDir: string;
  maxDepth: number;
  delayMs: number;
  leaseMs: number;
  strictBfs: boolean;
  lanes: number;
  maxPages: number | undefined;
  userAgent: string;
  /** undefined with --ignore-robots. */
  robotsFetch: RobotsFetcher | undefined;
  resolve: (href: string, base: HttpUrl) => HttpUrl;
  inScope: (url: HttpUrl) => boolean;
  rejectReason: WorkerProgram['rejectReason'];
  extractor: LinkExtractor;
  fetcher: PoliteFetcher;
  politeness: Politeness;
  log: CrawlLog;
  progress: Progress;
}

/** Runs this process as a worker; returns the exit status. */
export async function runWorker(s: WorkerSetup): Promise<number> {
  const { io, log, store } = s;
  const sink = new TsePageDirectory(s.pageDir);
  const robotsOptions = { userAgent: s.userAgent, onFailure: CRAWLER_FAILURE_POLICY, maxBytes: DEFAULT_MAX_ROBOTS_BYTES, maxCrawlDelay: DEFAULT_MAX_CRAWL_DELAY };
  const program: WorkerProgram = {
    resolveLink: s.resolve,
    inScope: s.inScope,
    rejectReason: s.rejectReason,
    robotsFetch: s.robotsFetch ?? (async () => ({ error: new Error('robots.txt is ignored') })),
    robotsRules: (answer) => rulesFromAnswer(answer.status === 0 ? { error: undefined } : { status: answer.status, body: Buffer.from(answer.body, 'utf8') }, robotsOptions),
    storedRobots: (status, body) => ({ status, body: status >= 200 && status < 300 ? decodeRobotsBody(body, DEFAULT_MAX_ROBOTS_BYTES) : '' }),
  };
  let panic: CrawlerError | undefined;
  const isSeed = (url: string, depth: number): boolean => depth === 0 && url === s.seed.key;
  const seedFailed = (why: string): void => {
    panic = new CrawlerError('ERR_SEED', `PANIC: cannot crawl ${s.seed.key}: ${why}`, { url: s.seed.key });
  };
  const onReport = (r: WorkerReport): void => {
    switch (r.kind) {
      case 'saved':
        log.event(r.depth, 'Fetched', r.url.key);
        if (r.links !== undefined) {
          log.event(r.depth, 'Scanning', r.url.key);
          for (const l of r.links) {
            log.event(r.depth, 'Found', l.shown);
            log.event(r.depth, l.action === 'follow' ? 'Added' : l.action === 'duplicate' ? 'IgnDupl' : l.action === 'robots' ? 'IgnRobots' : 'IgnExtrn', l.shown);
          }
        }
        break;
      case 'failed':
        if (isSeed(r.url, r.depth)) seedFailed(r.reason);
        else log.event(r.depth, 'Failed', r.url, r.reason);
        break;
      case 'robots':
        if (isSeed(r.url, r.depth)) seedFailed('robots.txt disallows it (--ignore-robots to crawl anyway)');
        else log.event(r.depth, 'Failed', r.url, '(disallowed by robots.txt)');
        break;
      case 'redirect': {
        if (r.action === 'follow') break; // the target is queued at the same depth
        const why = r.reason ?? (r.action === 'duplicate' ? 'already seen' : r.action === 'robots' ? 'disallowed by robots.txt' : 'outside the crawl');
        if (isSeed(r.url, r.depth)) seedFailed(`redirected to ${r.target}: ${why}`);
        else log.event(r.depth, 'Failed', r.url, `(redirects to ${r.target}: ${why})`);
        break;
      }
      case 'lost':
        io.stderr(`crawler: the lease on ${r.url} ran out before it was done; another worker has taken it over (--lease)\n`);
        break;
      case 'robots-txt':
        if (CRAWLER_FAILURE_POLICY(r.answer.status === 0 ? { error: undefined } : { status: r.answer.status, body: Buffer.alloc(0) }) === 'disallow') {
          io.stderr(`crawler: ${r.url} ${r.answer.status === 0 ? 'could not be fetched' : `answered HTTP ${r.answer.status}`}, which means disallow all (RFC 9309)\n`);
        }
        break;
    }
    log.flush();
    s.progress.update(() => `crawler: worker saved ${saved()} pages`);
  };
  const worker = new Worker({
    store,
    seed: s.seed,
    config: {
      seed: { key: s.seed.key, url: s.seed.href, depth: 0, origin: s.seed.origin },
      maxDepth: s.maxDepth,
      delayMs: s.delayMs,
      robots: s.robotsFetch !== undefined,
    },
    claim: { leaseMs: s.leaseMs, strictBfs: s.strictBfs },
    lanes: s.lanes,
    maxPages: s.maxPages,
    extractor: s.extractor,
    fetcher: s.fetcher,
    politeness: s.politeness,
    sink,
    program,
    onReport,
    signal: io.signal,
  });
  let summary: WorkerSummary | undefined;
  const saved = (): number => summary?.saved ?? 0;
  try {
    summary = await worker.run();
  } finally {
    log.flush();
    s.progress.done();
  }
  let total: number | undefined;
  try {
    total = await store.lastDocumentId();
  } catch (err) {
    io.stderr(`crawler: ${describeError(err)}\n`);
  }
  if (panic !== undefined) throw panic;
  if (summary === undefined) throw new CrawlerError('ERR_STATE', 'the worker ended without a summary');
  const mine = `crawler: this worker saved ${summary.saved} page${summary.saved === 1 ? '' : 's'} in ${s.pageDir}`;
  if (summary.stoppedBy === 'signal') {
    io.stderr(`${mine}; interrupted (the other workers go on; run the same command to rejoin)\n`);
    return EXIT_INTERRUPTED;
  }
  // Done means no claim is out anywhere: a temporary file left here is a dead worker's.
  if (summary.crawlDone) await sink.removeTemporary();
  io.stderr(`${mine}${summary.crawlDone ? `; the crawl is done${total === undefined ? '' : `: ${total} pages in all`}` : ''}\n`);
  return 0;
}

/** The lease flag (already in ms), checked and rounded to whole ms. */
export function leaseMsFrom(ms: number): number {
  if (ms <= 0) throw new CrawlerError('ERR_INVALID_OPTION', '--lease must be more than 0 seconds');
  return Math.round(ms);
}
