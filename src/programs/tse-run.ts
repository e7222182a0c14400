/**
 * Runs a TinySearch Engine crawl from checked settings: builds what both
 * kinds of run share (the HTTP client, politeness, the polite fetcher, the
 * robots.txt fetcher with its redirect rule, the log and the progress line)
 * and hands them to the private crawl or to a worker of a shared one.
 * Resolves with the exit status; rejects with a CrawlerError (a PANIC, an
 * unusable directory or store).
 */
import { exchangeEvents } from '../engine/event-fanout.js';
import type { CrawlEventSink } from '../engine/events.js';
import { PoliteFetcher } from '../engine/polite-fetch.js';
import { HtmlLinkExtractor } from '../extract/html.js';
import { Politeness } from '../frontier/politeness.js';
import { HttpClient } from '../http/client.js';
import { CrawlLog } from '../output/cs50-log.js';
import { Progress } from '../output/progress.js';
import { reportRecorder, stopWords, type ReportRecorder } from '../report/report-recorder.js';
import { EXIT_INTERRUPTED, type CliIo } from '../cli/run-cli.js';
import type { ReportSettings } from '../report/run-info.js';
import type { RobotsFetcher } from '../robots/policy.js';
import { checkPageDirectory } from '../sink/tse-pagedir.js';
import { parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../url/http-url.js';
import { checkPathDepth } from '../url/limits.js';
import { robotsRedirectRule, SeedPanic, tseInScope, type TseSettings } from './tse.js';
import { runTseCrawl } from './tse-crawl.js';
import { runTseWorker } from './tse-worker.js';
import type { CrawlArchive } from '../archive/crawl-archive.js';
import { startArchive, withArchive } from './archive-run.js';

/** What a TSE run is built from: the settings and the parts both kinds of run share. */
export interface TseParts {
  settings: TseSettings;
  io: CliIo;
  client: HttpClient;
  politeness: Politeness;
  fetcher: PoliteFetcher;
  /** Resolves a link (or a queued URL) against a base, with the URL length and path depth caps. */
  resolve: (href: string, base: HttpUrl) => HttpUrl;
  inScope: (url: HttpUrl) => boolean;
  /** undefined with --ignore-robots. */
  robotsFetch: RobotsFetcher | undefined;
  extractor: HtmlLinkExtractor;
  log: CrawlLog;
  progress: Progress;
  seedPanic: SeedPanic;
  /** Consumers of every event of the run besides the log, wire exchanges included (the crawl archive, the report). */
  listeners: readonly CrawlEventSink[];
  /** --report: the crawl report (also one of the listeners). */
  report: ReportRecorder | undefined;
  /** The crawl archive (--warc), whose records of a page are written before the page is durably done. */
  archive: CrawlArchive | undefined;
}

/** Runs the crawl the settings describe; resolves with the exit status. */
export async function runTse(settings: TseSettings, io: CliIo, reportSettings?: ReportSettings): Promise<number> {
  const report = reportRecorder(reportSettings, { program: 'crawler', delayMs: settings.delayMs, pageDir: settings.pageDir });
  await checkPageDirectory(settings.pageDir, { overwrite: settings.overwrite });
  const listeners: CrawlEventSink[] = report === undefined ? [] : [report.consume];
  const archive = await startArchive(settings.archive, { robots: settings.ignoreRobots ? 'ignore' : 'obey', userAgent: settings.userAgent, resume: settings.resume, shared: settings.shared !== undefined }, listeners);
  const client = new HttpClient({ ...settings.client, onExchange: exchangeEvents(listeners) });
  const politeness = new Politeness({ delayMs: settings.delayMs, delayFactor: settings.delayFactor, observer: report?.pacingObserver });
  const fetcher = new PoliteFetcher(client, politeness, io.signal, { maxRetryAfterMs: settings.maxRetryAfterMs, backOff: true });
  const resolve = (href: string, base: HttpUrl): HttpUrl => checkPathDepth(resolveHttpUrl(href, base, settings.maxUrlLength), settings.maxPathSegments);
  const mayFollow = robotsRedirectRule(settings.scope, settings.shared !== undefined, io.stderr);
  // The seed PANIC hears every robots.txt answer, to name the cause when one means "disallow all".
  const seedPanic = new SeedPanic(settings.seed);
  const parts: TseParts = {
    settings,
    io,
    client,
    politeness,
    fetcher,
    resolve,
    inScope: tseInScope(settings.scope),
    robotsFetch: settings.ignoreRobots ? undefined : seedPanic.watching(fetcher.robotsFetcher((h) => parseHttpUrl(h, settings.maxUrlLength), resolve, settings.maxRedirects, mayFollow)),
    extractor: new HtmlLinkExtractor(),
    log: new CrawlLog(io, settings.log),
    progress: new Progress(io, settings.progress),
    seedPanic,
    listeners,
    report,
    archive: archive?.archive,
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
