/**
 * The seam between scheduling and the page (style.md, "The seam is the
 * visit"): a scheduler hands out turns, the page path visits each, and the
 * scheduler completes or releases it. A private crawl's ordered window
 * (window-turns.ts) and a shared worker's claim lanes (claim-turns.ts) are
 * the two implementations; the loop around a visit (loop.ts) is written once
 * over this interface, as crawlee's BasicCrawler runs over a RequestProvider
 * (fetchNext, markHandled, reclaim).
 */
import type { CrawlerError } from '../errors.js';
import type { ClaimEntry } from '../frontier/claim-store.js';
import type { FrontierEntry } from '../frontier/private-store.js';
import type { EarlyStagedPage } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import type { FetchOutcome } from './redirects.js';
import type { Completed, VisitDone } from './visit-types.js';

/** One taken URL, with what travels with it. */
export interface Turn {
  entry: FrontierEntry;
  /** Its URL, resolved once by the scheduler; or why the entry cannot be requested (the visit tells it). */
  target: { url: HttpUrl; error?: undefined } | { url?: undefined; error: CrawlerError };
  /** Redirect hops already taken to reach this URL (a queued redirect target carries its chain's): `--max-redirects` bounds the whole chain. */
  hops: number;
  /** The first request's outcome, when the scheduler fetched it ahead (the URL passed robots.txt when it was queued). */
  first?: FetchOutcome | undefined;
  /** The first answer's page, staged on disk while it waited: the visit's page when it is kept, else discarded. */
  staged?: EarlyStagedPage | undefined;
  /**
   * Fetches a redirect's target within this turn (a private crawl holds the
   * whole crawl's order: it follows at once). Absent: the target is queued
   * at the same depth with one hop more, and fetched in its own turn (a
   * shared worker holds only its host's turn).
   */
  hop?: ((url: HttpUrl) => Promise<FetchOutcome>) | undefined;
}

/** Why the turns ran out. */
export type TurnsEnd = 'done' | 'signal' | 'max-pages';

/** A scheduler as the loop sees it. */
export interface Turns<T extends Turn = Turn> {
  /** The next turn, or why there is none (the frontier is empty, a stop, the page budget spent). */
  next(): Promise<T | TurnsEnd>;
  /**
   * Completes a visit that ended `done` or `retry` (a retry with `visit`
   * undefined). For a done visit: publishes its kept page under the
   * document ID the scheduler gives, calls `settle(documentId)` once the ID
   * is known and the file in place (the visit's page events are told
   * there), makes the page durable (`beforeComplete`), and completes the
   * entry with its links. Resolves with what the frontier answered, or
   * undefined when the entry was lost (a shared crawl's lease ran out: the
   * page was discarded and nothing was told).
   */
  complete(turn: T, visit: VisitDone | undefined, settle: (documentId: number | undefined) => void): Promise<Completed | undefined>;
  /** Gives a turn back untouched (a stop cut its visit short). */
  release(turn: T): Promise<void>;
  /** Queues URLs found outside a page (a sitemap's), at their depth; says which were new. */
  add(links: ClaimEntry[]): Promise<readonly boolean[]>;
}

/** What a kept page's durability hook is told: the same in both schedulers. */
export interface CompletingPage {
  /** The URL that answered (after redirects), or the entry's when nothing answered. */
  key: string;
  /** The document ID it was published under; undefined when nothing was kept. */
  documentId: number | undefined;
}
