/**
 * The program's page policy (src/programs): which links are followed, what
 * a final answer is worth, whether a failed try is made again and how a
 * failure is worded, with the answer it judges and its verdict. The engine
 * asks it; it never asks the engine. Types only.
 */
import type { CrawlerError } from '../errors.js';
import type { EarlierPage } from '../frontier/earlier-pages.js';
import type { FrontierEntry } from '../frontier/private-store.js';
import type { FetchResponse } from '../http/client.js';
import type { WantsBody } from '../http/response-parser.js';
import type { HttpUrl } from '../url/http-url.js';
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
  /**
   * Whether the body of an answer with this head can be of any use to the
   * program: false only when the head alone decides that the answer is not
   * kept, whatever its body (the crawler's: a Content-Type that is not
   * HTML). Such a body is then left unread where it is long (the HTTP
   * client's `wantsBody`), so `verdict` must not read it. Absent: every
   * body is read.
   */
  wantsBody?: WantsBody;
  /** Whether a try that ended this way is made again later, given the tries given up before. Absent: never. */
  retry?(attempts: number, outcome: FetchOutcome): boolean;
  /** The reason a `failed` event gives for a URL that could not be fetched. */
  failureReason(error: CrawlerError): string;
}
