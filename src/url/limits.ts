/**
 * Bounds against crawler traps (`/a/a/a/...` without end): a link whose path
 * has more segments than the cap is skipped, like one over the length cap.
 * `--max-pages` bounds the rest (`?page=N` without end).
 */
import { CrawlerError } from '../errors.js';
import type { HttpUrl } from './http-url.js';

/** Default cap on path segments (`--max-path-depth`). */
export const DEFAULT_MAX_PATH_SEGMENTS = 32;

/** Throws ERR_URL_TOO_LONG when the path of `url` has more than `max` segments. */
export function checkPathDepth(url: HttpUrl, max: number): HttpUrl {
  let segments = 0;
  for (let i = url.path.indexOf('/'); i !== -1; i = url.path.indexOf('/', i + 1)) {
    if (++segments > max) throw new CrawlerError('ERR_URL_TOO_LONG', `path deeper than ${max} segments (crawler trap?): ${url.href.slice(0, 120)}`, { url: url.href });
  }
  return url;
}
