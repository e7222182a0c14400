/**
 * A frontier store whose every unit is closed after the report's records
 * of it are written: `commit` and `retry` flush the report's journal first.
 * So after `kill -9` at any moment, each page the crawl state holds as done
 * has its records in the journal, and a resumed crawl's report misses none
 * (a page done again is recorded again, which the model counts once).
 */
import type { FrontierEntry, FrontierStore } from '../frontier/store.js';

export class JournaledFrontier implements FrontierStore {
  constructor(
    private readonly store: FrontierStore,
    private readonly flush: () => void,
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

  next(): FrontierEntry | undefined {
    return this.store.next();
  }

  recordDocument(id: number): void {
    this.store.recordDocument(id);
  }

  commit(entry: FrontierEntry): void {
    this.flush();
    this.store.commit(entry);
  }

  retry(entry: FrontierEntry): void {
    this.flush();
    this.store.retry(entry);
  }

  get lastDocumentId(): number {
    return this.store.lastDocumentId;
  }

  get pending(): number {
    return this.store.pending;
  }

  close(): void {
    this.store.close();
  }
}
