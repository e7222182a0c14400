/**
 * The one page sink every mode saves through (style.md, "Tiny plug-in
 * interfaces"): a page is staged first, then published under its document
 * ID once the frontier has recorded it, or discarded. The TSE page
 * directory (private crawl and shared worker) and KeywordHunter's OutputDir
 * implement it; when each step touches the disk is theirs to decide.
 */
import type { HttpUrl } from '../url/http-url.js';

/** A page to keep: the URL that answered it, its depth, and the body exactly as sent. */
export interface PageToKeep {
  url: HttpUrl;
  depth: number;
  body: Buffer;
}

/** A page staged, waiting for its document ID. */
export interface StagedPage {
  /** Puts the page in place as document `id`. Rejects (ERR_WRITE) when it cannot be written. */
  publish(id: number): Promise<void> | void;
  /** Drops it (nothing of it stays on disk). */
  discard(): void;
}

/** A page staged on disk as its answer arrived, ahead of its turn: its body is read back from there. */
export interface EarlyStagedPage extends StagedPage {
  /** The page as staged (its URL key and depth: the page in its turn must be the same to be published from here). */
  readonly key: string;
  readonly depth: number;
  /** Reads the body back. Throws ERR_STATE when it cannot. */
  body(): Buffer;
}

export interface PageSink {
  /** Stages a page: nothing is visible under a final name until `publish`. */
  stage(page: PageToKeep): Promise<StagedPage> | StagedPage;
  /**
   * Optional: stages a page at once on disk, as its answer arrives ahead of
   * its turn (a broad crawl's window, lookahead.ts): the writing is done
   * while the crawl waits for the hosts before it, and in its turn only the
   * publish is left (a rename). The body need not stay in memory meanwhile.
   */
  stageEarly?(page: PageToKeep): EarlyStagedPage;
}

/** A sink that keeps nothing (KeywordHunter without OutputDir). */
export const NO_PAGE_SINK: PageSink = {
  stage: () => ({ publish: () => undefined, discard: () => undefined }),
};
