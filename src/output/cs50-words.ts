/**
 * The TSE crawler's words in its log (cs50-log.ts prints them, in the CS50
 * column or as JSON's `event`), beyond the reference's Fetched, Scanning,
 * Found and Failed: what became of a link, a refresh's unchanged page, and
 * why a redirect is not followed. Written once, for the private crawl and a
 * shared worker alike.
 */
import type { CrawlerError } from '../errors.js';
import type { LinkAction } from '../engine/events.js';
import type { HttpUrl } from '../url/http-url.js';
import { hasNonHtmlExtension } from '../url/non-html.js';
import type { ScopeReason } from '../url/scope.js';

/** The CS50 log's word for what became of a link. */
export const LINK_WORDS: Readonly<Record<LinkAction, string>> = {
  follow: 'Added',
  duplicate: 'IgnDupl',
  robots: 'IgnRobots',
  external: 'IgnExtrn',
};

/**
 * The log's word for a page a refresh found unchanged (a 304 to its
 * conditional request): a line of its own right after the page's `Fetched`
 * line, which every saved page keeps (nine letters: the CS50 column).
 */
export const UNCHANGED_WORD = 'Unchanged';

/** Why a redirect is not followed, in words (a `Failed` line's reason). */
export function redirectRefusal(action: LinkAction | 'invalid', error?: CrawlerError): string {
  if (error !== undefined) return error.message;
  return action === 'duplicate' ? 'already seen' : action === 'robots' ? 'disallowed by robots.txt' : action === 'invalid' ? 'not a crawlable URL' : 'outside the crawl';
}

/**
 * Why a link is left out, for --json's `reason` (the CS50 word says only
 * IgnExtrn, IgnRobots or IgnDupl): `external`, `excluded`, `too long`,
 * `non-HTML extension`, `robots.txt`, `already seen`, `not a crawlable
 * URL`; undefined for a link followed. `outside` is the scope's reason
 * (CrawlScope.leftOut), when the program knows it.
 */
export function linkLeftOut(action: LinkAction | 'invalid', url: HttpUrl | undefined, error?: CrawlerError, outside?: (url: HttpUrl) => ScopeReason | undefined): string | undefined {
  switch (action) {
    case 'follow':
      return undefined;
    case 'duplicate':
      return 'already seen';
    case 'robots':
      return 'robots.txt';
    case 'invalid':
      return error?.code === 'ERR_URL_TOO_LONG' ? 'too long' : 'not a crawlable URL';
    case 'external': {
      if (url === undefined) return 'external';
      return outside?.(url) ?? (hasNonHtmlExtension(url.path) ? 'non-HTML extension' : 'external');
    }
  }
}
