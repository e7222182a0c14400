/**
 * What a TinySearch Engine crawl is run with: its settings, as the command
 * line (src/cli/crawler.ts) checks and builds them, and their defaults.
 */
import type { HttpClientOptions } from '../http/client.js';
import type { LogMode } from '../output/cs50-log.js';
import type { HttpUrl } from '../url/http-url.js';
import type { Scope } from '../url/scope.js';
import type { ArchiveSettings } from './archive-run.js';

export const CRAWLER_USER_AGENT = 'polite-crawler/0.1 (TinySearch Engine crawler)';
export const DEFAULT_DEPTH_LIMIT = 10;

/** Everything a TSE crawl is run with, checked by the command line. */
export interface TseSettings {
  seed: HttpUrl;
  /** The seeds after `seed` (--seeds), each identity key once, in order: all at depth 0. */
  moreSeeds?: readonly HttpUrl[] | undefined;
  pageDir: string;
  maxDepth: number;
  scope: Scope;
  /** The scope as text (CrawlScope.key): what the workers of a shared crawl must agree on ('' or absent: the seeds' origins). */
  scopeKey?: string | undefined;
  delayMs: number;
  /** --delay-factor (0: off). */
  delayFactor: number;
  userAgent: string;
  ignoreRobots: boolean;
  maxPages: number | undefined;
  maxUrlLength: number;
  maxRedirects: number;
  /** The longest Retry-After pause granted (--max-retry-after). */
  maxRetryAfterMs: number;
  /** Tries after the first for a page the server pushed back on (--retries). */
  retries: number;
  maxPathSegments: number;
  client: Partial<HttpClientOptions> & { userAgent: string };
  concurrency: number;
  connectionsPerHost: number;
  log: LogMode;
  /** Draw the progress line (stderr is a terminal and stdout is not, or the log is off). */
  progress: boolean;
  resume: boolean;
  overwrite: boolean;
  /** Set for a worker of a shared crawl (`--frontier`). */
  shared: { spec: string; leaseMs: number; strictBfs: boolean; /** --frontier-wait: how long the database may be unreachable, ms. */ waitMs: number } | undefined;
  /** The crawl archive (`--warc`), if asked for. */
  archive?: ArchiveSettings | undefined;
  /** A refresh (`--since OLD_DIR`): the page directory of the earlier crawl, as given. */
  since?: string | undefined;
  /** When a private crawl's page files get a thread of their own (--write-thread; default auto). */
  writeThread?: WriteThread;
  /** --sitemaps: the seed host's sitemaps add links at depth 1. */
  sitemaps?: boolean;
}

/** --write-thread: on a slow disk (auto), from the 51st page (on), or never (off). */
export const WRITE_THREAD_WHEN = ['auto', 'on', 'off'] as const;
export type WriteThread = (typeof WRITE_THREAD_WHEN)[number];
