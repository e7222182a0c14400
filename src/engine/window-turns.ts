/**
 * The private crawl's turns: its own frontier, taken in strict
 * breadth-first order through the ordered window (lookahead.ts), which
 * fetches ahead across hosts and hands each answer out in frontier order.
 * A redirect is followed within the turn (the window may have fetched its
 * target ahead); a kept page is published under the next document ID, told,
 * made durable, then its entry is completed: the output is exactly breadth
 * first and IDs are 1..N in that order.
 */
import { CrawlerError } from '../errors.js';
import type { ClaimEntry } from '../frontier/claim-store.js';
import type { FrontierStore, PageCapture } from '../frontier/private-store.js';
import type { HttpUrl } from '../url/http-url.js';
import type { Lookahead } from './lookahead.js';
import type { PagePath } from './page-path.js';
import type { CompletingPage, Turn, Turns, TurnsEnd } from './turns.js';
import type { Completed, VisitDone } from './visit-types.js';

export interface WindowTurnsOptions {
  frontier: FrontierStore;
  window: Lookahead;
  path: PagePath;
  /** Stop after this many final answers (undefined: no cap). */
  maxPages: number | undefined;
  /** Awaited once a visit is told and before its entry is completed: what must be durable first (page files, archive records). */
  beforeComplete?: ((page: CompletingPage) => Promise<void>) | undefined;
  /** The archive's record of a kept page's response, kept with the page in the crawl state for a later refresh. */
  captureOf?: ((url: HttpUrl) => PageCapture | undefined) | undefined;
}

export class WindowTurns implements Turns {
  private lastId: number;

  constructor(private readonly o: WindowTurnsOptions) {
    this.lastId = o.frontier.lastDocumentId;
  }

  async next(): Promise<Turn | TurnsEnd> {
    const { window, path, frontier } = this.o;
    if (this.o.maxPages !== undefined && path.answered >= this.o.maxPages) return 'max-pages';
    const ready = await window.next();
    if (ready === undefined) return 'done';
    // Let the window's next request reach the socket before this page is
    // saved and scanned (synchronous work): the server then works while we do.
    if (window.prefetching) await new Promise<void>((resolve) => setImmediate(resolve));
    const { entry, url, outcome, staged } = ready;
    return {
      entry,
      target: url === undefined ? { error: outcome.error ?? new CrawlerError('ERR_INVALID_URL', `cannot request ${entry.url}`) } : { url },
      hops: 0,
      first: url === undefined ? undefined : outcome,
      staged,
      // Both URLs of a redirect count as seen; its target may have been fetched ahead.
      hop: (target) => {
        frontier.markSeen(target.key);
        return window.takeOver(target) ?? path.request(target);
      },
    };
  }

  async complete(turn: Turn, visit: VisitDone | undefined, settle: (documentId: number | undefined) => void): Promise<Completed> {
    const { frontier } = this.o;
    if (visit === undefined) {
      frontier.complete(turn.entry, { links: [], retry: true });
      return { documentId: undefined, added: [] };
    }
    let documentId: number | undefined;
    if (visit.page !== undefined) {
      documentId = ++this.lastId;
      await visit.page.publish(documentId);
    }
    // Told before the entry is completed: a page the crawl state holds as done has been told (the report's journal).
    settle(documentId);
    await this.o.beforeComplete?.({ key: visit.url?.key ?? turn.target.url?.key ?? turn.entry.key, documentId });
    const url = visit.url;
    const saved = visit.saved === undefined || documentId === undefined || visit.saved.capture !== undefined || url === undefined ? visit.saved : { ...visit.saved, capture: this.o.captureOf?.(url) };
    return { documentId, added: frontier.complete(turn.entry, { links: visit.links, documentId, saved, unkept: visit.unkept }) };
  }

  async release(turn: Turn): Promise<void> {
    this.o.frontier.release(turn.entry);
  }

  async add(links: ClaimEntry[]): Promise<readonly boolean[]> {
    return links.map((link) => this.o.frontier.add(link));
  }
}
