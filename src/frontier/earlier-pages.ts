/**
 * A refresh's view of an earlier crawl (crawler --since): its record of
 * each page it saved, and the saved copy, and of each answer it did not
 * keep for what its head said (not HTML). The earlier crawl's state
 * implements it (refresh-source.ts); the engine asks it for the validators
 * of every page request (engine/earlier-pages.ts).
 */
import type { PageCapture, SavedPage, UnkeptAnswer } from './private-store.js';
import type { FetchedRequisite } from './requisite-journal.js';

/** A page the earlier crawl saved: its record, and the document ID its copy is under. */
export interface EarlierPage extends SavedPage {
  id: number;
}

export interface EarlierPages {
  /** The earlier crawl's record of the page saved under `key` (a URL's identity key), or undefined when it saved none. */
  page(key: string): EarlierPage | undefined;
  /**
   * The earlier copy's body, exactly as it was saved. Rejects with a
   * CrawlerError (ERR_EARLIER_CRAWL) when the copy cannot be read or is
   * not that page's.
   */
  body(page: EarlierPage): Promise<Buffer>;
  /**
   * The earlier crawl's record of the final answer under `key` that it did
   * not keep for what its head said, or undefined when it recorded none
   * (absent: it recorded none at all).
   */
  unkept?(key: string): UnkeptAnswer | undefined;
  /**
   * The earlier crawl's record of the page requisite under `key` it fetched
   * and archived with a validator (--page-requisites), or undefined (absent:
   * it recorded none).
   */
  requisite?(key: string): (FetchedRequisite & { capture: PageCapture }) | undefined;
}
