/**
 * Runs a TinySearch Engine crawl from checked settings: builds what both
 * kinds of run share (the HTTP client, politeness, the polite fetcher, the
 * robots.txt fetcher with its redirect rule, the log and the progress line)
 * and hands them to the private crawl or to a worker of a shared one.
 * Resolves with the exit status; rejects with a CrawlerError (a PANIC, an
 * unusable directory or store).
 */
import { resolve as resolvePath } from 'node:path';
import { exchangeEvents } from '../engine/event-fanout.js';
import type { CrawlEventSink } from '../engine/events.js';
import type { TseParts } from './tse-parts.js';
import { PoliteFetcher } from '../engine/polite-fetch.js';
import { HtmlLinkExtractor } from '../extract/html.js';
import { Politeness } from '../frontier/politeness.js';
import { HttpClient } from '../http/client.js';
import { CrawlLog } from '../output/cs50-log.js';
import { Progress } from '../output/progress.js';
import { reportRecorder, stopWords, type ReportRecorder } from '../report/report-recorder.js';
import type { RefreshSource } from '../frontier/refresh-source.js';
import { openRefresh } from './tse-refresh.js';
import { EXIT_INTERRUPTED, type CliIo } from '../program-io.js';
import type { ReportSettings } from '../report/run-info.js';
import { checkPageDirectory } from '../sink/tse-pagedir.js';
import { DirLock } from '../sink/dir-lock.js';
import { parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../url/http-url.js';
import { checkPathDepth } from '../url/limits.js';
import { SeedPanic } from './seed-panic.js';
import { tsePolicy } from './tse.js';
import { robotsRedirectRule } from './tse-robots-redirect.js';
import type { TseSettings } from './tse-settings.js';
import { runTseCrawl } from './tse-crawl.js';
import { runTseWorker } from './tse-worker.js';
import { startArchive, withArchive } from './archive-run.js';

/**
 * Runs the crawl the settings describe, holding the lock on its
 * pageDirectory from before the first request to the end (dir-lock.ts; the
 * workers of one shared crawl share it); resolves with the exit status.
 */
export async function runTse(settings: TseSettings, io: CliIo, reportSettings?: ReportSettings): Promise<number> {
  await checkPageDirectory(settings.pageDir, { overwrite: settings.overwrite });
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

async function runLocked(settings: TseSettings, io: CliIo, reportSettings?: ReportSettings): Promise<number> {
  const report = reportRecorder(reportSettings, { program: 'crawler', delayMs: settings.delayMs, pageDir: settings.pageDir, ...(settings.since === undefined ? {} : { since: settings.since }) });
  const earlier = settings.since === undefined ? undefined : await openRefresh(settings, io);
  try {
    return await runWith(settings, io, report, earlier);
  } finally {
    earlier?.close();
  }
}

async function runWith(settings: TseSettings, io: CliIo, report: ReportRecorder | undefined, earlier: RefreshSource | undefined): Promise<number> {
  const listeners: CrawlEventSink[] = report === undefined ? [] : [report.consume];
  const archive = await startArchive(
    settings.archive,
    {
      robots: settings.ignoreRobots ? 'ignore' : 'obey',
      userAgent: settings.userAgent,
      resume: settings.resume,
      shared: settings.shared !== undefined,
      // A private crawl's state keeps each page's capture, for a later refresh's revisits.
      captures: settings.shared === undefined,
      earlier: earlier === undefined ? undefined : { pages: earlier, archiveFiles: settings.archive?.wacz === undefined ? [] : earlier.archiveFiles() },
    },
    listeners,
  );
  const client = new HttpClient({ ...settings.client, onExchange: exchangeEvents(listeners) });
  const politeness = new Politeness({ delayMs: settings.delayMs, delayFactor: settings.delayFactor, observer: report?.pacingObserver });
  const fetcher = new PoliteFetcher(client, politeness, io.signal, { maxRetryAfterMs: settings.maxRetryAfterMs, backOff: true });
  const resolve = (href: string, base: HttpUrl): HttpUrl => checkPathDepth(resolveHttpUrl(href, base, settings.maxUrlLength), settings.maxPathSegments);
  const mayFollow = robotsRedirectRule(settings.scope, io.stderr);
  // The seed PANIC hears every robots.txt answer, to name the cause when one means "disallow all".
  const seedPanic = new SeedPanic(settings.seed, 1 + (settings.moreSeeds?.length ?? 0));
  const parts: TseParts = {
    settings,
    io,
    client,
    politeness,
    fetcher,
    policy: tsePolicy(settings, resolve),
    robotsFetch: settings.ignoreRobots ? undefined : seedPanic.watching(fetcher.robotsFetcher((h) => parseHttpUrl(h, settings.maxUrlLength), resolve, settings.maxRedirects, mayFollow)),
    extractor: new HtmlLinkExtractor(),
    log: new CrawlLog(io, settings.log),
    progress: new Progress(io, settings.progress),
    seedPanic,
    listeners,
    report,
    archive: archive?.archive,
    earlier,
  };
  return withArchive(archive, io, 'crawler', () => (settings.shared === undefined ? runTseCrawl(parts) : reportedWorker(parts, settings.shared)), () => client.close());
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
