/**
 * The private frontier store: the crawl's seen set and its breadth-first
 * queue, for one process. It has the shared frontier's shape (ClaimStore:
 * take the next URL, complete it with its links, or release it), without
 * claims, leases or hosts: one process takes entries in strict order, and
 * the scheduler (the ordered window, src/engine/lookahead.ts) decides when
 * each is fetched. The contract suites (test/frontier/store-contract.test.ts,
 * and test/frontier/queue-contract.test.ts over private and shared stores
 * alike) hold every implementation to it.
 *
 * Durability model: everything a page changes (the links it queued, the
 * document ID it took, the entry itself being done or queued again) is one
 * unit, closed by `complete(entry, ...)`. A store may write several such
 * units to disk together (the SQLite store does, at most 100 ms apart) and
 * writes all closed ones at `close()`. An entry whose unit is not on disk (a
 * crash, an abort, a `release`) is taken again after a restart, in the same
 * order, so a resumed crawl redoes the same pages under the same IDs.
 */

/** A URL waiting to be fetched. `url` is the href (host as written); `key` its identity. */
export interface FrontierEntry {
  key: string;
  url: string;
  depth: number;
  /** Tries made so far and failed in a way worth retrying (absent: none). */
  attempts?: number;
}

/** A page's record in a crawl archive (WARC): what a later revisit of the page refers to. */
export interface PageCapture {
  /** The response record's WARC-Target-URI. */
  uri: string;
  /** Its WARC-Date. */
  date: string;
  /** Its WARC-Record-ID. */
  id: string;
  /** Its WARC-Payload-Digest: of the payload, the body with any transfer coding removed. */
  digest: string;
}

/** What a crawl state keeps of a saved page, for a later crawl that refreshes it (crawler --since). */
export interface SavedPage {
  /** The identity key of the URL the page was saved under (after redirects). */
  key: string;
  /** Its response's ETag, as sent (undefined: none). */
  etag: string | undefined;
  /** Its response's Last-Modified, as sent (undefined: none). */
  lastModified: string | undefined;
  /** Its capture in the crawl archive, when the crawl wrote one. */
  capture: PageCapture | undefined;
  /** In a refresh: its document ID in the earlier crawl, when that saved it. */
  earlierId?: number | undefined;
  /** In a refresh: the earlier answer's body size as it travelled, when the server said the page was unchanged (304): bytes it did not send again. */
  sparedBytes?: number | undefined;
  /**
   * Its body's size as the server sent it (with --compressed, before
   * decoding; for an unchanged page, the earlier answer's): what a 304 to a
   * later refresh spares. Undefined when not known (a state of version 3).
   */
  wireBytes?: number | undefined;
}

/**
 * A final answer the crawl did not keep for what its head alone said (the
 * crawler's: a 200 whose Content-Type is not HTML), as a crawl state keeps
 * it for a later refresh, which asks for it with its validators: a 304
 * then stands for an answer of the same type, judged as that one was,
 * with no body sent.
 */
export interface UnkeptAnswer {
  /** The identity key of the URL that answered (after redirects). */
  key: string;
  /** Its ETag, as sent (undefined: none). */
  etag: string | undefined;
  /** Its Last-Modified, as sent (undefined: none). */
  lastModified: string | undefined;
  /** Its Content-Type, as sent. */
  contentType: string;
}

/** How the processing of a taken entry ended (ClaimStore's Completion, for one process). */
export interface PageCompletion {
  /** Links to queue, in document order (in scope, below the depth limit); duplicates are the store's to say. */
  links: readonly FrontierEntry[];
  /** The document ID the page was saved under, if it was. */
  documentId?: number | undefined;
  /** With `documentId`: what a store that keeps pages for a later refresh records of it (others ignore it). */
  saved?: SavedPage | undefined;
  /** Without `documentId`: a final answer not kept for what its head said, which such a store records too (others ignore it). */
  unkept?: UnkeptAnswer | undefined;
  /**
   * Queue the entry again, at the end of the queue (later in the crawl, at
   * its depth), with one more attempt counted: its try failed in a way
   * worth retrying. Its links are not queued.
   */
  retry?: boolean;
}

export interface FrontierStore {
  /**
   * Marks `entry.key` as seen and queues the entry when it was not seen
   * before (the seed). Returns true when it was new (queued), false for a duplicate.
   */
  add(entry: FrontierEntry): boolean;
  /** Marks a key as seen without queueing it (a redirect's target once followed). Returns true when new. */
  markSeen(key: string): boolean;
  /** True when the key was seen before. */
  isSeen(key: string): boolean;
  /** Takes the next entry in breadth-first order (shallowest, then oldest), or undefined when none is left. */
  take(): FrontierEntry | undefined;
  /**
   * Ends the processing of the entry taken first and not yet ended, as one
   * unit: its links queued (for each, in order: true when new, false for a
   * duplicate, a repeat on the page included), its document ID, and the
   * entry done, or queued again for a retry.
   */
  complete(entry: FrontierEntry, completion: PageCompletion): boolean[];
  /**
   * Gives the entry back untouched (a stop cut its processing short): what
   * its processing marked seen is forgotten, and it is the next one taken.
   */
  release(entry: FrontierEntry): void;
  /** The highest document ID committed so far (0 when none). */
  readonly lastDocumentId: number;
  /** Entries queued and not yet taken. */
  readonly pending: number;
  /** Entries not ended yet: queued, or taken and neither completed nor released (what a crawl still has to do, for its progress line). */
  readonly open: number;
  /** Releases resources (closes the database). */
  close(): void;
}
