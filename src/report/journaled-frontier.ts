/**
 * A frontier store whose every page is completed only after the report's
 * records of it are in its journal: `complete` first tells the report the
 * page's links to queue (they are told as events only after it) and flushes
 * the journal. So after `kill -9` at any moment, each page the crawl state
 * holds as done is in the journal, under the page it was found on, and a
 * resumed crawl's report misses none (a page done again is recorded again,
 * which the model counts once).
 */
import type { FrontierEntry, FrontierStore, PageCompletion } from '../frontier/private-store.js';

export class JournaledFrontier implements FrontierStore {
  constructor(
    private readonly store: FrontierStore,
    /** Records the links the page queues and flushes the journal. */
    private readonly completing: (links: readonly FrontierEntry[]) => void,
  ) {}

  add(entry: FrontierEntry): boolean {
    return this.store.add(entry);
  }

  markSeen(key: string): boolean {
    return this.store.markSeen(key);
  }

  isSeen(key: string): boolean {
    return this.store.isSeen(key);
  }

  take(): FrontierEntry | undefined {
    return this.store.take();
  }

  complete(entry: FrontierEntry, completion: PageCompletion): boolean[] {
    this.completing(completion.links);
    return this.store.complete(entry, completion);
  }

  release(entry: FrontierEntry): void {
    this.store.release(entry);
  }

  get lastDocumentId(): number {
    return this.store.lastDocumentId;
  }

  get pending(): number {
    return this.store.pending;
  }

  get open(): number {
    return this.store.open;
  }

  close(): void {
    this.store.close();
  }
}
