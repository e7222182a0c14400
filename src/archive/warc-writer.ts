/**
 * Writes records into an archive's files: each record in one write, only
 * once it is complete (one gzip member per record for a `.gz` name), in the
 * order they were given, while gzip runs on the threadpool for several
 * records at once. Past `maxSize` it goes on in the next file of the series
 * (`NAME-00002.warc.gz`...), each file starting with its own warcinfo.
 *
 * Files that are not ours are never touched: a file of the series whose first
 * record is not our warcinfo stops the crawl before it starts. Ours are
 * replaced by a new crawl, or with `resume` continued: the last one is cut
 * after its last complete record and written on from there.
 */
import { readdir, rm, truncate, open, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { CrawlerError, describeError } from '../errors.js';
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
  private fh: FileHandle | undefined;
  private index = 1;
  private size = 0;
  private recordsInFile = 0;
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown;
  private readonly written: string[] = [];

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

  /** The first write failure, if any (the archive is then incomplete). */
  get failed(): unknown {
    return this.failure;
  }

  /**
   * Queues serialized records that belong together (an exchange's request,
   * response and metadata): written after every record queued before them,
   * into one file (rotation never parts them), each in one write.
   */
  add(...records: Buffer[]): void {
    const data = Promise.all(records.map((r) => (this.gzip ? gzipMember(r) : r)));
    data.catch(() => undefined); // its failure is reported in order, below
    this.tail = this.tail.then(async () => {
      if (this.failure !== undefined) return;
      try {
        await this.put(await data);
      } catch (err) {
        this.failure = err;
      }
    });
  }

  /** Resolves once every queued record is written. */
  flushed(): Promise<void> {
    return this.tail;
  }

  /** Writes what is queued and closes the file; rejects with ERR_WRITE when a write failed. */
  async close(): Promise<void> {
    await this.tail;
    const fh = this.fh;
    this.fh = undefined;
    if (fh !== undefined) {
      try {
        await fh.sync();
      } finally {
        await fh.close();
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
      this.fh = await open(this.current, 'r+');
      this.recordsInFile = 2; // a continued file may rotate at once
      this.add(this.o.warcinfo(basename(this.current), true));
      return;
    }
    // A new crawl replaces an archive of ours (all of its series).
    for (const i of series) await rm(seriesName(path, i));
    await this.create();
  }

  /** Starts the series' file number `this.index`, with its warcinfo first. Never replaces a file. */
  private async create(): Promise<void> {
    const file = this.current;
    try {
      this.fh = await open(file, 'wx');
    } catch (err) {
      throw refused(file, `cannot be created: ${describeError(err)}`);
    }
    this.written.push(file);
    this.size = 0;
    this.recordsInFile = 0;
    const info = this.o.warcinfo(basename(file), false);
    await this.append(this.gzip ? await gzipMember(info) : info);
  }

  private async put(group: readonly Buffer[]): Promise<void> {
    let length = 0;
    for (const data of group) length += data.length;
    if (this.recordsInFile > 1 && this.size + length > this.o.maxSize) {
      await (this.fh as FileHandle).close();
      this.fh = undefined;
      this.index++;
      await this.create();
    }
    for (const data of group) await this.append(data);
  }

  /** One write of the whole record at the end of the file. */
  private async append(data: Buffer): Promise<void> {
    const fh = this.fh as FileHandle;
    let done = 0;
    while (done < data.length) {
      const { bytesWritten } = await fh.write(data, done, data.length - done, this.size + done);
      done += bytesWritten;
    }
    this.size += data.length;
    this.recordsInFile++;
  }
}
