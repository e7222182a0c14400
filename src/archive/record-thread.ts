/**
 * The archive's thread (a worker_threads Worker started by
 * record-thread-client.ts): opens the archive, makes and writes the records
 * of the jobs it is sent (record-writer.ts), says after each batch how far
 * it has written, and at the end closes the files and sends the index.
 * Making records (two SHA-1s per exchange, gzip, the write) is most of an
 * archive's cost; here it runs on another core than the crawl.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CrawlerError, describeError } from '../errors.js';
import type { FromRecordThread, RecordThreadData, ThreadFailure, ToRecordThread } from './record-jobs.js';
import { unpackExchange } from './record-jobs.js';
import { RecordWriter } from './record-writer.js';

function failureOf(err: unknown): ThreadFailure {
  return { code: err instanceof CrawlerError ? err.code : 'ERR_WRITE', message: describeError(err) };
}

const port = parentPort;
if (port !== null) {
  const send = (m: FromRecordThread): void => port.postMessage(m);
  const data = workerData as RecordThreadData;
  RecordWriter.open(data).then(
    (writer) => {
      port.on('message', (m: ToRecordThread) => {
        if (m.t === 'jobs') {
          let ringEnd = 0;
          let written = 0;
          for (const job of m.jobs) {
            if (job.kind === 'exchange') ringEnd = Math.max(ringEnd, job.x.ringEnd);
            // After a failed write nothing more is written: the crawl must not count these jobs as kept.
            if (writer.failed !== undefined) continue;
            if (job.kind === 'exchange') writer.exchange(unpackExchange(job.x, data.ring));
            else writer.metadata(job.m);
            if (writer.failed === undefined) written = job.seq;
          }
          // The ring's places of these jobs may be used again, written or not.
          const failed = writer.failed;
          send({ t: 'written', seq: written, ringEnd, failure: failed === undefined ? undefined : failureOf(failed) });
          return;
        }
        try {
          const closed = writer.close();
          send({ t: 'closed', files: closed.files, index: closed.index, failure: undefined });
        } catch (err) {
          send({ t: 'closed', files: [], index: undefined, failure: failureOf(err) });
        }
      });
      send({ t: 'ready' });
    },
    (err: unknown) => send({ t: 'refused', failure: failureOf(err) }),
  );
}
