/**
 * The in-memory frontier: a Set of identity keys and a FIFO queue. Entries
 * are added at their parent's depth + 1 while pages are taken in order, so
 * FIFO order is breadth-first order. Nothing survives the process.
 */
import type { FrontierEntry, FrontierStore } from './store.js';

export class MemoryFrontier implements FrontierStore {
  private readonly seen = new Set<string>();
  private queue: Array<FrontierEntry | undefined> = [];
  private head = 0;
  private lastId = 0;

  add(entry: FrontierEntry): boolean {
    if (this.seen.has(entry.key)) return false;
    this.seen.add(entry.key);
    this.queue.push(entry);
    return true;
  }

  markSeen(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    return true;
  }

  isSeen(key: string): boolean {
    return this.seen.has(key);
  }

  retry(entry: FrontierEntry): void {
    this.queue.push({ ...entry, attempts: (entry.attempts ?? 0) + 1 });
  }

  next(): FrontierEntry | undefined {
    if (this.head >= this.queue.length) return undefined;
    const e = this.queue[this.head];
    this.queue[this.head] = undefined; // let it be collected
    this.head++;
    // Compact now and then so a long crawl does not keep a dead prefix.
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return e;
  }

  recordDocument(id: number): void {
    this.lastId = id;
  }

  commit(): void {
    // Nothing to make durable.
  }

  get lastDocumentId(): number {
    return this.lastId;
  }

  get pending(): number {
    return this.queue.length - this.head;
  }

  close(): void {
    this.seen.clear();
    this.queue = [];
    this.head = 0;
  }
}
