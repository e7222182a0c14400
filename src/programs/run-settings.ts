/**
 * What every program's run is built with besides its own settings: pacing,
 * the limits on URLs, redirects and pauses, the HTTP client and its
 * connections, the progress line and the crawl archive. TseSettings and
 * KeywordHunterSettings extend it; run-parts.ts builds a run's parts from
 * it.
 */
import type { HttpClientOptions } from '../http/client.js';
import type { ArchiveSettings } from './archive-run.js';

export interface RunSettings {
  delayMs: number;
  /** --delay-factor (0: off). */
  delayFactor: number;
  maxUrlLength: number;
  maxRedirects: number;
  /** The longest Retry-After pause granted (--max-retry-after). */
  maxRetryAfterMs: number;
  maxPathSegments: number;
  client: Partial<HttpClientOptions> & { userAgent: string };
  concurrency: number;
  connectionsPerHost: number;
  /** Draw the progress line (stderr is a terminal and stdout is not, or, for the crawler, its log is off). */
  progress: boolean;
  /** The crawl archive (`--warc`), if asked for. */
  archive?: ArchiveSettings | undefined;
}
