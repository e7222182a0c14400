/**
 * Who waits for which job of a thread: jobs are numbered 1, 2, 3... in the
 * order they are queued and done in that order, so "done through N" is one
 * number. The thread is kept referenced (it holds the process open) only
 * while someone waits: `hold(true)` when the first waiter comes, `hold(false)`
 * when the last is gone. Once the jobs have failed (`fail`), every wait, those
 * waiting and those to come, rejects with the failure: nothing after it is done.
 */
import type { CrawlerError } from '../errors.js';

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: CrawlerError) => void;
}

export class SeqWaiters {
  /** Every job up to this one is done. */
  done = 0;
  /** Why the jobs stopped, if they did. */
  failure: CrawlerError | undefined;
  private waiters: Waiter[] = [];
  private readonly hold: (held: boolean) => void;

  constructor(hold: (held: boolean) => void) {
    this.hold = hold;
  }

  /** Resolves once job `seq` and every job before it are done; rejects with the failure once there is one. */
  wait(seq: number): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (seq <= this.done) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      if (this.waiters.length === 0) this.hold(true);
      this.waiters.push({ seq, resolve, reject });
    });
  }

  /** Jobs through `seq` are done. */
  doneThrough(seq: number): void {
    this.done = Math.max(this.done, seq);
    this.settle((w) => w.seq <= this.done, (w) => w.resolve());
  }

  /** The jobs stopped (the first failure is kept): every waiter is let go with it, nothing is marked done. */
  fail(err: CrawlerError): void {
    this.failure ??= err;
    const failure = this.failure;
    this.settle(() => true, (w) => w.reject(failure));
  }

  private settle(ready: (w: Waiter) => boolean, end: (w: Waiter) => void): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (ready(w)) end(w);
      else still.push(w);
    }
    this.waiters = still;
    if (still.length === 0) this.hold(false);
  }
}
