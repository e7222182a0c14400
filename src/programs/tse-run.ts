/**
 * Runs a TinySearch Engine crawl from checked settings: builds what both
 * kinds of run share (every program's run parts, run-parts.ts, with the
 * crawler's link resolution and back-off; the robots.txt fetcher with its
 * redirect rule, the seed PANIC, the policy and the log) and hands them to
 * the private crawl or to a worker of a shared one.
 * Resolves with the exit status; rejects with a CrawlerError (a PANIC, an
 * unusable directory or store).
 */
import { resolve as resolvePath } from 'node:path';
import type { TseParts } from './tse-parts.js';
import { HtmlLinkExtractor } from '../extract/html.js';
import { CrawlLog } from '../output/cs50-log.js';
import { reportRecorder, stopWords, type ReportRecorder } from '../report/report-recorder.js';
import type { RefreshSource } from '../frontier/refresh-source.js';
import { openRefresh } from './tse-refresh.js';
import { EXIT_INTERRUPTED, type CliIo } from '../program-io.js';
import type { ReportSettings } from '../report/run-info.js';
import { checkPageDirectory } from '../sink/tse-pagedir.js';
import { DirLock } from '../sink/dir-lock.js';
import { resolveHttpUrl } from '../url/http-url.js';
import { SeedPanic } from './seed-panic.js';
import { tsePolicy } from './tse.js';
import { robotsRedirectRule } from './tse-robots-redirect.js';
import type { TseSettings } from './tse-settings.js';
import { runTseCrawl } from './tse-crawl.js';
import { runTseWorker } from './tse-worker.js';
import { buildRunParts } from './run-parts.js';
import { resumedOutputs } from './tse-resume-outputs.js';
import type { ArchivedPage } from '../archive/crawl-archive.js';

/**
 * Runs the crawl the settings describe, holding the lock on its
 * pageDirectory from before the first request to the end (dir-lock.ts; the
 * workers of one shared crawl share it); resolves with the exit status.
 */
export async function runTse(settings: TseSettings, io: CliIo, reportSettings?: ReportSettings): Promise<number> {
  await checkPageDirectory(settings.pageDir, { overwrite: settings.overwrite });
  // Sitemaps add links at depth 1: at maxDepth 0 there is nowhere to put them (issue 43, item 9).
  if (settings.sitemaps === true && settings.maxDepth === 0) io.stderr('crawler: --sitemaps: maxDepth 0 crawls the seeds only; sitemaps are not read\n');
  const shared = settings.shared === undefined ? undefined : await sharedCrawlId(settings.shared.spec);
  const lock = await DirLock.acquire(settings.pageDir, { program: 'crawler', label: 'pageDirectory', code: 'ERR_PAGE_DIRECTORY', shared });
  const note = lock.takeoverNote(settings.pageDir, 'pageDirectory');
  if (note !== undefined) io.stderr(`crawler: ${note}\n`);
  try {
    return await runLocked(settings, io, reportSettings);
  } finally {
    lock.release();
  }
}

/**
 * What makes workers one shared crawl: the frontier database they name (a
 * SQLite file by its absolute path), as a digest, for the lock file must not
 * hold a password.
 */
async function sharedCrawlId(spec: string): Promise<string> {
  const sqlite = /^sqlite:(.+)$/i.exec(spec);
  const { createHash } = await import('node:crypto');
  return createHash('sha256').update(sqlite === null ? spec : `sqlite:${resolvePath(sqlite[1] as string)}`).digest('hex').slice(0, 32);
}

async function runLocked(given: TseSettings, io: CliIo, givenReport?: ReportSettings): Promise<number> {
  let settings = given;
  let reportSettings = givenReport;
  let listed: ArchivedPage[] | undefined;
  if (given.resume && given.shared === undefined) {
    // Before any request: a resume writes to the files the crawl was started with (issue 43, items 1 and 2).
    const { readRecordedOutputs } = await import('../frontier/crawl-outputs.js');
    const state = readRecordedOutputs(given.pageDir);
    try {
      const outputs = resumedOutputs(state, { archive: given.archive, report: givenReport, pageDir: given.pageDir, commandLine: given.commandLine ?? ['crawler'] }, (line) => io.stderr(`crawler: ${line}\n`));
      settings = { ...given, archive: outputs.archive };
      reportSettings = outputs.report;
      listed = outputs.listed;
    } finally {
      state?.close();
    }
  }
  const report = reportRecorder(reportSettings, { program: 'crawler', delayMs: settings.delayMs, pageDir: settings.pageDir, ...(settings.since === undefined ? {} : { since: settings.since }) }, settings.leftOut);
  const earlier = settings.since === undefined ? undefined : await openRefresh(settings, io);
  try {
    return await runWith(settings, io, report, earlier, listed);
  } finally {
    earlier?.close();
  }
}

async function runWith(settings: TseSettings, io: CliIo, report: ReportRecorder | undefined, earlier: RefreshSource | undefined, listed: ArchivedPage[] | undefined): Promise<number> {
  const run = await buildRunParts(settings, io, {
    program: 'crawler',
    report,
    archiveRun: {
      robots: settings.ignoreRobots ? 'ignore' : 'obey',
      userAgent: settings.userAgent,
      resume: settings.resume,
      shared: settings.shared !== undefined,
      // A private crawl's state keeps each page's capture, for a later refresh's revisits.
      captures: settings.shared === undefined,
      earlier: earlier === undefined ? undefined : { pages: earlier, archiveFiles: settings.archive?.wacz === undefined ? [] : earlier.archiveFiles() },
      listed,
    },
    resolveLink: resolveHttpUrl,
    backOff: true,
  });
  const mayFollow = robotsRedirectRule(settings.scope, io.stderr);
  // The seed PANIC hears every robots.txt answer, to name the cause when one means "disallow all".
  const seedPanic = new SeedPanic(settings.seed, 1 + (settings.moreSeeds?.length ?? 0));
  const parts: TseParts = {
    settings,
    io,
    politeness: run.politeness,
    fetcher: run.fetcher,
    policy: tsePolicy(settings, run.resolve),
    robotsFetch: settings.ignoreRobots ? undefined : seedPanic.watching(run.robotsFetcher(mayFollow)),
    extractor: new HtmlLinkExtractor(),
    log: new CrawlLog(io, settings.log),
    progress: run.progress,
    seedPanic,
    listeners: run.listeners,
    report,
    archive: run.archive,
    earlier,
  };
  return run.run(() => (settings.shared === undefined ? runTseCrawl(parts) : reportedWorker(parts, settings.shared)));
}

/** A worker of a shared crawl, with its report (of this worker's requests and pages), written when it ends. */
async function reportedWorker(parts: TseParts, shared: NonNullable<TseSettings['shared']>): Promise<number> {
  const { report, io } = parts;
  report?.start();
  let code: number | undefined;
  try {
    code = await runTseWorker(parts, shared);
    return code;
  } finally {
    if (report !== undefined) {
      const why = code === undefined ? 'stopped by an error' : code === EXIT_INTERRUPTED ? stopWords('signal') : stopWords('done');
      io.stderr(`crawler: report written to ${report.finish(why)}\n`);
    }
  }
}
