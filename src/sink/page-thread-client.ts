/**
 * The crawl's side of the page files' thread (page-thread.ts): starts it,
 * copies each page (its two header lines and its body) once into a shared
 * ring, sends the pages in batches, and tells when they are written. A
 * crawl state commits only pages whose files are written
 * (`done`, `written`); a failed write is kept and thrown by the next
 * page (`failure`).
 *
 * The thread never holds the process open by itself: it is referenced only
 * while someone waits for it.
 */
import { Worker } from 'node:worker_threads';
import { CrawlerError, type ErrorCode } from '../errors.js';
import { ALIGN_SLACK, SendRing, alignedFor } from '../thread/send-ring.js';
import { SeqWaiters } from '../thread/seq-waiters.js';
import { threadFile } from '../thread/thread-file.js';

/**
 * A page file to write: `at`/`length` is its place in the ring, given back
 * up to `ringEnd` once written. With `op`: `stage` writes it under the
 * temporary name `temp` (for the file `name`), `publish` renames `temp` to
 * `name`, `discard` removes `temp` (those two carry no bytes).
 */
export interface PageJob {
  seq: number;
  op?: 'stage' | 'publish' | 'discard';
  name: string;
  temp?: string;
  at: number;
  length: number;
  ringEnd: number;
}

/** Main to thread: a batch of pages. */
export interface ToPageThread {
  t: 'jobs';
  jobs: PageJob[];
}

/** Thread to main: started; each batch written, through `seq` (and the failure that stopped it, if one did). */
export type FromPageThread = { t: 'ready' } | { t: 'written'; seq: number; ringEnd: number; failure: { code: string; message: string } | undefined };

/** What the thread is started with (workerData). */
export interface PageThreadData {
  dir: string;
  fsync: boolean;
  ring: SharedArrayBuffer;
}

/** A batch is sent once it holds this many pages or has waited this long: a commit waits for at most one batch. */
const BATCH_PAGES = 16;
const BATCH_MS = 20;
/** Room for about 45 pages of 22 KB, three batches; a page that finds no room is written by the crawl's thread itself. */
const RING_BYTES = 1024 * 1024;

export class PageThread {
  private readonly worker: Worker;
  private readonly ring = new SendRing(RING_BYTES);
  private readonly waiters: SeqWaiters;
  private seq = 0;
  /** The last page sent to the thread. */
  private sent = 0;
  private batch: PageJob[] = [];
  private timer: NodeJS.Timeout | undefined;

  private constructor(dir: string, fsync: boolean) {
    const data: PageThreadData = { dir, fsync, ring: this.ring.shared };
    // The thread keeps nothing alive between batches: its young generation need not grow.
    this.worker = new Worker(threadFile('page-thread', 'sink/page-thread.js'), { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: 1 } });
    this.waiters = new SeqWaiters((held) => (held ? this.worker.ref() : this.worker.unref()));
  }

  /** Starts the thread for the page files of `dir`; rejects when it cannot start. */
  static start(dir: string, options: { fsync?: boolean } = {}): Promise<PageThread> {
    const thread = new PageThread(dir, options.fsync ?? false);
    const { worker } = thread;
    return new Promise<PageThread>((resolve, reject) => {
      let started = false;
      worker.on('message', (m: FromPageThread) => {
        if (m.t === 'ready') {
          started = true;
          worker.unref();
          resolve(thread);
          return;
        }
        thread.ring.release(m.ringEnd);
        if (m.failure !== undefined) thread.waiters.fail(new CrawlerError(m.failure.code as ErrorCode, m.failure.message));
        thread.waiters.doneThrough(m.seq);
      });
      const stop = (why: string): void => {
        const err = new CrawlerError('ERR_WRITE', `the page files' thread stopped: ${why}`);
        if (started) thread.waiters.fail(err);
        else reject(err);
      };
      worker.on('error', (err) => stop(err.message));
      worker.on('exit', (code) => stop(`exit code ${code}`));
    });
  }

  /**
   * Queues the page file `name` (`head` then `body`) and returns its number
   * (1, 2, 3...); 0 when the ring has no room for it now (the caller writes
   * it itself) or the thread has failed.
   */
  queue(name: string, head: string, body: Uint8Array): number {
    return this.put({ name }, head, body)?.seq ?? 0;
  }

  /**
   * Queues a page staged under the temporary name `temp` (for a page file
   * `name`). Returns its number and where its body is in the ring (see
   * `ringBody`); undefined when the ring has no room (or the thread
   * failed): stage it yourself. Publish or discard it later with `settle`.
   */
  stage(temp: string, name: string, head: string, body: Uint8Array): { seq: number; bodyAt: number } | undefined {
    const job = this.put({ op: 'stage', name, temp }, head, body);
    return job === undefined ? undefined : { seq: job.seq, bodyAt: job.at + Buffer.byteLength(head) };
  }

  /** A copy of the `length` bytes at `at` of the ring, a body staged as `seq`, while the thread has not written it; undefined once it has (its place is given back then). */
  ringBody(seq: number, at: number, length: number): Buffer | undefined {
    return this.done >= seq ? undefined : Buffer.from(this.ring.bytes.subarray(at, at + length));
  }

  /** Queues the rename of a page staged by `stage` to `name` (`publish`) or its removal (`discard`); returns its number, 0 when the thread failed. */
  settle(op: 'publish' | 'discard', temp: string, name: string): number {
    if (this.failure !== undefined) return 0;
    this.push({ seq: ++this.seq, op, name, temp, at: 0, length: 0, ringEnd: 0 });
    return this.seq;
  }

  /** Copies a page into the ring and queues its job; undefined when there is no room or the thread failed. */
  private put(what: { name: string; op?: 'stage'; temp?: string }, head: string, body: Uint8Array): PageJob | undefined {
    if (this.failure !== undefined) return undefined;
    const headLength = Buffer.byteLength(head);
    const length = headLength + body.length;
    const place = this.ring.reserve(length + ALIGN_SLACK);
    if (place === undefined) return undefined;
    const bytes = this.ring.bytes;
    // The file is one piece, head then body: it starts where the body's copy is word by word.
    const at = place.offset + alignedFor(body, place.offset, headLength) - headLength;
    Buffer.from(bytes.buffer, at, headLength).write(head, 'utf8');
    bytes.set(body, at + headLength);
    const job: PageJob = { seq: ++this.seq, ...what, at, length, ringEnd: place.end };
    this.push(job);
    return job;
  }

  private push(job: PageJob): void {
    this.batch.push(job);
    if (this.batch.length >= BATCH_PAGES) this.send();
    else if (this.timer === undefined) {
      this.timer = setTimeout(() => this.send(), BATCH_MS);
      this.timer.unref();
    }
  }

  /** Every page up to this number is written. */
  get done(): number {
    return this.waiters.done;
  }

  /** Why a page could not be written (the thread writes nothing after it). */
  get failure(): CrawlerError | undefined {
    return this.waiters.failure;
  }

  /** Resolves once page `seq` (default: the last queued) and every one before it are written; rejects with the failure once a page was not. */
  async written(seq = this.seq): Promise<void> {
    if (seq > this.done && seq > this.sent) this.send();
    await this.waiters.wait(seq);
  }

  /** Writes what is queued and stops the thread; rejects with the failure when a page was not written. */
  async close(): Promise<void> {
    try {
      await this.written();
    } finally {
      this.worker.removeAllListeners('exit');
      await this.worker.terminate();
    }
  }

  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.batch.length === 0) return;
    const message: ToPageThread = { t: 'jobs', jobs: this.batch };
    this.batch = [];
    this.sent = this.seq;
    if (this.failure === undefined) this.worker.postMessage(message);
  }
}
