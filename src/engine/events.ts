/**
 * The crawl's one event vocabulary: what happened to a page, in the order it
 * happened, told the same way by the private crawl and by a worker of a
 * shared one. Each output consumes these (the CS50 log, the JSON log, the
 * KeywordHunter protocol, the progress line), one formatter apiece, so two
 * modes cannot word the same thing two ways.
 */
import type { CrawlerError } from '../errors.js';
import type { StoredRobots } from '../frontier/claim-store.js';
import type { WireExchange } from '../http/wire-exchange.js';
import type { RobotsSource } from '../robots/rules.js';
import type { HttpUrl } from '../url/http-url.js';
import type { SitemapOutcome } from '../sitemap/sitemap-reader.js';

/**
 * How a page requisite ended (engine/requisites.ts): fetched, unchanged
 * since the earlier crawl a refresh asked about it (a 304, archived as a
 * revisit), failed, or left out by robots.txt, the scope or a page's cap.
 */
export type RequisiteOutcome = 'fetched' | 'unchanged' | 'failed' | 'robots' | 'outside' | 'capped';

export type CrawlEvent =
  /** A request's answer (any status), or its failure (`error`; status 0 unless the status line and headers had arrived). `notes`: header lines skipped. */
  | { type: 'response'; url: HttpUrl; depth: number; status: number; error?: CrawlerError | undefined; notes?: readonly string[] | undefined }
  /** A redirect's target was classified (`follow`: fetched next, or queued); `invalid` when the Location is no crawlable URL or one hop too many (`error`). */
  | { type: 'redirect'; from: HttpUrl; depth: number; target: HttpUrl | undefined; raw: string; action: LinkAction | 'invalid'; error?: CrawlerError | undefined }
  /** A page was saved under a document ID; in a refresh (`refresh`), with what it was to the earlier crawl. */
  | { type: 'saved'; url: HttpUrl; depth: number; id: number; refresh?: Refreshed | undefined }
  /** A page below the depth limit is scanned for links. */
  | { type: 'scanning'; url: HttpUrl; depth: number }
  /** A link of a scanned page; `url` undefined when it is not an http(s) URL (`error` says why). */
  | { type: 'link'; depth: number; raw: string; url: HttpUrl | undefined; action: LinkAction | 'invalid'; error?: CrawlerError | undefined }
  /** A URL that was not fetched or not saved, with the program's reason (and `error`, when a fetch failed: its cause, for a PANIC to name). */
  | { type: 'failed'; url: string; depth: number; reason: string; error?: CrawlerError | undefined }
  /** A URL robots.txt disallows, found so when it was taken (the seed, or a shared crawl's claim whose host's rules came from the store). */
  | { type: 'disallowed'; url: string; depth: number }
  /** A claim whose lease ran out before it was done: another worker has taken it over. */
  | { type: 'lost'; url: string; depth: number }
  /** A host's robots.txt was fetched (by this worker of a shared crawl). */
  | { type: 'robots-txt'; url: string; answer: StoredRobots }
  /** A request went out and ended (pages, robots.txt, each redirect hop): its bytes and timing, from the HTTP client's tap. */
  | { type: 'exchange'; exchange: WireExchange }
  /**
   * --page-requisites: a requisite of the kept page `page` was fetched or
   * failed, or was left out (robots.txt, outside the scope, or the page's
   * cap: told once per page, `url` then the page's).
   */
  | { type: 'requisite'; url: HttpUrl; page: HttpUrl; depth: number; outcome: RequisiteOutcome; status?: number; bytes?: number; sparedBytes?: number; reason?: string; error?: CrawlerError }
  /** A host's robots.txt rules were learnt: the group applied (see RobotsRules.group) and its Crawl-delay in seconds; for rules that are no file's, the answer's `status` (0: none arrived) when known. */
  | { type: 'robots'; origin: string; source: RobotsSource; group: string; rules: number; crawlDelay: number | undefined; status?: number | undefined }
  /** A host's pacing changed (Crawl-delay, back-off, a Retry-After pause, --delay-factor): `at` and `pausedUntil` are epoch ms. */
  | { type: 'host'; origin: string; at: number; intervalMs: number; pausedUntil: number | undefined; failures: number }
  /**
   * A sitemap file was read (--sitemaps): how it ended, the page URLs it
   * listed and how many of them were queued, and notes for people (limits,
   * failures). `url` undefined: a note about the sitemaps a robots.txt names.
   */
  | { type: 'sitemap'; url: HttpUrl | undefined; index: HttpUrl | undefined; status: number | undefined; outcome: SitemapOutcome; found: number; queued: number; dropped?: SitemapDropped | undefined; notes: readonly string[] }
  /** KeywordHunter found the keyword on a page: the line holding it, as sent (without its line end). */
  | { type: 'match'; url: HttpUrl; depth: number; line: Buffer };

/**
 * A page saved by a refresh (crawler --since), as against the earlier
 * crawl: not saved by it (`new`); saved by it and sent again in full
 * (`changed`: the server did not say it was unchanged); or answered 304 to
 * the conditional request (`unchanged`), its body then the earlier copy's,
 * whose size is what the server did not send again.
 */
export type Refreshed =
  | { state: 'new' }
  | { state: 'changed'; earlierId: number }
  | { state: 'unchanged'; earlierId: number; sparedBytes: number };

/** What became of a link (or a redirect target): see link-classifier.ts. */
export type LinkAction = 'follow' | 'duplicate' | 'robots' | 'external';

/** A consumer of crawl events. */
export type CrawlEventSink = (event: CrawlEvent) => void;

/** Epoch milliseconds now, on the clock wire exchanges are stamped with. */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A politeness observer (PacingObserver) that tells `sink` each change of a host's pacing as a `host` event. */
export function hostEvents(sink: CrawlEventSink): (origin: string, pacing: { intervalMs: number; pausedUntil: number | undefined; failures: number }) => void {
  return (origin, { intervalMs, pausedUntil, failures }) => {
    sink({ type: 'host', origin, at: epochNow(), intervalMs, pausedUntil, failures });
  };
}

/** A sitemap's URLs not queued, by cause: out of the crawl's scope, disallowed by robots.txt, already known (queued or seen before). */
export interface SitemapDropped {
  outside: number;
  disallowed: number;
  known: number;
}
