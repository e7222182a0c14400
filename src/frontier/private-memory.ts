/**
 * The private crawl's in-memory frontier (a FrontierStore, private-store.ts;
 * a shared crawl's is claim-memory.ts): a Set of identity keys and a FIFO
 * queue. Entries are added at their parent's depth + 1 while pages are taken
 * in order, so FIFO order is breadth-first order. Nothing survives the
 * process.
 */
import type { FrontierEntry, FrontierStore, PageCompletion } from './private-store.js';

export class MemoryFrontier implements FrontierStore {
  private readonly seen = new Set<string>();
  private queue: Array<FrontierEntry | undefined> = [];
  private head = 0;
  private lastId = 0;
  /** Entries given back (taken again first). */
  private readonly released: FrontierEntry[] = [];
  /** Keys marked seen while the current page was processed (forgotten when it is released). */
  private pageSeen: string[] = [];

  add(entry: FrontierEntry): boolean {
    if (this.seen.has(entry.key)) return false;
    this.seen.add(entry.key);
    this.queue.push(entry);
    return true;
  }

  markSeen(key: string): boolean {
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    this.pageSeen.push(key);
    return true;
  }

  isSeen(key: string): boolean {
    return this.seen.has(key);
  }

  /** Entries taken and not yet ended. */
  private taken = 0;

  complete(entry: FrontierEntry, c: PageCompletion): boolean[] {
    this.taken--;
    this.pageSeen = [];
    if (c.retry === true) {
      this.queue.push({ ...entry, attempts: (entry.attempts ?? 0) + 1 });
      return c.links.map(() => false);
    }
    if (c.documentId !== undefined) this.lastId = c.documentId;
    return c.links.map((link) => this.add(link));
  }

  release(entry: FrontierEntry): void {
    for (const key of this.pageSeen) this.seen.delete(key);
    this.pageSeen = [];
    this.taken--;
    this.released.push(entry);
  }

  take(): FrontierEntry | undefined {
    const back = this.released.pop();
    if (back !== undefined) {
      this.taken++;
      return back;
    }
    if (this.head >= this.queue.length) return undefined;
    this.taken++;
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

  get lastDocumentId(): number {
    return this.lastId;
  }

  get pending(): number {
    return this.queue.length - this.head + this.released.length;
  }

  get open(): number {
    return this.pending + this.taken;
  }

  close(): void {
    this.seen.clear();
    this.queue = [];
    this.head = 0;
  }
}
