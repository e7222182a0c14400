/**
 * What a TinySearch Engine crawl is run with: its settings, as the command
 * line (src/cli/crawler.ts) checks and builds them, and their defaults.
 */
import type { LogMode } from '../output/cs50-log.js';
import type { RequisiteSettings } from '../engine/requisites.js';
import type { HttpUrl } from '../url/http-url.js';
import type { Scope, ScopeReason } from '../url/scope.js';
import type { RunSettings } from './run-settings.js';

export const CRAWLER_USER_AGENT = 'polite-crawler/0.1 (TinySearch Engine crawler)';
export const DEFAULT_DEPTH_LIMIT = 10;

/** Everything a TSE crawl is run with, checked by the command line (what every run shares: RunSettings). */
export interface TseSettings extends RunSettings {
  seed: HttpUrl;
  /** The seeds after `seed` (--seeds), each identity key once, in order: all at depth 0. */
  moreSeeds?: readonly HttpUrl[] | undefined;
  pageDir: string;
  maxDepth: number;
  scope: Scope;
  /** Why a URL is outside the scope (CrawlScope.leftOut), for --json's reasons; absent: every URL out of scope is 'external'. */
  leftOut?: ((url: HttpUrl) => ScopeReason | undefined) | undefined;
  /** The scope as text (CrawlScope.key): what the workers of a shared crawl must agree on ('' or absent: the seeds' origins). */
  scopeKey?: string | undefined;
  userAgent: string;
  ignoreRobots: boolean;
  maxPages: number | undefined;
  /** Tries after the first for a page the server pushed back on (--retries). */
  retries: number;
  log: LogMode;
  resume: boolean;
  overwrite: boolean;
  /** Set for a worker of a shared crawl (`--frontier`). */
  shared: { spec: string; leaseMs: number; strictBfs: boolean; /** --frontier-wait: how long the database may be unreachable, ms. */ waitMs: number } | undefined;
  /** A refresh (`--since OLD_DIR`): the page directory of the earlier crawl, as given. */
  since?: string | undefined;
  /** When a private crawl's page files get a thread of their own (--write-thread; default auto). */
  writeThread?: WriteThread;
  /** --sitemaps: the seed host's sitemaps add links at depth 1. */
  sitemaps?: boolean;
  /** --page-requisites: each saved page's requisites fetched for the archive. */
  requisites?: RequisiteSettings | undefined;
  /** The program's name and arguments as given (the archive's warcinfo and the report name them). */
  commandLine?: readonly string[];
}

/** --write-thread: on a slow disk (auto), from the 51st page (on), or never (off). */
export const WRITE_THREAD_WHEN = ['auto', 'on', 'off'] as const;
export type WriteThread = (typeof WRITE_THREAD_WHEN)[number];
