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
import type { ClaimStore } from '../frontier/claim-store.js';
import { CRAWLER_FAILURE_POLICY, decodeRobotsBody, DEFAULT_MAX_CRAWL_DELAY, DEFAULT_MAX_ROBOTS_BYTES, rulesFromAnswer } from '../robots/policy.js';
import { TsePageDirectory } from '../sink/tse-pagedir.js';
import { EXIT_INTERRUPTED } from '../cli/run-cli.js';
import { failureReason, LINK_WORDS, redirectRefusal, tseRejectReason } from './tse.js';
import type { TseParts } from './tse-run.js';
import type { TseSettings } from './tse.js';

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

/** Runs this process as a worker of the shared crawl; resolves with the exit status. */
export async function runTseWorker(p: TseParts, shared: NonNullable<TseSettings['shared']>): Promise<number> {
  let store: ClaimStore;
  try {
    store = await openClaimStore(shared.spec, p.settings.concurrency);
  } catch (err) {
    throw new CrawlerError('ERR_INVALID_OPTION', describeError(err), { hint: 'Usage: crawler [options] seedURL pageDirectory maxDepth (see --help)' });
  }
  try {
    return await work(p, shared, store);
  } finally {
    await store.close();
  }
}

async function work(p: TseParts, shared: NonNullable<TseSettings['shared']>, store: ClaimStore): Promise<number> {
  const { settings, io, log, progress, seedPanic } = p;
  const { seed } = settings;
  const sink = new TsePageDirectory(settings.pageDir);
  const robotsOptions = { userAgent: settings.userAgent, onFailure: CRAWLER_FAILURE_POLICY, maxBytes: DEFAULT_MAX_ROBOTS_BYTES, maxCrawlDelay: DEFAULT_MAX_CRAWL_DELAY };
  const program: WorkerProgram = {
    resolveLink: p.resolve,
    inScope: p.inScope,
    rejectReason: tseRejectReason,
    failureReason,
    robotsFetch: p.robotsFetch ?? (async () => ({ error: new Error('robots.txt is ignored') })),
    robotsRules: (answer) => rulesFromAnswer(answer.status === 0 ? { error: undefined } : { status: answer.status, body: Buffer.from(answer.body, 'utf8') }, robotsOptions),
    storedRobots: (status, body) => ({ status, body: status >= 200 && status < 300 ? decodeRobotsBody(body, DEFAULT_MAX_ROBOTS_BYTES) : '' }),
  };
  // Each claim is the only one of its page, so "nothing saved yet" holds for the seed's claim.
  const fail = (url: string, depth: number, reason: string): void => {
    if (!seedPanic.failed(url, depth, true, reason)) log.event(depth, 'Failed', url, reason);
  };
  const onReport = (r: WorkerReport): void => {
    switch (r.kind) {
      case 'saved':
        log.event(r.depth, 'Fetched', r.url.key);
        if (r.links !== undefined) {
          log.event(r.depth, 'Scanning', r.url.key);
          for (const l of r.links) {
            log.event(r.depth, 'Found', l.shown);
            log.event(r.depth, l.action === 'invalid' ? LINK_WORDS.external : LINK_WORDS[l.action], l.shown);
          }
        }
        break;
      case 'failed':
        fail(r.url, r.depth, r.reason);
        break;
      case 'robots':
        if (r.depth === 0 && r.url === seed.key) seedPanic.failed(r.url, 0, true, 'robots.txt disallows it (--ignore-robots to crawl anyway)');
        else log.event(r.depth, 'Failed', r.url, '(disallowed by robots.txt)');
        break;
      case 'redirect': {
        if (r.action === 'follow') break; // the target is queued at the same depth
        const why = r.reason ?? redirectRefusal(r.action);
        if (!seedPanic.failed(r.url, r.depth, true, `redirected to ${r.target}: ${why}`)) log.event(r.depth, 'Failed', r.url, `(redirects to ${r.target}: ${why})`);
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
      case 'notes':
        for (const note of r.notes) io.stderr(`crawler: ${r.url}: ${note}\n`);
        break;
    }
    log.flush();
    progress.update(() => `crawler: worker saved ${saved()} pages`);
  };
  const worker = new Worker({
    store,
    seed,
    config: {
      seed: { key: seed.key, url: seed.href, depth: 0, origin: seed.origin },
      maxDepth: settings.maxDepth,
      delayMs: settings.delayMs,
      robots: p.robotsFetch !== undefined,
    },
    claim: { leaseMs: shared.leaseMs, strictBfs: shared.strictBfs },
    lanes: settings.concurrency,
    maxPages: settings.maxPages,
    extractor: p.extractor,
    fetcher: p.fetcher,
    politeness: p.politeness,
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
    progress.done();
  }
  let total: number | undefined;
  try {
    total = await store.lastDocumentId();
  } catch (err) {
    io.stderr(`crawler: ${describeError(err)}\n`);
  }
  if (seedPanic.panic !== undefined) throw seedPanic.panic;
  if (summary === undefined) throw new CrawlerError('ERR_STATE', 'the worker ended without a summary');
  const mine = `crawler: this worker saved ${summary.saved} page${summary.saved === 1 ? '' : 's'} in ${settings.pageDir}`;
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
