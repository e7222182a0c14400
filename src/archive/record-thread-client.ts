/**
 * The crawl's side of the archive's thread (record-thread.ts): starts it,
 * sends it jobs in batches (one message per batch; the bytes are copied once
 * into the shared ring, or, when it is full, moved in a buffer of their
 * own), and tells when a job is written: the thread says how far it has got
 * after each batch, which is what a crawl state's commit waits for (see
 * CrawlArchive.mark).
 *
 * The thread never holds the process open by itself: it is referenced only
 * while someone waits for it.
 */
import { Worker } from 'node:worker_threads';
import { CrawlerError, type ErrorCode } from '../errors.js';
import type { ExchangeInput } from './exchange-records.js';
import { packExchange, type FromRecordThread, type RecordJob, type RecordThreadData, type ThreadFailure, type ToRecordThread } from './record-jobs.js';
import type { PageMetadata, RecordWriterOptions, WrittenArchive } from './record-writer.js';
import { SendRing } from '../thread/send-ring.js';
import { SeqWaiters } from '../thread/seq-waiters.js';
import { threadFile } from '../thread/thread-file.js';

function errorOf(f: ThreadFailure): CrawlerError {
  return new CrawlerError(f.code as ErrorCode, f.message);
}

/** A batch is sent once it holds this many jobs or bytes, or has waited this long. */
const BATCH_JOBS = 64;
const BATCH_BYTES = 512 * 1024;
const BATCH_MS = 50;
/** Most jobs sent and not yet written before room() waits: what the archive may hold in memory (about 100 pages). */
const MAX_BACKLOG = 256;
/**
 * The thread's young generation, capped: everything it allocates for a
 * batch (record heads, deflated members, digests) is garbage once the batch
 * is written, yet V8 sized its young generation by the allocation rate, to
 * tens of MiB of resident memory. Capped, the archive's peak RSS falls by
 * about a quarter with no more CPU (docs/performance.md, The cost of
 * `--warc`).
 */
const RECORD_THREAD_YOUNG_MB = 4;

export class RecordThread {
  private readonly worker: Worker;
  private readonly ring: SendRing;
  private seq = 0;
  /** The last job sent to the thread, and the last it has written. */
  private sent = 0;
  private batch: RecordJob[] = [];
  private transfer: ArrayBuffer[] = [];
  private batchBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly waiters: SeqWaiters;
  private closing: ((m: Extract<FromRecordThread, { t: 'closed' }>) => void) | undefined;
  /** The thread itself has ended (an error or an exit): it can close nothing. */
  private exited = false;

  private constructor(worker: Worker, ring: SendRing) {
    this.worker = worker;
    this.ring = ring;
    this.waiters = new SeqWaiters((held) => (held ? worker.ref() : worker.unref()));
  }

  /** Starts the thread, which opens the archive (refusing a file that is not ours); rejects with ERR_WRITE. */
  static open(options: RecordWriterOptions): Promise<RecordThread> {
    const ring = new SendRing();
    const data: RecordThreadData = { ...options, ring: ring.shared };
    const worker = new Worker(threadFile('record-thread', 'archive/record-thread.js'), { workerData: data, resourceLimits: { maxYoungGenerationSizeMb: RECORD_THREAD_YOUNG_MB } });
    const thread = new RecordThread(worker, ring);
    return new Promise<RecordThread>((resolve, reject) => {
      let opened = false;
      worker.on('message', (m: FromRecordThread) => {
        if (m.t === 'ready') {
          opened = true;
          worker.unref();
          resolve(thread);
        } else if (m.t === 'refused') {
          void worker.terminate();
          reject(errorOf(m.failure));
        } else if (m.t === 'written') {
          thread.ring.release(m.ringEnd);
          thread.waiters.doneThrough(m.seq);
          if (m.failure !== undefined) thread.waiters.fail(errorOf(m.failure));
        }
        else thread.closing?.(m);
      });
      const stop = (why: string): void => {
        const err = new CrawlerError('ERR_WRITE', `the archive's thread stopped: ${why}`);
        if (!opened) {
          reject(err);
          return;
        }
        thread.exited = true;
        thread.waiters.fail(err);
        thread.closing?.({ t: 'closed', files: [], index: undefined, failure: { code: err.code, message: err.message } });
      };
      worker.on('error', (err) => stop(err.message));
      worker.on('exit', (code) => stop(`exit code ${code}`));
    });
  }

  /** Queues an exchange's records; returns the job's number. */
  exchange(x: ExchangeInput): number {
    const packed = packExchange(x, this.ring);
    if (packed.bytes !== undefined) this.transfer.push(packed.bytes.buffer as ArrayBuffer);
    this.batchBytes += packed.requestLength + packed.responseLength;
    return this.queue({ kind: 'exchange', seq: ++this.seq, x: packed });
  }

  /** Queues a page's metadata record; returns the job's number. */
  metadata(m: PageMetadata): number {
    return this.queue({ kind: 'metadata', seq: ++this.seq, m });
  }

  /**
   * Sends what is queued, in one message, once there is enough of it (or
   * `now`): each message wakes the thread, which costs the crawl's thread
   * more than copying the bytes.
   */
  flush(now = false): void {
    if (this.batch.length === 0) return;
    if (!now && this.batch.length < BATCH_JOBS && this.batchBytes < BATCH_BYTES) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.batchBytes = 0;
    const message: ToRecordThread = { t: 'jobs', jobs: this.batch };
    this.sent = this.seq;
    const transfer = this.transfer;
    this.batch = [];
    this.transfer = [];
    if (this.waiters.failure === undefined) this.worker.postMessage(message, transfer);
  }

  /** The number of the last job queued (0 before the first). */
  get last(): number {
    return this.seq;
  }

  /**
   * True when job `seq` and every job before it are written. After a failure
   * it stays false for every job the archive did not keep, so that a crawl
   * state never counts their pages as done.
   */
  isWritten(seq: number): boolean {
    return seq <= this.waiters.done;
  }

  /** Resolves when the jobs not yet written are few enough (memory stays bounded when the thread is slower than the crawl); rejects as written() does. */
  room(): Promise<void> {
    return this.written(this.seq - MAX_BACKLOG);
  }

  /**
   * Resolves once job `seq` and every job before it are written (sending it
   * first, if it waits in the batch). Rejects with ERR_WRITE once the archive
   * has failed, whatever `seq`: a crawl must stop writing pages it cannot
   * archive.
   */
  written(seq: number): Promise<void> {
    if (seq > this.waiters.done && seq > this.sent) this.flush(true);
    return this.waiters.wait(seq);
  }

  /** Writes what is queued, closes the files and stops the thread; rejects with ERR_WRITE when a write failed. */
  async close(): Promise<WrittenArchive> {
    this.flush(true);
    this.worker.ref();
    const closed = await new Promise<Extract<FromRecordThread, { t: 'closed' }>>((resolve) => {
      this.closing = resolve;
      // A thread whose write failed still closes its files (and says why it failed).
      if (!this.exited) this.worker.postMessage({ t: 'close' } satisfies ToRecordThread);
      else {
        const { code, message } = this.waiters.failure as CrawlerError;
        resolve({ t: 'closed', files: [], index: undefined, failure: { code, message } });
      }
    });
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
    if (closed.failure !== undefined) throw errorOf(closed.failure);
    return { files: closed.files, index: closed.index };
  }

  private queue(job: RecordJob): number {
    this.batch.push(job);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => this.flush(true), BATCH_MS);
      this.timer.unref();
    }
    return job.seq;
  }

}
