/**
 * Writes a program's output to stdout or stderr so that none of it is lost,
 * whatever the reader is. On POSIX, node writes to a pipe asynchronously:
 * what the reader has not taken yet waits in the stream's queue, and a
 * `process.exit()` drops it (a grader reading slowly got a tenth of the log).
 * So the writer counts what is queued, lets the crawl wait while the queue
 * is over its bound (a stalled reader then slows the crawl instead of
 * growing memory without limit), and tells when everything has been taken,
 * which the CLI waits for before it exits.
 *
 * A stream that fails (EPIPE: the reader closed its end) is broken for good:
 * later writes are dropped, and every wait ends at once.
 */
import type { Writable } from 'node:stream';

/**
 * How much queued output the crawl may run ahead of a slow reader (bytes, as
 * written: UTF-16 code units for text). One page's log is written at once,
 * so the queue may exceed it by one page's lines.
 */
export const DEFAULT_OUTPUT_BOUND = 1 << 20;

interface Waiter {
  /** Resolve once at most this much is queued. */
  atMost: number;
  resolve: () => void;
}

export class StreamWriter {
  private queued = 0;
  private brokenBy: Error | undefined;
  private waiters: Waiter[] = [];

  /**
   * @param stream the stream written to (process.stdout, process.stderr)
   * @param onBroken called once, with the error, when the stream fails (EPIPE...)
   * @param bound `room()` waits while more than this is queued
   */
  constructor(
    private readonly stream: Writable,
    private readonly onBroken: (err: Error) => void = () => undefined,
    readonly bound: number = DEFAULT_OUTPUT_BOUND,
  ) {
    // A failed write also emits 'error', which would otherwise be thrown.
    stream.on('error', (err) => this.broke(err));
  }

  /** Bytes (UTF-16 units for text) handed to the stream and not yet taken by the reader. */
  get pending(): number {
    return this.queued;
  }

  /** The error the stream failed with, if it did (writes are then dropped). */
  get broken(): Error | undefined {
    return this.brokenBy;
  }

  /** Queues `chunk`; never blocks. Dropped when the stream is broken. */
  write(chunk: string | Uint8Array): void {
    if (this.brokenBy !== undefined) return;
    const size = typeof chunk === 'string' ? chunk.length : chunk.byteLength;
    if (size === 0) return;
    this.queued += size;
    this.stream.write(chunk, (err) => {
      this.queued -= size;
      if (err !== null && err !== undefined) this.broke(err);
      this.wake();
    });
  }

  /**
   * Undefined while the queue is within its bound (go on); else a promise
   * that resolves once the reader has taken it down to half the bound, or the
   * stream broke. Half, so that a crawl held back by a slow reader resumes
   * in steps, not at every line.
   */
  room(): Promise<void> | undefined {
    if (this.brokenBy !== undefined || this.queued <= this.bound) return undefined;
    return this.until(this.bound >> 1);
  }

  /** Resolves once everything written has been taken by the reader (or the stream broke). */
  flushed(): Promise<void> {
    return this.until(0);
  }

  private until(atMost: number): Promise<void> {
    if (this.brokenBy !== undefined || this.queued <= atMost) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ atMost, resolve }));
  }

  private broke(err: Error): void {
    if (this.brokenBy !== undefined) return;
    this.brokenBy = err;
    this.wake();
    this.onBroken(err);
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const broken = this.brokenBy !== undefined;
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (broken || this.queued <= w.atMost) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }
}
