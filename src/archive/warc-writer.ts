/**
 * Writes records into an archive's files: each record only once it is
 * complete (one gzip member per record for a `.gz` name), in the order they
 * were given, the records of one exchange in one write. Past `maxSize` it
 * goes on in the next file of the series (`NAME-00002.warc.gz`...), each
 * file starting with its own warcinfo.
 *
 * Writing is synchronous, on purpose: the archive's consumer calls it off
 * the socket path (on the next turn of the event loop), and a write to the
 * page cache costs microseconds, where a round trip through the threadpool
 * per record cost more CPU than the write. Gzip runs on a thread of its own
 * (gzip-pool.ts); each group is written as soon as it and every group
 * before it are deflated.
 *
 * Files that are not ours are never touched: a file of the series whose first
 * record is not our warcinfo stops the crawl before it starts. Ours are
 * replaced by a new crawl, or with `resume` continued: the last one is cut
 * after its last complete record and written on from there.
 */
import { closeSync, fsyncSync, openSync, writeSync, writevSync } from 'node:fs';
import { readdir, rm, truncate } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { CrawlerError, describeError } from '../errors.js';
import { GzipPool } from './gzip-pool.js';
import { inspectWarc } from './warc-existing.js';
import { gzipMember } from './warc-gzip.js';
import { isGzipName, seriesIndex, seriesName } from './warc-names.js';

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
  warcinfo: (fileName: string, resumed: boolean) => Buffer;
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
  private readonly pool: GzipPool | undefined;
  /** The last group's write (gzip files: groups wait for their members, in order). */
  private tail: Promise<void> = Promise.resolve();

  private constructor(options: WarcWriterOptions) {
    this.o = options;
    this.gzip = isGzipName(options.path);
    this.pool = this.gzip ? new GzipPool() : undefined;
  }

  /** Opens the archive: checks what is there, then starts a file (or continues the last, with `resume`). Rejects with ERR_WRITE. */
  static async open(options: WarcWriterOptions): Promise<WarcWriter> {
    const w = new WarcWriter(options);
    try {
      await w.start();
    } catch (err) {
      await w.pool?.close();
      throw err;
    }
    return w;
  }

  /** The files written to, in order (with `resume`, the earlier ones of the series too). */
  get files(): readonly string[] {
    return this.written;
  }

  /** The first write failure, if any (nothing is written after it; close() reports it). */
  get failed(): unknown {
    return this.failure;
  }

  /**
   * Writes serialized records that belong together (an exchange's request,
   * response and metadata) after every record written before them, into one
   * file (rotation never parts them), in one write. Resolves once they are
   * written (at once for a plain file); never rejects: a failure is kept for
   * close() to report, and nothing is written after it.
   */
  add(...records: Buffer[]): Promise<void> {
    if (this.pool === undefined) {
      this.write(records);
      return this.tail;
    }
    const members = this.pool.members(records);
    members.catch(() => undefined); // reported in order, below
    this.tail = this.tail.then(async () => {
      let group: Buffer[];
      try {
        group = await members;
      } catch (err) {
        this.failure ??= err;
        return;
      }
      this.write(group);
    });
    return this.tail;
  }

  private write(group: readonly Buffer[]): void {
    if (this.failure !== undefined) return;
    try {
      this.put(group);
    } catch (err) {
      this.failure = err;
    }
  }

  /** Writes what is queued and closes the file; rejects with ERR_WRITE when a write failed. */
  async close(): Promise<void> {
    await this.tail;
    await this.pool?.close();
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) {
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    if (this.failure !== undefined) throw new CrawlerError('ERR_WRITE', `cannot write the archive ${this.current}: ${describeError(this.failure)}`, { cause: this.failure });
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
      this.fd = openSync(this.current, 'r+');
      this.recordsInFile = 2; // a continued file may rotate at once
      this.add(this.o.warcinfo(basename(this.current), true));
      return;
    }
    // A new crawl replaces an archive of ours (all of its series).
    for (const i of series) await rm(seriesName(path, i));
    this.create();
    if (this.failure !== undefined) throw refused(this.current, `cannot be created: ${describeError(this.failure)}`);
  }

  /** Starts the series' file number `this.index`, with its warcinfo first. Never replaces a file. */
  private create(): void {
    const file = this.current;
    this.fd = openSync(file, 'wx');
    this.written.push(file);
    this.size = 0;
    this.recordsInFile = 0;
    const info = this.o.warcinfo(basename(file), false);
    this.append([this.gzip ? gzipMember(info) : info]);
  }

  private put(group: readonly Buffer[]): void {
    let length = 0;
    for (const data of group) length += data.length;
    if (this.recordsInFile > 1 && this.size + length > this.o.maxSize) {
      const fd = this.fd as number;
      this.fd = undefined;
      closeSync(fd);
      this.index++;
      this.create();
    }
    this.append(group);
  }

  /** One write of whole records at the end of the file (repeated only for what a short write left). */
  private append(group: readonly Buffer[]): void {
    const fd = this.fd as number;
    let length = 0;
    for (const data of group) length += data.length;
    let done = writevSync(fd, group as Buffer[], this.size);
    if (done < length) {
      const all = Buffer.concat(group as Buffer[], length);
      while (done < length) done += writeSync(fd, all, done, length - done, this.size + done);
    }
    this.size += length;
    this.recordsInFile += group.length;
  }
}
