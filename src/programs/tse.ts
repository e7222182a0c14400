/**
 * The TinySearch Engine crawler's page policy, in one place for the private
 * crawl (`tse-crawl.ts`) and a worker of a shared one (`tse-worker.ts`):
 * what is in scope, what is saved, which answers are tried again, and how a
 * failure is worded. Pure functions; the runs build on them. What the crawl
 * is run with is tse-settings.ts; which robots.txt redirects it follows,
 * tse-robots-redirect.ts; when the seed makes it a PANIC, seed-panic.ts.
 */
import type { CrawlerError } from '../errors.js';
import type { PagePolicy } from '../engine/page-policy.js';
import type { FetchResponse } from '../http/client.js';
import { responseRetryAfter } from '../http/retry-after.js';
import { isPushback } from '../engine/pushback.js';
import type { FetchOutcome } from '../engine/redirects.js';
import { headerValue, type ResponseHead } from '../http/response-parser.js';
import type { HttpUrl } from '../url/http-url.js';
import { hasNonHtmlExtension, isHtmlContentType } from '../url/non-html.js';
import type { Scope } from '../url/scope.js';
import type { TseSettings } from './tse-settings.js';

/** A URL the crawl may request: inside the scope, and not a well-known non-HTML file. */
export function tseInScope(scope: Scope): (url: HttpUrl) => boolean {
  return (url) => scope(url) && !hasNonHtmlExtension(url.path);
}

/**
 * A 304 that no conditional request asked for (heritrix3 issue #229): the
 * server says "your copy is current" of a copy the crawl does not have, so
 * there is no page to save.
 */
export const UNASKED_304 = '(HTTP 304 Not Modified to a request without If-None-Match or If-Modified-Since: no earlier copy to keep)';

/**
 * Whether an answer's body can be of use to the crawler: not when its
 * Content-Type names something other than HTML (it is never saved, nor
 * scanned, whatever its status), so the HTTP client need not read it.
 */
export function tseWantsBody(head: ResponseHead): boolean {
  return isHtmlContentType(headerValue(head.headers, 'content-type'));
}

/** Why a final response is not saved, as the log prints it; undefined to save it (a 200 with an HTML or no Content-Type). Reads the head only. */
export function tseRejectReason(response: FetchResponse): string | undefined {
  if (response.status === 304) return UNASKED_304;
  if (response.status !== 200) return `(HTTP ${response.status})`;
  const type = headerValue(response.headers, 'content-type');
  return isHtmlContentType(type) ? undefined : `(not HTML: ${type})`;
}

/**
 * Whether a try is made again later in the crawl: the server pushed back
 * (429, 500, 502, 503, 504, a timeout or a reset) and the page has tries
 * left. A Retry-After beyond the cap is not waited for, so that page fails
 * now, with the server's value in its reason.
 */
export function tseRetry(retries: number, maxRetryAfterMs: number): (attempts: number, outcome: FetchOutcome) => boolean {
  return (attempts, outcome) => {
    if (attempts >= retries || !isPushback(outcome)) return false;
    const pause = outcome.response === undefined ? undefined : responseRetryAfter(outcome.response);
    return pause?.ms === undefined || pause.ms <= maxRetryAfterMs;
  };
}

/** Why a final response is not saved, with the server's Retry-After when it asked for a pause beyond the cap. */
export function tseFinalReason(response: FetchResponse, maxRetryAfterMs: number): string | undefined {
  const reason = tseRejectReason(response);
  const pause = reason === undefined ? undefined : responseRetryAfter(response);
  return pause?.ms !== undefined && pause.ms > maxRetryAfterMs ? `(HTTP ${response.status}, Retry-After: ${pause.value}, beyond --max-retry-after ${maxRetryAfterMs / 1000} s)` : reason;
}

/**
 * The crawler's page policy, for the private crawl and a shared worker
 * alike: links in scope and not well-known non-HTML files are followed; a
 * final answer is saved when it is a 200 with an HTML (or no) Content-Type,
 * or, in a refresh, a 304 to the conditional request for a page the earlier
 * crawl saved (the page is unchanged: it was saved then, and its earlier
 * copy is saved now); any other answer fails with its reason; push-backs
 * are tried again (--retries). The body of an answer that is not HTML is
 * not read past a short one (tseWantsBody).
 */
export function tsePolicy(settings: Pick<TseSettings, 'scope' | 'maxRetryAfterMs' | 'retries'>, resolve: (href: string, base: HttpUrl) => HttpUrl): PagePolicy {
  const { maxRetryAfterMs } = settings;
  return {
    resolveLink: resolve,
    inScope: tseInScope(settings.scope),
    verdict: ({ response, unchanged }) => {
      if (unchanged !== undefined) return { keep: true, scan: true };
      const reason = tseFinalReason(response, maxRetryAfterMs);
      return reason === undefined ? { keep: true, scan: true } : { keep: false, reason };
    },
    // A body that is not HTML is left unread where it is long: the verdict reads only the head.
    wantsBody: tseWantsBody,
    retry: tseRetry(settings.retries, maxRetryAfterMs),
    failureReason,
  };
}

/** The reason a `Failed` line gives for a URL that could not be fetched or saved. */
export function failureReason(error: CrawlerError): string {
  return `(${error.message})`;
}
