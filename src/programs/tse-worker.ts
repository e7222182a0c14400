/**
 * `crawler --frontier URL ...`: this process is one worker of a crawl shared
 * through a frontier database (PostgreSQL, or a SQLite file for workers on
 * one machine). The first worker creates the crawl, the others join it;
 * each saves the pages it fetches into its own pageDirectory (or a shared
 * one) under document IDs the database hands out, and all of them end with
 * exit 0 once nothing is waiting and no claim is out.
 */
import { CrawlerError, describeError } from '../errors.js';
import { fanOut } from '../engine/event-fanout.js';
import type { CrawlEvent } from '../engine/events.js';
import { Worker, type WorkerSummary } from '../engine/worker.js';
import type { StoredRobotsPolicy } from '../engine/store-robots.js';
import type { ClaimStore } from '../frontier/claim-store.js';
import { CRAWLER_FAILURE_POLICY, decodeRobotsBody, DEFAULT_MAX_CRAWL_DELAY, DEFAULT_MAX_ROBOTS_BYTES, rulesFromAnswer } from '../robots/policy.js';
import { TsePageDirectory } from '../sink/tse-pagedir.js';
import { EXIT_INTERRUPTED } from '../program-io.js';
import { tseEventLog } from './tse-log.js';
import type { TseParts } from './tse-parts.js';
import type { TseSettings } from './tse-settings.js';
import type { CompletingPage } from '../engine/turns.js';
import { count } from '../plural.js';
import { requisitesLine } from '../output/requisites-line.js';

/**
 * Connections a worker keeps to PostgreSQL at most. Each call is one short
 * statement, so lanes share a few: a connection per lane (64 for
 * `--concurrency 64`) is a server process each, started and its functions
 * compiled for a handful of calls, which at the start of a broad crawl of
 * several workers costs more CPU than the crawl itself. And calls at once
 * contend in the server (the same hosts' rows, the same index pages): fewer
 * connections spend less of the server's CPU (docs/performance.md, Shared
 * workers and PostgreSQL).
 */
export const MAX_PG_CONNECTIONS = 4;

/**
 * Opens the store a --frontier value names (its module is loaded only then:
 * a private crawl never loads pg). A PostgreSQL database may be unreachable
 * (a restart) for `outage.waitMs` before a call fails; `outage.note` hears
 * when it goes away and when it is back.
 */
export async function openClaimStore(spec: string, lanes: number, outage: { waitMs?: number; note?: (line: string) => void } = {}): Promise<ClaimStore> {
  if (/^postgres(ql)?:\/\//i.test(spec)) {
    const { PostgresClaimStore } = await import('../frontier/claim-postgres.js');
    return new PostgresClaimStore(spec, {
      maxConnections: Math.min(lanes + 1, MAX_PG_CONNECTIONS),
      ...(outage.waitMs === undefined ? {} : { waitMs: outage.waitMs }),
      ...(outage.note === undefined ? {} : { onOutage: outage.note }),
    });
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
    store = await openClaimStore(shared.spec, p.settings.concurrency, { waitMs: shared.waitMs, note: (line) => p.io.stderr(`crawler: ${line}\n`) });
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
  // IDs come from the store in any order: each page waits under a temporary name.
  const sink = new TsePageDirectory(settings.pageDir, { staging: 'file' });
  const robotsOptions = { userAgent: settings.userAgent, onFailure: CRAWLER_FAILURE_POLICY, maxBytes: DEFAULT_MAX_ROBOTS_BYTES, maxCrawlDelay: DEFAULT_MAX_CRAWL_DELAY };
  const robots: StoredRobotsPolicy = {
    fetch: p.robotsFetch ?? (async () => ({ error: new Error('robots.txt is ignored') })),
    rules: (answer) => rulesFromAnswer(answer.status === 0 ? { error: undefined } : { status: answer.status, body: Buffer.from(answer.body, 'utf8') }, robotsOptions),
    stored: (status, body) => ({ status, body: status >= 200 && status < 300 ? decodeRobotsBody(body, DEFAULT_MAX_ROBOTS_BYTES) : '' }),
  };
  const archive = p.archive;
  // Every page of a shared crawl at depth 0 is the seed or its redirect target, fetched before anything is saved.
  const toLog = fanOut(tseEventLog({ io, log, seedPanic, nothingSaved: () => true, delayMs: settings.delayMs, leftOut: settings.leftOut }), p.listeners);
  // A claim's events come in one synchronous run once it is completed: its lines are written in one go after it.
  let flushing = false;
  const onEvent = (e: CrawlEvent): void => {
    toLog(e);
    if (flushing) return;
    flushing = true;
    queueMicrotask(() => {
      flushing = false;
      log.flush();
      progress.update(() => `crawler: worker saved ${saved()} pages`);
    });
  };
  const worker = new Worker({
    store,
    seed,
    config: {
      seed: { key: seed.key, url: seed.href, depth: 0, origin: seed.origin },
      moreSeeds: (settings.moreSeeds ?? []).map((s) => ({ key: s.key, url: s.href, depth: 0, origin: s.origin })),
      scope: settings.scopeKey ?? '',
      maxDepth: settings.maxDepth,
      delayMs: settings.delayMs,
      robots: p.robotsFetch !== undefined,
      // The page budget is the whole crawl's: the store counts every worker's final answers.
      ...(settings.maxPages === undefined ? {} : { maxPages: settings.maxPages }),
    },
    claim: { leaseMs: shared.leaseMs, strictBfs: shared.strictBfs },
    lanes: settings.concurrency,
    extractor: p.extractor,
    fetcher: p.fetcher,
    politeness: p.politeness,
    sink,
    policy: p.policy,
    robots,
    onEvent,
    signal: io.signal,
    outputRoom: io.stdoutRoom,
    sitemaps: settings.sitemaps === true ? { maxUrlLength: settings.maxUrlLength } : undefined,
    requisites: settings.requisites,
    maxRedirects: settings.maxRedirects,
    // The page's records are in the archive before the store hears it is done.
    ...(archive === undefined ? {} : { beforeComplete: ({ key }: CompletingPage) => archive.written(key) }),
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
  // Several seeds, and the whole crawl is done with none saved (see SeedPanic).
  if (summary?.crawlDone === true && total === 0) seedPanic.ended();
  if (seedPanic.panic !== undefined) throw seedPanic.panic;
  if (summary === undefined) throw new CrawlerError('ERR_STATE', 'the worker ended without a summary');
  const mine = `crawler: this worker saved ${count(summary.saved, 'page')} in ${settings.pageDir}`;
  if (summary.stoppedBy === 'signal') {
    io.stderr(`${mine}; interrupted (the other workers go on; run the same command to rejoin)\n`);
    return EXIT_INTERRUPTED;
  }
  // Done means no claim is out anywhere: a temporary file left here is a dead worker's.
  if (summary.crawlDone) await sink.removeTemporary();
  io.stderr(`${mine}${summary.crawlDone ? `; the crawl is done${total === undefined ? '' : `: ${count(total, 'page')} in all`}` : ''}\n`);
  if (worker.requisites !== undefined) io.stderr(requisitesLine(worker.requisites.counts));
  return 0;
}

/** The lease flag (already in ms), checked and rounded to whole ms. */
export function leaseMsFrom(ms: number): number {
  if (ms <= 0) throw new CrawlerError('ERR_INVALID_OPTION', '--lease must be more than 0 seconds');
  return Math.round(ms);
}
