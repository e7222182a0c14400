/**
 * The frontier store: the crawl's seen set and its breadth-first queue,
 * behind a narrow interface so that durable (SQLite) and shared (PostgreSQL)
 * stores can take the in-memory one's place.
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
  /** Marks a key as seen without queueing it (a redirect's source, the seed). */
  markSeen(key: string): boolean;
  /** True when the key was seen before. */
  isSeen(key: string): boolean;
  /** Takes the next entry in breadth-first order (shallowest, then oldest), or undefined. */
  next(): FrontierEntry | undefined;
  /** Entries queued and not yet taken. */
  readonly pending: number;
}
