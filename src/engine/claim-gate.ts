/**
 * How the lanes of one shared worker ask the store for work: a window of
 * asks in flight at once, as TCP's congestion window grows and shrinks.
 * Each claim the store gives doubles the window (more hosts may be ready:
 * after a hub page, hundreds at once), up to every lane. The answer "nothing
 * ready, wait" shuts it to one: one lane sleeps that wait and asks again
 * while the others queue behind it. So a worker whose hosts are all at their
 * interval has one ask in flight, not one per lane (64 lanes polling every
 * few milliseconds would be thousands of claims a second on the database,
 * each finding the same next host, for one page), and a worker with many
 * hosts ready is not held to one ask at a time.
 *
 * A lane whose completion added links wakes the sleeping lane (`nudge`): a
 * new host may be ready now, before the wait the store gave runs out.
 */
import type { ClaimResult } from '../frontier/claim-store.js';
import type { Clock } from '../frontier/clock.js';

export class ClaimGate {
  /** Asks allowed in flight at once. */
  private window: number;
  private inFlight = 0;
  /** A lane sleeps on the store's wait: the others queue until it asks again. */
  private asleep = false;
  private readonly queue: Array<() => void> = [];
  private wake: (() => void) | undefined;

  /** `lanes`: the most asks in flight at once (the window's top; it starts there). */
  constructor(
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
    private readonly lanes = Infinity,
  ) {
    this.window = lanes;
    signal.addEventListener('abort', () => this.admit(), { once: true });
  }

  /** The store's answer to `ask`: a claim or done (never a wait, unless the signal aborts during one). */
  async claim(ask: () => Promise<ClaimResult>): Promise<ClaimResult> {
    let r: ClaimResult | undefined;
    // Whether this lane holds a place in flight: taken in the window, or woken from its sleep (which asks at once).
    let placed = false;
    for (;;) {
      if (!placed) {
        await this.place();
        placed = true;
      }
      if (this.signal.aborted && r !== undefined) {
        this.inFlight--;
        this.admit();
        return r;
      }
      placed = false;
      try {
        r = await ask();
      } finally {
        this.inFlight--;
      }
      if (!('waitMs' in r)) {
        this.window = Math.min(this.lanes, this.window * 2);
        this.admit();
        return r;
      }
      this.window = 1;
      if (this.asleep || this.signal.aborted) continue; // another lane sleeps on the wait: queue behind it
      this.asleep = true;
      try {
        await this.sleep(r.waitMs);
      } finally {
        this.asleep = false;
      }
      this.inFlight++;
      placed = true;
    }
  }

  /** Links were added: the lane sleeping on the store's wait asks again now. */
  nudge(): void {
    this.wake?.();
  }

  /** Lanes wait in line to ask (one sleeps on the store's wait, or the window is full). */
  get busy(): boolean {
    return this.queue.length > 0 || !this.open();
  }

  /** Resolves when this lane may ask, its place in flight taken: no lane sleeps on a wait and the window has room (or the crawl stops). */
  private place(): Promise<void> {
    if (!this.busy) {
      this.inFlight++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.queue.push(resolve));
  }

  private open(): boolean {
    return this.signal.aborted || (!this.asleep && this.inFlight < this.window);
  }

  /** Lets queued lanes ask while the window has room (all of them once the crawl stops). */
  private admit(): void {
    while (this.queue.length > 0 && this.open()) {
      this.inFlight++; // taken for the lane now: it runs later
      (this.queue.shift() as () => void)();
    }
  }

  private async sleep(ms: number): Promise<void> {
    const stop = new AbortController();
    const abort = (): void => stop.abort();
    this.signal.addEventListener('abort', abort, { once: true });
    this.wake = abort;
    try {
      await this.clock.sleep(ms, stop.signal);
    } finally {
      this.wake = undefined;
      this.signal.removeEventListener('abort', abort);
    }
  }
}
