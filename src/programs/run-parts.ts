/**
 * What every program's run is built from, written once for the crawler
 * (tse-run.ts) and KeywordHunter (keyword-hunter.ts): the listeners of
 * every event besides the program's own output (the report, the crawl
 * archive), the HTTP client that tells them each wire exchange,
 * politeness, the polite fetcher, the program's link resolution within the
 * URL limits, its robots.txt fetcher and the progress line; and the end of
 * the run, the connections closed before the archive is finished.
 */
import type { CrawlArchive } from '../archive/crawl-archive.js';
import { exchangeEvents } from '../engine/event-fanout.js';
import type { CrawlEventSink } from '../engine/events.js';
import { PoliteFetcher } from '../engine/polite-fetch.js';
import { Politeness } from '../frontier/politeness.js';
import { HttpClient } from '../http/client.js';
import { Progress } from '../output/progress.js';
import type { CliIo } from '../program-io.js';
import type { ReportRecorder } from '../report/report-recorder.js';
import type { RobotsFetcher } from '../robots/policy.js';
import { parseHttpUrl, type HttpUrl } from '../url/http-url.js';
import { checkPathDepth } from '../url/limits.js';
import { startArchive, withArchive, type ArchiveRun } from './archive-run.js';
import type { RunSettings } from './run-settings.js';

/** What differs between the programs in how their parts are built. */
export interface RunPartsOptions {
  /** The program's name, as its stderr lines begin. */
  program: string;
  /** --report: hears every event of the run and its pacing. */
  report: ReportRecorder | undefined;
  /** How the run goes, as far as the archive needs to know. */
  archiveRun: ArchiveRun;
  /** The program's link resolution (RFC 3986, or KeywordHunter's with /index.html); --max-path-segments is checked after it. */
  resolveLink: (href: string, base: HttpUrl, maxLength: number) => HttpUrl;
  /** Back off a host that pushes back (the crawler). Default false. */
  backOff?: boolean;
}

export interface RunParts {
  /** Consumers of every event of the run besides the program's output, wire exchanges included (the crawl archive, the report). */
  listeners: readonly CrawlEventSink[];
  /** The crawl archive (--warc), whose records of a page are written before the page is durably done. */
  archive: CrawlArchive | undefined;
  client: HttpClient;
  politeness: Politeness;
  fetcher: PoliteFetcher;
  /** A link resolved the program's way, within --max-url-length and --max-path-segments. */
  resolve: (href: string, base: HttpUrl) => HttpUrl;
  progress: Progress;
  /** A robots.txt fetcher: in its host's turn, following up to --max-redirects redirects while `mayFollow` says so (default: each). */
  robotsFetcher(mayFollow?: (next: HttpUrl, from: HttpUrl) => boolean): RobotsFetcher;
  /** Runs `crawl`, then closes the connections and finishes the archive (whose records the last exchanges still reach); the first failure is the one reported. */
  run(crawl: () => Promise<number>): Promise<number>;
}

/** Opens the run's archive (none without --warc) and builds the parts around it; rejects with ERR_WRITE for an archive that is not ours. */
export async function buildRunParts(settings: RunSettings, io: CliIo, o: RunPartsOptions): Promise<RunParts> {
  const { maxUrlLength, maxPathSegments, maxRedirects } = settings;
  const listeners: CrawlEventSink[] = o.report === undefined ? [] : [o.report.consume];
  const archive = await startArchive(settings.archive, o.archiveRun, listeners);
  const client = new HttpClient({ ...settings.client, onExchange: exchangeEvents(listeners) });
  const politeness = new Politeness({ delayMs: settings.delayMs, delayFactor: settings.delayFactor, observer: o.report?.pacingObserver });
  const fetcher = new PoliteFetcher(client, politeness, io.signal, { maxRetryAfterMs: settings.maxRetryAfterMs, backOff: o.backOff ?? false, connectionsPerHost: settings.connectionsPerHost });
  const resolve = (href: string, base: HttpUrl): HttpUrl => checkPathDepth(o.resolveLink(href, base, maxUrlLength), maxPathSegments);
  return {
    listeners,
    archive: archive?.archive,
    client,
    politeness,
    fetcher,
    resolve,
    progress: new Progress(io, settings.progress),
    robotsFetcher: (mayFollow) => fetcher.robotsFetcher((h) => parseHttpUrl(h, maxUrlLength), resolve, maxRedirects, mayFollow),
    run: (crawl) => withArchive(archive, io, o.program, crawl, () => client.close()),
  };
}
