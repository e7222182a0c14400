/**
 * What a visit (page-path.ts) deals in with the program and the scheduler:
 * the answer the program's policy judges and its verdict, the policy
 * itself, and how a visit ends. Types only.
 */
import type { CrawlerError } from '../errors.js';
import type { ClaimEntry } from '../frontier/claim-store.js';
import type { FrontierEntry, SavedPage } from '../frontier/store.js';
import type { FetchResponse } from '../http/client.js';
import type { StagedPage } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import type { EarlierPage } from '../frontier/earlier-pages.js';
import type { CrawlEvent, Refreshed } from './events.js';
import type { PageScan } from './page-scan.js';
import type { FetchOutcome } from './redirects.js';

/** A final answer as the policy sees it. */
export interface AnsweredPage {
  entry: FrontierEntry;
  /** The URL that answered (after redirects). */
  url: HttpUrl;
  depth: number;
  response: FetchResponse;
  /**
   * In a refresh: the earlier crawl's page when `response` is a 304 to the
   * conditional request made for it. The page is then unchanged, and its
   * body is the earlier copy's. Undefined for any other answer (a 304 to a
   * request that carried no validator included).
   */
  unchanged?: EarlierPage | undefined;
}

/** What a final answer is worth to the program. */
export type Verdict =
  /** Not kept: with a reason, the page failed (a `failed` event); without one, nothing is told (KeywordHunter's non-200). */
  | { keep: false; reason?: string | undefined }
  /** Kept (staged, then saved under an ID); its links are scanned when `scan` and it is above the depth limit; `match` stops the crawl there. */
  | { keep: true; scan: boolean; match?: Buffer | undefined };

/** The program's policy: small, pure functions (src/programs). */
export interface PagePolicy {
  /** Resolves a link (or a queued URL) against a base; throws CrawlerError when it is not a crawlable URL. */
  resolveLink(href: string, base: HttpUrl): HttpUrl;
  /** False for a URL the crawl must never request (out of scope, not a page). */
  inScope(url: HttpUrl): boolean;
  /** What a final (non-redirect) answer is worth. Pure: asked again for the same response, the same verdict. */
  verdict(page: AnsweredPage): Verdict;
  /** Whether a try that ended this way is made again later, given the tries given up before. Absent: never. */
  retry?(attempts: number, outcome: FetchOutcome): boolean;
  /** The reason a `failed` event gives for a URL that could not be fetched. */
  failureReason(error: CrawlerError): string;
}

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
