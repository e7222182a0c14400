/**
 * The archive's work, as its own thread does it (record-thread.ts): an
 * exchange's records (digests, bytes, a revisit when its payload was
 * archived before) and a page's metadata record are made and written, each
 * group in one write, and the index entry of every response and revisit is
 * taken as it is written (its file, offset and length are known then), so
 * the index needs no second reading of the archive.
 */
import type { CrawlerError } from '../errors.js';
import { captureEntry, type CdxjEntry } from './cdxj-line.js';
import { sha1Digest } from './digest.js';
import { exchangeRecords, type Capture, type ExchangeInput } from './exchange-records.js';
import { BLOCK_START_BYTES } from './warc-reader.js';
import { newRecordId, serializeRecord } from './warc-record.js';
import { warcinfoRecord, type CrawlDescription } from './warcinfo.js';
import { WarcWriter } from './warc-writer.js';

export interface RecordWriterOptions extends CrawlDescription {
  path: string;
  maxSize: number;
  resume: boolean;
}

/** A page's metadata record, as the crawl's thread describes it. */
export interface PageMetadata {
  uri: string;
  date: string;
  /** The page's response record, when it has one. */
  concurrentTo: string | undefined;
  /** The block: `application/warc-fields` text (warcFieldsText; one string crosses threads far cheaper than a list). */
  fields: string;
}

/** What the archive is when it is closed. */
export interface WrittenArchive {
  files: string[];
  /**
   * The index entries of this run's captures, in the order written; undefined
   * for a resumed archive, whose earlier captures only a reading finds.
   */
  index: CdxjEntry[] | undefined;
}

/** Payload digests remembered for revisits (oldest forgotten first): memory stays bounded on a crawl of millions of pages. */
const MAX_PAYLOADS = 100_000;

export class RecordWriter {
  private readonly writer: WarcWriter;
  private readonly payloads = new Map<string, Capture>();
  private readonly index: CdxjEntry[] | undefined;

  private constructor(writer: WarcWriter, resume: boolean) {
    this.writer = writer;
    this.index = resume ? undefined : [];
  }

  /** Opens the archive (refusing a file that is not ours); rejects with ERR_WRITE. */
  static async open(options: RecordWriterOptions): Promise<RecordWriter> {
    const writer = await WarcWriter.open({
      path: options.path,
      maxSize: options.maxSize,
      resume: options.resume,
      warcinfo: (name, resumed) => warcinfoRecord(name, options, resumed),
    });
    return new RecordWriter(writer, options.resume);
  }

  /** Writes an exchange's records. A write failure is kept for close() to report. */
  exchange(x: ExchangeInput): void {
    const made = exchangeRecords(x, (digest) => this.payloads.get(digest));
    const places = this.writer.add(...made.records);
    // A response cut short is no capture of its payload for a later one to refer to; a 304's payload is
    // held by the earlier record it refers to (when the earlier crawl archived it), never by the revisit.
    const holder = made.notModified ? x.notModified?.refersTo : made.response;
    if (holder !== undefined && made.payloadDigest !== undefined && x.truncated === undefined && !this.payloads.has(made.payloadDigest)) {
      this.payloads.set(made.payloadDigest, holder);
      if (this.payloads.size > MAX_PAYLOADS) this.payloads.delete(this.payloads.keys().next().value as string);
    }
    const at = made.responseAt;
    const place = at === undefined ? undefined : places?.[at];
    if (this.index === undefined || place === undefined) return;
    // A revisit's block is the response's head; what the index reads of a block (status, type) is in the head either way.
    const blockStart = x.response.subarray(0, BLOCK_START_BYTES);
    this.index.push(
      captureEntry(
        { type: made.revisit ? 'revisit' : 'response', url: x.uri, date: x.date, digest: made.payloadDigest, blockStart, offset: place.offset, length: place.length, notModified: made.notModified },
        place.file,
      ),
    );
  }

  /** Writes a page's metadata record: its depth, where it was found, its outlinks. */
  metadata(m: PageMetadata): void {
    const block = Buffer.from(m.fields, 'utf8');
    this.writer.add(
      serializeRecord({
        type: 'metadata',
        fields: [
          ['WARC-Record-ID', newRecordId()],
          ['WARC-Date', m.date],
          ['WARC-Target-URI', m.uri],
          ['WARC-Concurrent-To', m.concurrentTo],
          ['Content-Type', 'application/warc-fields'],
          ['WARC-Block-Digest', sha1Digest(block)],
        ],
        block: [block],
      }),
    );
  }

  /** The first write failure, if any: nothing is written after it. */
  get failed(): CrawlerError | undefined {
    return this.writer.failed;
  }

  /** Syncs and closes the files; throws ERR_WRITE when a write failed. */
  close(): WrittenArchive {
    this.writer.close();
    return { files: [...this.writer.files], index: this.index };
  }
}
