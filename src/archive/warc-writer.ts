/**
 * Writes records into an archive's files: each record only once it is
 * complete (one gzip member per record for a `.gz` name), in the order they
 * were given, the records of one exchange in one write. Past `maxSize` it
 * goes on in the next file of the series (`NAME-00002.warc.gz`...), each
 * file starting with its own warcinfo.
 *
 * Everything here is synchronous, on purpose: the writer runs on the
 * archive's own thread (record-thread.ts), off the crawl's, where a write to
 * the page cache costs microseconds and a round trip through the threadpool
 * per record would cost more than the write. Each write says where its
 * records went, for the index.
 *
 * Files that are not ours are never touched: a file of the series whose first
 * record is not our warcinfo stops the crawl before it starts. Ours are
 * replaced by a new crawl, or with `resume` continued: the last one is cut
 * after its last complete record and written on from there.
 */
import { closeSync, fsyncSync, ftruncateSync, openSync, writeSync, writevSync } from 'node:fs';
import { readdir, rm, truncate } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { CrawlerError, describeError, writeError } from '../errors.js';
import { inspectWarc } from './warc-existing.js';
import { gzipMember } from './warc-gzip.js';
import { isGzipName, seriesIndex, seriesName } from '../sink/warc-names.js';
import { recordLength, type RecordBytes } from './warc-record.js';

/** A gathering buffer larger than this (a record of a very large page) is not kept after its use. */
const MAX_SCRATCH = 4 * 1024 * 1024;

/** Default of --warc-max-size: 1 GB, as Heritrix and wget. */
export const DEFAULT_WARC_MAX_SIZE = 1_000_000_000;

export interface WarcWriterOptions {
  /** The first file's name; `.gz` at the end means one gzip member per record. */
  path: string;
  /** A file is not made larger than this, unless one record alone is. */
  maxSize: number;
  /** Continue our own archive at `path` instead of replacing it. */
  resume: boolean;
  /** The warcinfo record that starts each file (serialized), given the file's name; `resumed` when a file is continued. */
  warcinfo: (fileName: string, resumed: boolean) => RecordBytes;
}

/** Where a record went: its file's base name, and its offset and length there (of its gzip member, in a `.gz` file). */
export interface RecordPlace {
  file: string;
  offset: number;
  length: number;
}

function refused(path: string, why: string): CrawlerError {
  return new CrawlerError('ERR_WRITE', `--warc: ${path} ${why}`);
}

export class WarcWriter {
  private readonly o: WarcWriterOptions;
  private readonly gzip: boolean;
  private fd: number | undefined;
  private index = 1;
  private size = 0;
  private recordsInFile = 0;
  private failure: unknown;
  private readonly written: string[] = [];
  private scratch: Buffer = Buffer.alloc(0);

  private constructor(options: WarcWriterOptions) {
    this.o = options;
    this.gzip = isGzipName(options.path);
  }

  /** Opens the archive: checks what is there, then starts a file (or continues the last, with `resume`). Rejects with ERR_WRITE. */
  static async open(options: WarcWriterOptions): Promise<WarcWriter> {
    const w = new WarcWriter(options);
    await w.start();
    return w;
  }

  /** The files written to, in order (with `resume`, the earlier ones of the series too). */
  get files(): readonly string[] {
    return this.written;
  }

  /** The first write failure, as the error close() throws, if any (nothing is written after it). */
  get failed(): CrawlerError | undefined {
    if (this.failure === undefined) return undefined;
    return writeError('ERR_WRITE', `the archive ${this.current}`, this.failure);
  }

  /**
   * Writes serialized records that belong together (an exchange's request,
   * response and metadata) after every record written before them, into one
   * file (rotation never parts them), in one write, each its own gzip member
   * in a `.gz` file. Says where each went; undefined after a failure, which
   * is kept for close() to report (nothing is written after it).
   */
  add(...records: RecordBytes[]): RecordPlace[] | undefined {
    if (this.failure !== undefined) return undefined;
    try {
      return this.put(this.gzip ? records.map((r) => [this.member(r)]) : records);
    } catch (err) {
      this.failure = err;
      // A write cut short (a full disk) leaves part of a record: the file goes back to its last whole record.
      if (this.fd !== undefined) {
        try {
          ftruncateSync(this.fd, this.size);
        } catch {
          // --resume cuts it then
        }
      }
      return undefined;
    }
  }

  /** Syncs and closes the file; throws ERR_WRITE when a write failed. */
  close(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) {
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    const failed = this.failed;
    if (failed !== undefined) throw failed;
  }

  private get current(): string {
    return seriesName(this.o.path, this.index);
  }

  private async start(): Promise<void> {
    const { path, resume } = this.o;
    let names: string[];
    try {
      names = await readdir(dirname(path));
    } catch (err) {
      throw refused(path, `cannot be written: ${describeError(err)}`);
    }
    const series = names.flatMap((n) => {
      const i = seriesIndex(path, n);
      return i === undefined ? [] : [i];
    }).sort((a, b) => a - b);
    for (const i of series) {
      const file = seriesName(path, i);
      const last = i === series[series.length - 1];
      let info;
      try {
        info = await inspectWarc(file, resume && last);
      } catch (err) {
        throw refused(file, `cannot be read: ${describeError(err)}`);
      }
      if (!info.ours) throw refused(file, 'exists and is not an archive this program wrote; not overwriting it');
      if (resume && last) {
        await truncate(file, info.end);
        this.index = i;
        this.size = info.end;
      }
    }
    if (resume && series.length > 0) {
      for (const i of series) this.written.push(seriesName(path, i));
      try {
        this.fd = openSync(this.current, 'r+');
      } catch (err) {
        throw refused(this.current, `cannot be written: ${describeError(err)}`);
      }
      this.recordsInFile = 2; // a continued file may rotate at once
      this.add(this.o.warcinfo(basename(this.current), true));
      if (this.failure !== undefined) throw refused(this.current, `cannot be written: ${describeError(this.failure)}`);
      return;
    }
    // A new crawl replaces an archive of ours (all of its series).
    for (const i of series) await rm(seriesName(path, i));
    try {
      this.create();
    } catch (err) {
      throw refused(this.current, `cannot be created: ${describeError(err)}`);
    }
  }

  /** Starts the series' file number `this.index`, with its warcinfo first. Never replaces a file. */
  private create(): void {
    const file = this.current;
    this.fd = openSync(file, 'wx');
    this.written.push(file);
    this.size = 0;
    this.recordsInFile = 0;
    const info = this.o.warcinfo(basename(file), false);
    this.append([this.gzip ? [this.member(info)] : info]);
  }

  /** A record's gzip member; its parts are gathered in a buffer kept for the purpose (one allocation per member, the member's own). */
  private member(record: RecordBytes): Buffer {
    if (record.length === 1) return gzipMember(record[0] as Buffer);
    const length = recordLength(record);
    if (this.scratch.length < length) this.scratch = Buffer.allocUnsafeSlow(Math.max(length, 2 * this.scratch.length));
    let at = 0;
    for (const part of record) at += part.copy(this.scratch, at);
    const member = gzipMember(this.scratch.subarray(0, length));
    if (this.scratch.length > MAX_SCRATCH) this.scratch = Buffer.alloc(0);
    return member;
  }

  private put(group: readonly RecordBytes[]): RecordPlace[] {
    let length = 0;
    for (const record of group) length += recordLength(record);
    if (this.recordsInFile > 1 && this.size + length > this.o.maxSize) {
      const fd = this.fd as number;
      this.fd = undefined;
      closeSync(fd);
      this.index++;
      this.create();
    }
    return this.append(group);
  }

  /** One write of whole records at the end of the file (repeated only for what a short write left). */
  private append(group: readonly RecordBytes[]): RecordPlace[] {
    const fd = this.fd as number;
    const file = basename(this.current);
    const places: RecordPlace[] = [];
    const parts: Buffer[] = [];
    let length = 0;
    for (const record of group) {
      const n = recordLength(record);
      places.push({ file, offset: this.size + length, length: n });
      length += n;
      parts.push(...record);
    }
    let done = writevSync(fd, parts, this.size);
    if (done < length) {
      const all = Buffer.concat(parts, length);
      while (done < length) done += writeSync(fd, all, done, length - done, this.size + done);
    }
    this.size += length;
    this.recordsInFile += group.length;
    return places;
  }
}
