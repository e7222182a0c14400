/**
 * The page files' thread (a worker_threads Worker started by
 * page-thread-client.ts): writes each page it is sent as `DIR/ID`, atomically
 * (atomic-file.ts), or stages a page under a temporary name and later
 * renames it to its ID or removes it (a page answered ahead of its turn,
 * tse-pagedir.ts stageEarly), and says after each batch how far it has written. The
 * four system calls of a page file (open, writev, close, rename) are a fifth
 * of the crawl thread's work on tmpfs and more on a disk, where ext4's
 * journal can stall them; here they run beside the crawl.
 *
 * The first write that fails is reported with the last page written before
 * it, and nothing after it is written: the crawl stops at that page.
 */
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { CrawlerError, describeError } from '../errors.js';
import { discardStagedSync, publishStagedSync, stageFileSync, writeFileAtomicSync } from './atomic-file.js';
import type { FromPageThread, PageThreadData, ToPageThread } from './page-thread-client.js';

const port = parentPort;
if (port !== null) {
  const data = workerData as PageThreadData;
  const send = (m: FromPageThread): void => port.postMessage(m);
  let failed = false;
  port.on('message', (m: ToPageThread) => {
    if (failed) return;
    let seq = 0;
    let ringEnd = 0;
    for (const job of m.jobs) {
      try {
        const bytes = (): Buffer[] => [Buffer.from(data.ring, job.at, job.length)];
        if (job.op === 'stage') stageFileSync(data.dir, job.name, bytes(), { fsync: data.fsync, temp: job.temp as string });
        else if (job.op === 'publish') publishStagedSync(join(data.dir, job.temp as string), data.dir, job.name);
        else if (job.op === 'discard') discardStagedSync(join(data.dir, job.temp as string));
        else writeFileAtomicSync(data.dir, job.name, bytes(), { fsync: data.fsync });
      } catch (err) {
        failed = true;
        const failure = { code: err instanceof CrawlerError ? err.code : 'ERR_WRITE', message: describeError(err) };
        send({ t: 'written', seq, ringEnd, failure });
        return;
      }
      seq = job.seq;
      ringEnd = Math.max(ringEnd, job.ringEnd);
    }
    send({ t: 'written', seq, ringEnd, failure: undefined });
  });
  send({ t: 'ready' });
}
