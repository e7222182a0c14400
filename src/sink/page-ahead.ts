/**
 * A TSE page staged on disk ahead of its turn (TsePageDirectory.stageEarly):
 * a broad crawl holds thousands of them at once, so each is one small
 * object of plain fields (no closures) and its body is on disk, or in the
 * page files' thread's ring until the thread has written it.
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { readFullySync } from './body-spill.js';
import { CrawlerError, describeError } from '../errors.js';
import type { EarlyStagedPage } from './page-sink.js';

/** What a page staged ahead asks of its directory. */
export interface AheadOwner {
  readonly dir: string;
  /** Puts the staged file `temp` in place as document `id` (the next ID); `seq` > 0: the thread staged it. */
  publishAhead(page: PageAhead, id: number): void;
  /** Removes it. */
  discardAhead(page: PageAhead): void;
  /** Its body from the thread's ring while the thread has not written it, else undefined. */
  ringBody(page: PageAhead): Buffer | undefined;
}

export class PageAhead implements EarlyStagedPage {
  constructor(
    private readonly owner: AheadOwner,
    readonly key: string,
    readonly depth: number,
    /** Its temporary name in the directory. */
    readonly temp: string,
    /** Bytes of its two lines, before the body. */
    readonly headLength: number,
    readonly length: number,
    /** The thread's number for its staging, 0 when staged here. */
    readonly seq: number,
    /** Where its body starts in the thread's ring (with `seq`). */
    readonly ringAt: number,
  ) {}

  publish(id: number): void {
    this.owner.publishAhead(this, id);
  }

  discard(): void {
    this.owner.discardAhead(this);
  }

  body(): Buffer {
    return this.owner.ringBody(this) ?? this.readFile();
  }

  /** The body, from its file. Throws ERR_STATE. */
  private readFile(): Buffer {
    const path = join(this.owner.dir, this.temp);
    const body = Buffer.allocUnsafeSlow(this.length);
    let fd = -1;
    try {
      fd = openSync(path, 'r');
      readFullySync(fd, body, this.headLength);
      return body;
    } catch (err) {
      throw new CrawlerError('ERR_STATE', `cannot read back a page answered ahead from ${path}: ${describeError(err)}`, { cause: err });
    } finally {
      if (fd !== -1) closeSync(fd);
    }
  }
}
