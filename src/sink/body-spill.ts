/**
 * Where the bodies of answers that arrived ahead of their turn wait, when
 * there are too many to keep in memory. A broad crawl fetches ahead across
 * hundreds of hosts while it hands pages out in breadth-first order, so a
 * page answered early may wait its turn for many seconds; held in memory,
 * thousands of them would be hundreds of MB. They go to one file instead,
 * opened and unlinked at once: nothing is left on disk after the crawl, a
 * crash included, and the space is the file system's to reclaim.
 */
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError, describeError } from '../errors.js';

/** A body put away: read it back once with `take`. */
export interface SpilledBody {
  readonly offset: number;
  readonly length: number;
}

export interface BodySpill {
  /** Puts a body away; its memory may then be released. */
  put(body: Buffer): SpilledBody;
  /** The body put away (each once). */
  take(spilled: SpilledBody): Buffer;
  /** Closes the file (the space is freed). */
  close(): void;
}

let files = 0;

/** Fills `buffer` from the file `fd` at `position`; throws when the file ends first. */
export function readFullySync(fd: number, buffer: Buffer, position: number): void {
  for (let done = 0; done < buffer.length; ) {
    const n = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (n === 0) throw new Error('the file ended early');
    done += n;
  }
}

/** A spill in an anonymous file of `dir` (the crawl's own directory: the user's disk, not a tmpfs in memory). */
export class FileBodySpill implements BodySpill {
  private fd: number | undefined;
  private end = 0;
  /** Bodies put away and not taken back: when none is left, the file starts again from 0. */
  private out = 0;

  constructor(private readonly dir: string) {}

  put(body: Buffer): SpilledBody {
    const fd = this.open();
    const spilled = { offset: this.end, length: body.length };
    try {
      for (let done = 0; done < body.length; ) done += writeSync(fd, body, done, body.length - done, spilled.offset + done);
    } catch (err) {
      throw new CrawlerError('ERR_WRITE', `cannot keep a page answered ahead in ${this.dir}: ${describeError(err)}`, { cause: err });
    }
    this.end += body.length;
    this.out++;
    return spilled;
  }

  take(spilled: SpilledBody): Buffer {
    const body = Buffer.allocUnsafe(spilled.length);
    try {
      readFullySync(this.fd as number, body, spilled.offset);
    } catch (err) {
      throw new CrawlerError('ERR_STATE', `cannot read back a page answered ahead from ${this.dir}: ${describeError(err)}`, { cause: err });
    }
    if (--this.out === 0) this.end = 0; // nothing else waits: the next bodies overwrite from the start
    return body;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private open(): number {
    if (this.fd !== undefined) return this.fd;
    // A temporary name of ours (atomic-file.ts's pattern), unlinked at once: only the open descriptor keeps it.
    const path = join(this.dir, `.tmp-${process.pid}-0-ahead-${++files}`);
    try {
      this.fd = openSync(path, 'wx+', 0o600);
      unlinkSync(path);
    } catch (err) {
      throw new CrawlerError('ERR_WRITE', `cannot keep pages answered ahead in ${this.dir}: ${describeError(err)}`, { cause: err });
    }
    return this.fd;
  }
}
