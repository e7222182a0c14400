/** The crawl state's file name inside a page directory (the SQLite frontier's; the page directory's ownership check knows it too). */
export const STATE_FILE = '.crawler-state.db';

/** The files SQLite keeps for the database at `path`: the file itself, its write-ahead log and its shared-memory index. */
export function stateFileParts(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`];
}

/**
 * What an earlier crawl's state records of the page files it wrote (read
 * by the SQLite frontier's module, used by the page directory's ownership
 * check): IDs 1..max(lastId, ownedThrough) are ours.
 */
export interface EarlierCrawlRecord {
  /** The last document ID it committed: it wrote 1..lastId. */
  lastId: number;
  /** Page files of crawls before it that it still owned: IDs up to this (0: none). */
  ownedThrough: number;
  /**
   * Whether `key` is a URL its state holds (queued, done or seen). A crash
   * (`kill -9`) can leave page files above lastId: pages written whose group
   * was not yet committed. Each names its URL on its first line.
   */
  knows(key: string): boolean;
  /** Closes the state. */
  close(): void;
}
