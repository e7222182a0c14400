/**
 * The caps that bound what reading sitemaps may cost: the sitemaps.org
 * protocol's own per-file limits, and ours on how many files one crawl reads.
 */
import { CrawlerError } from '../errors.js';

/** sitemaps.org: "no more than 50,000 URLs" per sitemap (and sitemaps per index file). */
export const SITEMAP_MAX_URLS = 50_000;
/** sitemaps.org: "no larger than 50MB (52,428,800 bytes)", uncompressed, per file. */
export const SITEMAP_MAX_BYTES = 52_428_800;
/**
 * Sitemap files one crawl requests at most, indexes and their children
 * together. An index may name 50,000 sitemaps; at one request a second that
 * is half a day of requests before a page, so we stop well short of it.
 */
export const DEFAULT_MAX_SITEMAP_FILES = 1_000;

/** What a SitemapReader may read. */
export interface SitemapLimits {
  /** `<loc>` entries taken from one file; the rest of the file is skipped with a note. Default 50,000. */
  maxUrlsPerFile: number;
  /** Uncompressed bytes read of one file; the rest is skipped with a note. Default 52,428,800. */
  maxBytesPerFile: number;
  /** Sitemap files requested in one read, indexes included; the rest are not requested, with a note. Default 1,000. */
  maxFiles: number;
}

/** The protocol's limits and ours. */
export const DEFAULT_SITEMAP_LIMITS: Readonly<SitemapLimits> = Object.freeze({
  maxUrlsPerFile: SITEMAP_MAX_URLS,
  maxBytesPerFile: SITEMAP_MAX_BYTES,
  maxFiles: DEFAULT_MAX_SITEMAP_FILES,
});

/**
 * `limits` over the defaults, each checked to be a positive integer.
 * Throws ERR_INVALID_OPTION naming the bad one.
 */
export function sitemapLimits(limits: Partial<SitemapLimits> = {}): SitemapLimits {
  const merged = { ...DEFAULT_SITEMAP_LIMITS, ...limits };
  for (const [name, value] of Object.entries(merged)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new CrawlerError('ERR_INVALID_OPTION', `sitemaps: ${name} must be a positive integer, got ${String(value)}`);
    }
  }
  return merged;
}
