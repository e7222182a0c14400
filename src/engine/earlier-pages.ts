/**
 * A refresh's view of an earlier crawl (crawler --since): which validators
 * a URL's request carries, the earlier copy of a page the server says has
 * not changed, and the earlier answer a 304 stands for when that answer was
 * not kept for what its head said (not HTML). What a crawl records for a
 * later refresh is here too. The page path asks it for every page request (and the
 * private crawl's window, which fetches ahead, for the same answer), so a
 * URL's request carries the same header fields whichever of them sends it.
 * A crawl without one sends no conditional request. The view itself
 * (EarlierPages) is in frontier/earlier-pages.ts, beside the store that
 * implements it.
 */
import type { FetchResponse } from '../http/client.js';
import { headerValue } from '../http/response-parser.js';
import type { EarlierPage, EarlierPages } from '../frontier/earlier-pages.js';
import type { SavedPage, UnkeptAnswer } from '../frontier/private-store.js';
import type { WantsBody } from '../http/response-parser.js';
import type { HttpUrl } from '../url/http-url.js';
import type { Refreshed } from './events.js';
import type { RequestHeaders } from './polite-fetch.js';

/** What the earlier crawl recorded of a URL: the page it saved, or else the answer it did not keep for what its head said. */
export function earlierAnswer(earlier: EarlierPages, key: string): EarlierPage | UnkeptAnswer | undefined {
  return earlier.page(key) ?? earlier.unkept?.(key);
}

/**
 * The conditional header fields for what the earlier crawl recorded of a
 * URL, a page it saved or an answer it did not keep (RFC 9110 §13.1):
 * If-None-Match from its ETag, If-Modified-Since from its Last-Modified.
 * Undefined when there is none or it had neither, so that the request is
 * a plain one.
 */
export function conditionalHeaders(page: Pick<SavedPage, 'etag' | 'lastModified'> | undefined): RequestHeaders | undefined {
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

/**
 * The answer a 304 stands for when it answered the validators of an
 * answer the earlier crawl did not keep (RFC 9111 §4.3.4, freshening a
 * stored response): that 200, of its Content-Type (a 304 does not carry
 * one, RFC 9110 §15.4.5), with the 304's validators where it sent any,
 * else the earlier ones; no body. It is judged as the earlier answer was.
 */
export function freshened<R extends FetchResponse>(response: R, before: UnkeptAnswer): R {
  const earlier: Array<[string, string]> = [];
  if (before.etag !== undefined) earlier.push(['ETag', before.etag]);
  if (before.lastModified !== undefined) earlier.push(['Last-Modified', before.lastModified]);
  // The first of a singleton field is the one read (headerValue): the earlier type first, the 304's validators before the earlier ones.
  return { ...response, status: 200, reason: '', headers: [['Content-Type', before.contentType], ...response.headers, ...earlier] };
}

/**
 * What a crawl state keeps of a final answer that is not kept, for a later
 * refresh: a 200 whose body the program had no use for by its head alone
 * (`wantsBody`), when it carried a validator and a Content-Type. Undefined
 * for any other answer, whose refresh request is a plain one.
 */
export function unkeptAnswer(key: string, response: FetchResponse, wantsBody: WantsBody | undefined): UnkeptAnswer | undefined {
  if (response.status !== 200 || wantsBody === undefined || wantsBody(response)) return undefined;
  const contentType = headerValue(response.headers, 'content-type');
  const { etag, lastModified } = validatorsOf(response);
  if (contentType === undefined || (etag === undefined && lastModified === undefined)) return undefined;
  return { key, etag, lastModified, contentType };
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
