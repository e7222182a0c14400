/**
 * The private TSE crawl: one process, its state in `pageDirectory` (SQLite),
 * pages saved in breadth-first order under IDs 1..N, the CS50 log on stdout.
 * After a stop (signal, failure) the same command with `--resume` finishes
 * the same crawl.
 */
import { resolve as resolvePath } from 'node:path';
import { CrawlerError, describeError, isCrawlerError } from '../errors.js';
import { FileBodySpill } from '../sink/body-spill.js';
import { Crawl } from '../engine/crawl.js';
import { fanOut } from '../engine/event-fanout.js';
import type { CrawlEvent } from '../engine/events.js';
import { PACING_FILE, PacingState } from '../frontier/pacing-state.js';
import { CRAWLER_FAILURE_POLICY, RobotsPolicy, type RobotsFetcher } from '../robots/policy.js';
import { TsePageDirectory } from '../sink/tse-pagedir.js';
import { PageDirStart } from '../sink/pagedir-start.js';
import { EXIT_INTERRUPTED } from '../program-io.js';
import { REPORT_JOURNAL, ReportJournal } from '../report/report-journal.js';
import { JournaledFrontier } from '../report/journaled-frontier.js';
import { stopWords } from '../report/report-recorder.js';
import { tseEventLog } from './tse-log.js';
import type { TseParts } from './tse-parts.js';
import { refreshLine, refreshSummary, type RefreshSummary } from './tse-refresh.js';
import type { HttpUrl } from '../url/http-url.js';
import { count } from '../plural.js';
import { outputsOf } from './tse-resume-outputs.js';
import { requisitesLine } from '../output/requisites-line.js';

/**
 * `--write-thread auto`: the page files get a thread of their own once
 * writing them costs the crawl's thread more than this (microseconds a page,
 * the median of a window of 50 pages, in 3 of the last 5 windows): a page
 * file is cheap on tmpfs and dear on a busy journaled disk, while handing
 * pages to the thread costs CPU, memory and a start that a short or
 * fast-writing crawl never pays (docs/performance.md, The page files' thread).
 */
export const WRITE_THREAD_OVER_US = 150;

/**
 * A write that failed (a full disk, a read-only file system) stops the
 * crawl, but what was saved is kept and its state is committed up to the
 * last page whose file is in place: the error says how to go on.
 */
function resumable(failure: unknown): unknown {
  if (!isCrawlerError(failure, 'ERR_WRITE', 'ERR_STATE') || failure.hint !== undefined) return failure;
  return new CrawlerError(failure.code, failure.message, {
    cause: failure.cause,
    hint: 'The pages saved so far are kept. Once the cause is fixed (free some space, say), the same command with --resume continues the crawl.',
  });
}

/** Runs the private crawl; resolves with the exit status. */
export async function runTseCrawl(p: TseParts): Promise<number> {
  const { resume, overwrite, pageDir } = p.settings;
  // Imported here, not at the top: --help and a usage error never load better-sqlite3.
  const { readEarlierCrawl } = await import('../frontier/private-sqlite.js');
  // Before any request: the numbered files a new crawl would remove must be ours; an earlier crawl's state is
  // set aside until the first page is saved; the marker is written (a crawl stopped before its first page is ours).
  const start = PageDirStart.begin(pageDir, { resume, overwrite, stateFiles: [PACING_FILE, REPORT_JOURNAL], readEarlier: readEarlierCrawl });
  let code: number;
  try {
    code = await crawlInto(p, start);
  } catch (err) {
    // Failed before its first page was saved (after it, this does nothing): the directory is left as it was found.
    start.undo();
    throw err;
  }
  start.keep();
  return code;
}

async function crawlInto(p: TseParts, start: PageDirStart): Promise<number> {
  const { settings, io, log, progress, seedPanic, report } = p;
  const { seed, pageDir } = settings;
  const robots =
    p.robotsFetch === undefined
      ? undefined
      : new RobotsPolicy({ userAgent: settings.userAgent, onFailure: CRAWLER_FAILURE_POLICY, fetch: p.robotsFetch });
  // A page is durably done (committed in the crawl state) only once its file is in place and, with an
  // archive, its records are written: a crash then never leaves a page done in the state but missing from
  // the page directory or the archive. The page files' thread and the archive's work beside the crawl, so
  // the group commit waits for them as far as the last page handled, not at each page.
  const archive = p.archive;
  let recorded = 0;
  // Imported here, not at the top: --help and a usage error never load better-sqlite3.
  const { SqliteFrontier, forgetEarlierFiles } = await import('../frontier/private-sqlite.js');
  const earlier = p.earlier;
  const frontier = new SqliteFrontier(pageDir, {
    seed: seed.key,
    moreSeeds: (settings.moreSeeds ?? []).map((s) => s.key),
    maxDepth: settings.maxDepth,
    since: earlier?.dir,
    resume: settings.resume,
    ownedThrough: start.ownedThrough,
    archive: settings.archive === undefined ? undefined : resolvePath(settings.archive.path),
    // What a --resume continues (tse-resume-outputs.ts).
    outputs: outputsOf(settings.archive, p.report?.file),
    // Its unchanged pages name the earlier crawls' records: a refresh of this crawl packages their archives too.
    earlierArchives: earlier?.archivePaths,
    // Asked only as pages complete, once `pages` (whose first ID comes from the frontier) is made.
    commitGate: (): boolean => pages.isWritten(frontier.lastDocumentId) && (archive?.isWritten(recorded) ?? true),
  });
  /** Takes the page into the commit's condition; waits for its file and records when its commit is due, else only for a long backlog. */
  const durable = async (): Promise<void> => {
    if (archive !== undefined) recorded = archive.mark();
    if (frontier.commitDue) {
      await pages.written(pages.peekId - 1);
      await archive?.writtenThrough(recorded);
    } else await archive?.room();
  };
  // The report's records live in the page directory too, so a resumed crawl's report covers the whole crawl
  // (started before the pauses are restored, which it draws).
  report?.start(await ReportJournal.open(pageDir, frontier.resumed));
  // Pauses, back-off and refusals survive a restart; a resumed crawl waits out what is left of them.
  const pacing = new PacingState(pageDir, settings.resume);
  pacing.restore(p.politeness);
  p.politeness.observe(pacing.observe);
  const threadWhenOverUs = { auto: WRITE_THREAD_OVER_US, on: 0, off: undefined }[settings.writeThread ?? 'auto'];
  const pages = new TsePageDirectory(pageDir, { firstId: frontier.lastDocumentId + 1, threadWhenOverUs });
  if (frontier.resumed) io.stderr(`crawler: resuming: ${count(frontier.lastDocumentId, 'page')} saved, ${count(frontier.pending, 'URL')} queued\n`);
  // Each page's lines are written once it is saved (its links follow with the next page's), and the progress line drawn.
  const pageSaved = (e: CrawlEvent): void => {
    if (e.type !== 'saved') return;
    log.flush();
    progress.update(() => `crawler: ${count(pages.peekId - 1, 'page')} saved, ${count(frontier.open, 'URL')} queued, depth ${e.depth}`);
  };
  const onEvent = fanOut(tseEventLog({ io, log, seedPanic, nothingSaved: () => pages.peekId === 1, delayMs: settings.delayMs, leftOut: settings.leftOut }), [...p.listeners, pageSaved]);

  const crawl = new Crawl({
    seed,
    moreSeeds: settings.moreSeeds ?? [],
    seedDepth: 0,
    maxDepth: settings.maxDepth,
    maxRedirects: settings.maxRedirects,
    maxPages: settings.maxPages,
    extractor: p.extractor,
    fetcher: p.fetcher,
    politeness: p.politeness,
    loadRobots: robots === undefined ? undefined : (origin) => robots.rulesFor(origin),
    // With a report, each page's records are in its journal before the page is done in the crawl state.
    frontier: report === undefined ? frontier : new JournaledFrontier(frontier, (links) => report.completing(links)),
    policy: p.policy,
    sink: pages,
    // Pages answered ahead of their turn (a broad crawl) wait on the page directory's disk, not in memory.
    spill: new FileBodySpill(pageDir),
    beforeComplete: async ({ documentId }) => {
      await durable();
      if (documentId === 1) start.keep(); // page 1 is this crawl's: the earlier crawl's state is of no use any more
    },
    // A refresh: requests carry the earlier crawl's validators, and a 304 keeps its earlier copy.
    earlier,
    // Each page's capture is kept in the state, for a later refresh's revisit records.
    ...(archive === undefined ? {} : { captureOf: (url: HttpUrl) => archive.captureOf(url.key) }),
    signal: io.signal,
    concurrency: settings.concurrency,
    connectionsPerHost: settings.connectionsPerHost,
    // The crawler never stops at a page, so the next one may be asked for while this one is saved.
    fetchNext: true,
    outputRoom: io.stdoutRoom,
    sitemaps: settings.sitemaps === true ? { maxUrlLength: settings.maxUrlLength } : undefined,
    requisites: settings.requisites,
    requisiteStore:
      settings.requisites === undefined
        ? undefined
        : { store: frontier.requisites, recorded: archive === undefined ? undefined : (key: string) => archive.written(key), captureOf: archive === undefined ? undefined : (key: string) => archive.captureOf(key) },
    onEvent,
  });
  let summary;
  let failure: unknown;
  try {
    summary = await crawl.run();
  } catch (err) {
    failure = err;
  }
  // Several seeds and none saved: the crawl ran out of work with nothing crawled (a PANIC; see SeedPanic).
  if (summary !== undefined && pages.peekId === 1 && (summary.stoppedBy === 'done' || summary.stoppedBy === 'seed-disallowed')) seedPanic.ended();
  log.flush();
  progress.done();
  let kept = true;
  try {
    // The last group's files and records are written before it is committed.
    await pages.finish();
    if (archive !== undefined) await archive.writtenThrough(archive.mark());
  } catch (err) {
    kept = false;
    failure ??= err; // the first failure is the one to report (a full disk fails both)
  }
  let refreshed: RefreshSummary | undefined;
  try {
    // Known only once the refresh has been through the whole site: until then, pages not saved yet would count as gone.
    if (kept && failure === undefined && earlier !== undefined && summary !== undefined && seedPanic.panic === undefined && summary.stoppedBy !== 'signal') {
      refreshed = refreshSummary(frontier, earlier);
    }
  } catch (err) {
    failure ??= err;
  }
  try {
    // A page file the thread could not write, or records the archive could not: the pages of the last
    // group are not all kept, so the group is not committed (a resumed crawl redoes them, as after a crash).
    if (kept) frontier.close();
    else frontier.abandon();
  } catch (err) {
    failure ??= err;
  }
  if (report !== undefined) {
    // Written whatever the end: a stop by signal, a PANIC, a failed write.
    const why = failure !== undefined ? `stopped by an error: ${describeError(failure)}` : seedPanic.panic !== undefined ? seedPanic.panic.message : stopWords(summary?.stoppedBy ?? 'done');
    try {
      if (refreshed !== undefined) report.refreshed(refreshed);
      io.stderr(`crawler: report written to ${report.finish(why)}\n`);
    } catch (err) {
      failure ??= err;
    }
  }
  if (failure !== undefined) throw resumable(failure);
  if (summary === undefined) throw new CrawlerError('ERR_STATE', 'the crawl ended without a summary');
  if (seedPanic.panic !== undefined) throw seedPanic.panic;
  const saved = pages.peekId - 1;
  if (summary.stoppedBy === 'signal') {
    io.stderr(`crawler: interrupted after ${count(saved, 'page')} in ${pageDir}; the same command with --resume continues the crawl\n`);
    return EXIT_INTERRUPTED;
  }
  const removed = await pages.removeStale(frontier.ownedThrough);
  if (frontier.ownedThrough > saved) forgetEarlierFiles(pageDir);
  if (removed > 0) io.stderr(`crawler: removed ${removed} page files of an earlier crawl from ${pageDir}\n`);
  io.stderr(`crawler: saved ${count(saved, 'page')} in ${pageDir}\n`);
  if (crawl.requisites !== undefined) io.stderr(requisitesLine(crawl.requisites.counts));
  if (refreshed !== undefined) io.stderr(refreshLine(settings.since as string, refreshed));
  return 0;
}
