/**
 * A WACZ holds `.warc.gz` files (WACZ 1.1.1, "archive"), one gzip member per
 * record so that a replayer can fetch and inflate one record with a range
 * request. A plain WARC is gzipped record by record into a new file here,
 * and the caller learns where each record went, to point the index at it.
 */
import { open } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { CrawlerError } from '../errors.js';
import { readWarcRecords } from './warc-reader.js';

/** Where a record of the plain file now is in the gzip file. */
export interface MovedRecord {
  offset: number;
  length: number;
}

/**
 * Writes the records of the plain WARC `source` to `target` (which must
 * exist, empty: the caller made it), each as its own gzip member, and
 * returns a map from each record's offset in `source` to its member.
 */
export async function gzipPerRecord(source: string, target: string): Promise<Map<number, MovedRecord>> {
  const moved = new Map<number, MovedRecord>();
  const src = await open(source, 'r');
  try {
    const out = await open(target, 'r+');
    try {
      let at = 0;
      for await (const rec of readWarcRecords(source)) {
        const bytes = Buffer.allocUnsafe(rec.length);
        const { bytesRead } = await src.read(bytes, 0, rec.length, rec.offset);
        if (bytesRead !== rec.length) throw new CrawlerError('ERR_WRITE', `cannot read WARC ${source}: it changed while it was packaged`);
        const member = gzipSync(bytes);
        await out.write(member, 0, member.length, at);
        moved.set(rec.offset, { offset: at, length: member.length });
        at += member.length;
      }
    } finally {
      await out.close();
    }
  } finally {
    await src.close();
  }
  return moved;
}
