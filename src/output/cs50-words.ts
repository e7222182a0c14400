/**
 * The TSE crawler's words in its log (cs50-log.ts prints them, in the CS50
 * column or as JSON's `event`), beyond the reference's Fetched, Scanning,
 * Found and Failed: what became of a link, a refresh's unchanged page, and
 * why a redirect is not followed. Written once, for the private crawl and a
 * shared worker alike.
 */
import type { CrawlerError } from '../errors.js';
import type { LinkAction } from '../engine/events.js';

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
