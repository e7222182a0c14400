/**
 * A binary min-heap of items keyed by when their turn comes (`readyAt`),
 * each item knowing its place (`at`, -1 when out of the heap), so that an
 * item can be taken out or re-keyed in O(log n). The private crawl's window
 * (lookahead.ts) keeps its hosts' lanes in one: the next host whose turn has
 * come is the top.
 */

/** What the heap holds: its key, and its place, kept by the heap. */
export interface Turn {
  /** When its turn comes (performance.now() ms). */
  readyAt: number;
  /** Its place in the heap, or -1. */
  at: number;
}

export class TurnHeap<T extends Turn> {
  private readonly h: T[] = [];

  get size(): number {
    return this.h.length;
  }

  /** The item whose turn comes first, or undefined. */
  get top(): T | undefined {
    return this.h[0];
  }

  /** Adds an item that is not in the heap, at its `readyAt`. */
  push(item: T): void {
    item.at = this.h.length;
    this.h.push(item);
    this.up(item.at);
  }

  /** Takes an item out of the heap (its `at` becomes -1). */
  remove(item: T): void {
    const i = item.at;
    const last = this.h.pop() as T;
    item.at = -1;
    if (last !== item) {
      this.h[i] = last;
      last.at = i;
      this.down(i);
      this.up(last.at);
    }
  }

  /** Puts the top in its place again after its `readyAt` grew. */
  topLater(): void {
    if (this.h.length > 0) this.down(0);
  }

  /** Items whose turn comes by `soon`, counted up to `most`: the heap's order prunes the walk, O(most). */
  countReady(soon: number, most: number, at = 0): number {
    const item = this.h[at];
    if (item === undefined || most <= 0 || item.readyAt > soon) return 0;
    let n = 1;
    n += this.countReady(soon, most - n, 2 * at + 1);
    n += this.countReady(soon, most - n, 2 * at + 2);
    return n;
  }

  private up(i: number): void {
    const h = this.h;
    const item = h[i] as T;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p] as T;
      if (parent.readyAt <= item.readyAt) break;
      h[i] = parent;
      parent.at = i;
      i = p;
    }
    h[i] = item;
    item.at = i;
  }

  private down(i: number): void {
    const h = this.h;
    const n = h.length;
    const item = h[i] as T;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && (h[r] as T).readyAt < (h[l] as T).readyAt ? r : l;
      const child = h[c] as T;
      if (child.readyAt >= item.readyAt) break;
      h[i] = child;
      child.at = i;
      i = c;
    }
    h[i] = item;
    item.at = i;
  }
}
