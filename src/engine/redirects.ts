/**
 * The one redirect handler, for pages and robots.txt alike (as undici's
 * RedirectHandler wraps any dispatch): a response's Location is resolved
 * like a link of the page that redirected, each hop is a request of its own
 * (polite, in the host's turn), and a chain ends after `maxRedirects` hops.
 * What is done with a target is the caller's policy: followed in the same
 * step (a private crawl, KeywordHunter, robots.txt) or queued at the same
 * depth (a worker of a shared crawl, which holds one host's turn at a time).
 */
import { CrawlerError, isCrawlerError } from '../errors.js';
import type { FetchResponse } from '../http/client.js';
import { headerValue } from '../http/response-parser.js';
import type { HttpUrl } from '../url/http-url.js';

/** Statuses whose Location is followed (RFC 9110 §15.4). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** The Location of a redirect response, or undefined when it is not one. */
export function redirectLocation(res: FetchResponse): string | undefined {
  return REDIRECT_STATUSES.has(res.status) ? headerValue(res.headers, 'location') : undefined;
}

/** Where a response sends the request next. */
export type RedirectStep =
  /** Not a redirect: the response is the answer. */
  | { kind: 'final' }
  /** A Location that is not a crawlable URL (`error` says why). */
  | { kind: 'invalid'; raw: string; error: CrawlerError }
  /** A target one hop past the limit. */
  | { kind: 'limit'; raw: string; target: HttpUrl; error: CrawlerError }
  /** A target that may be followed. */
  | { kind: 'target'; raw: string; target: HttpUrl };

/** The step after `response`, the answer of hop `hop` (0 for the first request) for `from`. */
export function redirectStep(
  response: FetchResponse,
  from: HttpUrl,
  hop: number,
  maxRedirects: number,
  resolve: (href: string, base: HttpUrl) => HttpUrl,
): RedirectStep {
  const raw = redirectLocation(response);
  if (raw === undefined) return { kind: 'final' };
  let target: HttpUrl;
  try {
    target = resolve(raw, from);
  } catch (err) {
    if (!isCrawlerError(err)) throw err;
    return { kind: 'invalid', raw, error: err };
  }
  if (hop + 1 > maxRedirects) {
    return { kind: 'limit', raw, target, error: new CrawlerError('ERR_REDIRECT_LIMIT', `more than ${maxRedirects} redirects`, { url: from.href }) };
  }
  return { kind: 'target', raw, target };
}

/** A response, or why there is none. */
export type FetchOutcome = { response: FetchResponse; error?: undefined } | { response?: undefined; error: CrawlerError };

export interface FollowOptions {
  /** The outcome of hop `hop` for `url` (the chain's first request is hop `firstHop`; it may be an answer fetched ahead). */
  fetch: (url: HttpUrl, hop: number) => Promise<FetchOutcome>;
  maxRedirects: number;
  /** Hops already taken before `first` (a queued redirect target carries its chain's): the limit counts them. Default 0. */
  firstHop?: number;
  resolve: (href: string, base: HttpUrl) => HttpUrl;
  /** Each response or failure, in order. */
  onOutcome?: (url: HttpUrl, outcome: FetchOutcome) => void;
  /** The policy: true to follow a step's target now; every step but `final` is shown to it, with the hop of the answer that redirected. */
  follow: (step: Exclude<RedirectStep, { kind: 'final' }>, from: HttpUrl, hop: number) => Promise<boolean> | boolean;
}

/** How a chain ended: the last URL asked, its outcome, and the step its response called for (`final` when followed to the end). */
export interface ChainEnd {
  url: HttpUrl;
  outcome: FetchOutcome;
  step: RedirectStep | undefined;
}

/** Fetches `first`, following redirects while the policy says so. */
export async function followRedirects(first: HttpUrl, o: FollowOptions): Promise<ChainEnd> {
  let url = first;
  for (let hop = o.firstHop ?? 0; ; hop++) {
    const outcome = await o.fetch(url, hop);
    o.onOutcome?.(url, outcome);
    if (outcome.response === undefined) return { url, outcome, step: undefined };
    const step = redirectStep(outcome.response, url, hop, o.maxRedirects, o.resolve);
    if (step.kind === 'final' || !(await o.follow(step, url, hop)) || step.kind !== 'target') return { url, outcome, step };
    url = step.target;
  }
}
