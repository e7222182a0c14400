/**
 * The frontier store: the crawl's seen set and its breadth-first queue,
 * behind a narrow interface so that durable (SQLite) and shared stores can
 * take the in-memory one's place. One contract test suite runs over every
 * implementation (test/frontier/store-contract.test.ts).
 *
 * Durability model: everything a page changes (the links it added, the
 * document ID it took, the entry itself being done) is one unit, closed by
 * `commit(entry)`. A store may write several such units to disk together
 * (the SQLite store does, at most 100 ms apart) and writes all closed ones
 * at `close()`. An entry whose unit is not on disk (a crash, an abort) is
 * taken again after a restart, in the same order, so a resumed crawl
 * redoes the same pages under the same IDs.
 */

/** A URL waiting to be fetched. `url` is the href (host as written); `key` its identity. */
export interface FrontierEntry {
  key: string;
  url: string;
  depth: number;
  /** Tries made so far and failed in a way worth retrying (absent: none). */
  attempts?: number;
}

export interface FrontierStore {
  /**
   * Marks `entry.key` as seen and queues the entry when it was not seen
   * before. Returns true when it was new (queued), false for a duplicate.
   */
  add(entry: FrontierEntry): boolean;
  /** Marks a key as seen without queueing it (a redirect's target once followed). Returns true when new. */
  markSeen(key: string): boolean;
  /** True when the key was seen before. */
  isSeen(key: string): boolean;
  /** Takes the next entry in breadth-first order (shallowest, then oldest), or undefined when none is left. */
  next(): FrontierEntry | undefined;
  /** Records that the page being processed was saved under document ID `id`. */
  recordDocument(id: number): void;
  /** Makes the processing of `entry` (and what it added) durable. */
  commit(entry: FrontierEntry): void;
  /**
   * Queues `entry` again, at the end of the queue (later in the crawl, at its
   * depth), with one more attempt counted: its try failed in a way worth
   * retrying. It counts as the processing of `entry`: no `commit` follows.
   */
  retry(entry: FrontierEntry): void;
  /** The highest document ID committed so far (0 when none). */
  readonly lastDocumentId: number;
  /** Entries queued and not yet taken. */
  readonly pending: number;
  /** Releases resources (closes the database). */
  close(): void;
}
