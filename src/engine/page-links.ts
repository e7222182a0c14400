/**
 * The links of one page, resolved: what the crawl loop and the shared-crawl
 * worker both do with an extractor's findings before they classify them.
 */
import { isCrawlerError, type CrawlerError } from '../errors.js';
import type { ExtractedLinks } from '../extract/types.js';
import type { HttpUrl } from '../url/http-url.js';

/** A link as found, with its URL, or the reason it is not a crawlable URL. */
export type PageLink = { raw: string; url: HttpUrl; error?: undefined } | { raw: string; url?: undefined; error: CrawlerError };

/**
 * The page's links in document order, resolved against its base: the page's
 * `<base href>` when that resolves, else the page's own URL (an unusable
 * base is ignored, as browsers do). `resolve` throws CrawlerError for a link
 * that is not a crawlable URL; any other error is a bug and propagates.
 */
export function* pageLinks(found: ExtractedLinks, page: HttpUrl, resolve: (href: string, base: HttpUrl) => HttpUrl): Generator<PageLink> {
  let base = page;
  if (found.base !== undefined) {
    try {
      base = resolve(found.base, page);
    } catch (err) {
      if (!isCrawlerError(err)) throw err;
    }
  }
  for (const raw of found.hrefs) {
    let url: HttpUrl;
    try {
      url = resolve(raw, base);
    } catch (err) {
      if (!isCrawlerError(err)) throw err;
      yield { raw, error: err };
      continue;
    }
    yield { raw, url };
  }
}
