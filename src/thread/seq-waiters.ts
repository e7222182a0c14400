/**
 * Who waits for which job of a thread: jobs are numbered 1, 2, 3... in the
 * order they are queued and done in that order, so "done through N" is one
 * number. The thread is kept referenced (it holds the process open) only
 * while someone waits: `hold(true)` when the first waiter comes, `hold(false)`
 * when the last is gone.
 */
interface Waiter {
  seq: number;
  resolve: () => void;
}

export class SeqWaiters {
  /** Every job up to this one is done. */
  done = 0;
  private waiters: Waiter[] = [];
  private readonly hold: (held: boolean) => void;

  constructor(hold: (held: boolean) => void) {
    this.hold = hold;
  }

  /** Resolves once job `seq` and every job before it are done (or release() gives up on them). */
  wait(seq: number): Promise<void> {
    if (seq <= this.done) return Promise.resolve();
    return new Promise<void>((resolve) => {
      if (this.waiters.length === 0) this.hold(true);
      this.waiters.push({ seq, resolve });
    });
  }

  /** Jobs through `seq` are done. */
  doneThrough(seq: number): void {
    this.done = Math.max(this.done, seq);
    this.settle((w) => w.seq <= this.done);
  }

  /** Lets every waiter go without marking anything done (the thread stopped: the waiters look at why). */
  release(): void {
    this.settle(() => true);
  }

  private settle(ready: (w: Waiter) => boolean): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (ready(w)) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
    if (still.length === 0) this.hold(false);
  }
}
