/**
 * What a TinySearch Engine run is built from: the settings and the parts
 * both kinds of run share (tse-run.ts builds them; the private crawl,
 * tse-crawl.ts, and a shared worker, tse-worker.ts, run on them).
 */
import type { CrawlArchive } from '../archive/crawl-archive.js';
import type { CrawlEventSink } from '../engine/events.js';
import type { PagePolicy } from '../engine/page-policy.js';
import type { PoliteFetcher } from '../engine/polite-fetch.js';
import type { HtmlLinkExtractor } from '../extract/html.js';
import type { Politeness } from '../frontier/politeness.js';
import type { RefreshSource } from '../frontier/refresh-source.js';
import type { HttpClient } from '../http/client.js';
import type { CrawlLog } from '../output/cs50-log.js';
import type { Progress } from '../output/progress.js';
import type { CliIo } from '../program-io.js';
import type { ReportRecorder } from '../report/report-recorder.js';
import type { RobotsFetcher } from '../robots/policy.js';
import type { SeedPanic } from './seed-panic.js';
import type { TseSettings } from './tse-settings.js';

export interface TseParts {
  settings: TseSettings;
  io: CliIo;
  client: HttpClient;
  politeness: Politeness;
  fetcher: PoliteFetcher;
  /** The crawler's page policy (scope, what is saved, retries, reasons). */
  policy: PagePolicy;
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
  /** A refresh (--since): the earlier crawl, read only. */
  earlier: RefreshSource | undefined;
}
