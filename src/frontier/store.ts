/**
 * The frontier store: the crawl's seen set and its breadth-first queue,
 * behind a narrow interface so that durable (SQLite) and shared stores can
 * take the in-memory one's place. One contract test suite runs over every
 * implementation (test/frontier/store-contract.test.ts).
 *
 * Durability model: everything a page changes (the links it added, the
 * document ID it took, the entry itself being done) becomes durable at
 * `commit(entry)`, in one step. An entry taken by `next()` but never
 * committed (a crash, an abort) is taken again after a restart.
 */

/** A URL waiting to be fetched. `url` is the href (host as written); `key` its identity. */
export interface FrontierEntry {
  key: string;
  url: string;
  depth: number;
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
  /** The highest document ID committed so far (0 when none). */
  readonly lastDocumentId: number;
  /** Entries queued and not yet taken. */
  readonly pending: number;
  /** Releases resources (closes the database). */
  close(): void;
}
