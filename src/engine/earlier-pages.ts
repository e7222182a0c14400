/**
 * A refresh's view of an earlier crawl (crawler --since): which validators
 * a URL's request carries, and the earlier copy of a page the server says
 * has not changed. The page path asks it for every page request (and the
 * private crawl's window, which fetches ahead, for the same answer), so a
 * URL's request carries the same header fields whichever of them sends it.
 * A crawl without one sends no conditional request. The view itself
 * (EarlierPages) is in frontier/earlier-pages.ts, beside the store that
 * implements it.
 */
import type { FetchResponse } from '../http/client.js';
import { headerValue } from '../http/response-parser.js';
import type { EarlierPage } from '../frontier/earlier-pages.js';
import type { SavedPage } from '../frontier/private-store.js';
import type { HttpUrl } from '../url/http-url.js';
import type { Refreshed } from './events.js';
import type { RequestHeaders } from './polite-fetch.js';

/**
 * The conditional header fields for a page the earlier crawl saved
 * (RFC 9110 §13.1): If-None-Match from its ETag, If-Modified-Since from its
 * Last-Modified. Undefined when there is no such page or it had neither, so
 * that the request is a plain one.
 */
export function conditionalHeaders(page: EarlierPage | undefined): RequestHeaders | undefined {
  if (page === undefined || (page.etag === undefined && page.lastModified === undefined)) return undefined;
  const out: Array<[string, string]> = [];
  if (page.etag !== undefined) out.push(['If-None-Match', page.etag]);
  if (page.lastModified !== undefined) out.push(['If-Modified-Since', page.lastModified]);
  return out;
}

/** A response's validators (ETag, Last-Modified), as sent. */
export function validatorsOf(response: FetchResponse): Pick<SavedPage, 'etag' | 'lastModified'> {
  return { etag: headerValue(response.headers, 'etag'), lastModified: headerValue(response.headers, 'last-modified') };
}

/** What a saved page was to the earlier crawl: `earlier` its page there (if any), `unchanged` when the answer was a 304 to it. */
export function refreshed(earlier: EarlierPage | undefined, unchanged: EarlierPage | undefined, body: Buffer): Refreshed {
  if (earlier === undefined) return { state: 'new' };
  // What the server did not send again: the earlier answer's body as it travelled (compressed, with --compressed).
  return unchanged === undefined ? { state: 'changed', earlierId: earlier.id } : { state: 'unchanged', earlierId: earlier.id, sparedBytes: unchanged.wireBytes ?? body.length };
}

/**
 * What the crawl state keeps of a saved page for a later refresh: the
 * answer's validators; for an unchanged page each the 304 sent (RFC 9110
 * §15.4.5: those a 200 would have carried), else the earlier one, and the
 * earlier capture, which holds the payload. In a refresh, also what the page
 * was to the earlier crawl (`refresh`).
 */
export function savedPage(url: HttpUrl, response: FetchResponse, unchanged: EarlierPage | undefined, refresh: Refreshed | undefined): SavedPage {
  const { etag, lastModified } = validatorsOf(response);
  const was =
    refresh === undefined || refresh.state === 'new'
      ? {}
      : { earlierId: refresh.earlierId, ...(refresh.state === 'unchanged' ? { sparedBytes: refresh.sparedBytes } : {}) };
  if (unchanged === undefined) return { key: url.key, etag, lastModified, capture: undefined, wireBytes: response.wireBodyBytes ?? response.body.length, ...was };
  return { key: url.key, etag: etag ?? unchanged.etag, lastModified: lastModified ?? unchanged.lastModified, capture: unchanged.capture, ...(unchanged.wireBytes === undefined ? {} : { wireBytes: unchanged.wireBytes }), ...was };
}
