/**
 * The gzip thread's side (a worker_threads Worker, gzip-pool.ts): deflates
 * each record it is sent into a gzip member of ours and sends the members
 * back, so that compression runs on another core than the crawl.
 */
import { parentPort } from 'node:worker_threads';
import { gzipMember } from './warc-gzip.js';

/** A job: the records of one group, each in its own ArrayBuffer (transferred). */
export interface GzipJob {
  id: number;
  records: Uint8Array[];
}

/** Its answer: one member per record, in order. */
export interface GzipDone {
  id: number;
  members: Uint8Array[];
}

parentPort?.on('message', (job: GzipJob) => {
  const members = job.records.map((r) => {
    const m = gzipMember(Buffer.from(r.buffer, r.byteOffset, r.byteLength));
    // A member of its own ArrayBuffer, so it can be transferred back without copying.
    return m.byteOffset === 0 && m.byteLength === m.buffer.byteLength ? m : new Uint8Array(m);
  });
  const done: GzipDone = { id: job.id, members };
  parentPort?.postMessage(done, members.map((m) => m.buffer as ArrayBuffer));
});
