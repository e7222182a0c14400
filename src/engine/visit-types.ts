/**
 * What a visit (page-path.ts) deals in with the scheduler: how a visit
 * ends, and what it tells once its turn is completed. The program's side of
 * a visit, its policy, is page-policy.ts. Types only.
 */
import type { ClaimEntry } from '../frontier/claim-store.js';
import type { SavedPage, UnkeptAnswer } from '../frontier/private-store.js';
import type { StagedPage } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import type { CrawlEvent, Refreshed } from './events.js';
import type { PageScan } from './page-scan.js';

/** What the frontier answered when the entry was completed. */
export interface Completed {
  /** The document ID the page took (when it was kept). */
  documentId: number | undefined;
  /** For each link queued, in order: true when it was new, false for a duplicate. */
  added: readonly boolean[];
}

/** How a visit ended: what the scheduler completes the entry with. */
export type Visit =
  /** A stop cut it short: give the entry back untouched. */
  | { end: 'aborted' }
  /** Pushed back with tries left: queue it again later at its depth (only its `response` was told). */
  | { end: 'retry' }
  /** Done: queue `links`; a kept page is `page` (to publish under its ID); `stop`: the program stops the crawl here. */
  | VisitDone;

export interface VisitDone {
  end: 'done';
  links: ClaimEntry[];
  page: StagedPage | undefined;
  /** The URL that answered the kept page (undefined when nothing was kept). */
  url?: HttpUrl | undefined;
  /** For a kept page: what a crawl state keeps of it for a later refresh (its capture, when it has one, is the program's to add). */
  saved?: SavedPage | undefined;
  /** For a final answer not kept for what its head said: what a crawl state keeps of it for a later refresh. */
  unkept?: UnkeptAnswer | undefined;
  stop: boolean;
  /** True when the visit got a final answer (not a redirect, not a retry, not a failed request): what --max-pages counts. */
  answered: boolean;
  /** Told by `told`. */
  readonly pending: Pending;
}

/** What a visit tells once its entry is completed. */
export interface Pending {
  kept?: { url: HttpUrl; depth: number; match: Buffer | undefined; refresh: Refreshed | undefined };
  /** Events before the scan's (failed, disallowed, a queued redirect whose action waits for the frontier). */
  events: CrawlEvent[];
  /** A redirect whose target was queued (links[0] when followed): its event says duplicate when the frontier had it. */
  redirect?: CrawlEvent & { type: 'redirect' };
  scan?: PageScan<ClaimEntry> | undefined;
}
