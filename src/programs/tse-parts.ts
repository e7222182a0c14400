/**
 * What a TinySearch Engine run is built from: the settings, the run parts
 * every program shares (run-parts.ts) and the crawler's own, which both
 * kinds of run share (tse-run.ts builds them; the private crawl,
 * tse-crawl.ts, and a shared worker, tse-worker.ts, run on them).
 */
import type { PagePolicy } from '../engine/page-policy.js';
import type { HtmlLinkExtractor } from '../extract/html.js';
import type { RefreshSource } from '../frontier/refresh-source.js';
import type { CrawlLog } from '../output/cs50-log.js';
import type { CliIo } from '../program-io.js';
import type { ReportRecorder } from '../report/report-recorder.js';
import type { RobotsFetcher } from '../robots/policy.js';
import type { RunParts } from './run-parts.js';
import type { SeedPanic } from './seed-panic.js';
import type { TseSettings } from './tse-settings.js';

/** The run parts the crawl and a worker use: the listeners, the archive, politeness, the fetcher, the progress line. */
export interface TseParts extends Pick<RunParts, 'listeners' | 'archive' | 'politeness' | 'fetcher' | 'progress'> {
  settings: TseSettings;
  io: CliIo;
  /** The crawler's page policy (scope, what is saved, retries, reasons). */
  policy: PagePolicy;
  /** undefined with --ignore-robots. */
  robotsFetch: RobotsFetcher | undefined;
  extractor: HtmlLinkExtractor;
  log: CrawlLog;
  seedPanic: SeedPanic;
  /** --report: the crawl report (also one of the listeners). */
  report: ReportRecorder | undefined;
  /** A refresh (--since): the earlier crawl, read only. */
  earlier: RefreshSource | undefined;
}
