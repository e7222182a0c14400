/**
 * A small reader of WARC files for the index and the package: it walks the
 * records of a file and says where each one starts and how long it is on
 * disk, which is what a CDXJ line points at. A file whose first bytes are the
 * gzip magic is read as one gzip member per record (WARC 1.1 annex D.2), and
 * then offset and length are those of the member, so that a reader can seek
 * to it and inflate it alone; otherwise they are those of the record itself
 * (header, block and the CRLF CRLF after it).
 *
 * Each record is checked as it is read: a `WARC/` version line, a
 * Content-Length, CRLF CRLF after the block, and for a gzip member its CRC-32
 * and size and that it holds exactly one record. A file that breaks a rule is
 * refused with one line naming the file and the offset.
 *
 * Memory: a plain record is never read whole (its header and the first bytes
 * of its block are); a gzip member is inflated whole, so the largest record
 * bounds the memory, as it does for the writer, which writes whole records.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import { CrawlerError } from '../errors.js';
import { parseWarcHead, type WarcHead } from './warc-reader-head.js';

export type { WarcHead } from './warc-reader-head.js';

/** How much of a block the reader keeps: enough for any HTTP head we write. */
export const BLOCK_START_BYTES = 64 * 1024;
/** The largest WARC header block accepted. */
const MAX_HEAD_BYTES = 1024 * 1024;
/** The first read of a gzip member; it grows fourfold while the member goes on. */
const FIRST_WINDOW = 64 * 1024;
/** How much is read from the file at once. */
const READ_AHEAD = 1024 * 1024;
const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');

/** One record, as the index needs it. */
export interface WarcRecordInfo extends WarcHead {
  /** Where the record (or its gzip member) starts in the file. */
  offset: number;
  /** Its length on disk: the gzip member, or header + block + CRLF CRLF. */
  length: number;
  /** The first bytes of the block (at most BLOCK_START_BYTES): an HTTP head, for a response. */
  blockStart: Buffer;
}

/** Reads the records of the WARC file at `path`, plain or one gzip member per record. */
export async function* readWarcRecords(path: string): AsyncGenerator<WarcRecordInfo> {
  let fh: FileHandle;
  try {
    fh = await open(path, 'r');
  } catch (err) {
    throw new CrawlerError('ERR_WRITE', `cannot read WARC ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { cause: err });
  }
  try {
    const size = (await fh.stat()).size;
    const magic = await readAt(fh, 0, 2);
    const gzip = magic.length === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
    const win = new FileWindow({ fh, size, path });
    for (let offset = 0; offset < size; ) {
      const rec = gzip ? await readGzipMember(win, offset) : await readPlainRecord(win, offset);
      yield rec;
      offset += rec.length;
    }
  } finally {
    await fh.close();
  }
}

interface OpenWarc {
  fh: FileHandle;
  size: number;
  path: string;
}

function bad(file: OpenWarc, offset: number, what: string): CrawlerError {
  return new CrawlerError('ERR_WRITE', `not a valid WARC file: ${file.path}: ${what} at offset ${offset}`);
}

/** Reads up to `length` bytes at `position` (fewer only at the end of the file), into a new buffer. */
async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return buf.subarray(0, got);
}

/**
 * Reads through a window of the file (READ_AHEAD bytes at a time), so that
 * small records cost no system call each. `bytes` returns a view that is
 * good until the next call: keep a copy of what must last.
 */
class FileWindow {
  private start = 0;
  private buf: Buffer = Buffer.alloc(0);

  constructor(readonly file: OpenWarc) {}

  /** Up to `length` bytes at `position` (fewer only at the end of the file). */
  async bytes(position: number, length: number): Promise<Buffer> {
    const want = Math.min(length, this.file.size - position);
    if (position < this.start || position + want > this.start + this.buf.length) {
      this.buf = await readAt(this.file.fh, position, Math.max(want, READ_AHEAD));
      this.start = position;
    }
    return this.buf.subarray(position - this.start, position - this.start + want);
  }
}

async function readPlainRecord(win: FileWindow, offset: number): Promise<WarcRecordInfo> {
  const file = win.file;
  let want = Math.min(FIRST_WINDOW, file.size - offset);
  let buf = await win.bytes(offset, want);
  let end = buf.indexOf(CRLFCRLF);
  while (end < 0 && want < MAX_HEAD_BYTES && offset + want < file.size) {
    want = Math.min(want * 4, MAX_HEAD_BYTES, file.size - offset);
    buf = await win.bytes(offset, want);
    end = buf.indexOf(CRLFCRLF);
  }
  if (end < 0) throw bad(file, offset, 'no end of the WARC header');
  const head = headOrBad(file, offset, buf.subarray(0, end + 2));
  const blockAt = end + 4;
  const total = blockAt + head.contentLength + 4;
  if (offset + total > file.size) throw bad(file, offset, 'record cut short (Content-Length runs past the end of the file)');
  const startLen = Math.min(head.contentLength, BLOCK_START_BYTES);
  const blockStart = Buffer.from(await win.bytes(offset + blockAt, startLen));
  const tail = await win.bytes(offset + blockAt + head.contentLength, 4);
  if (!tail.equals(CRLFCRLF)) throw bad(file, offset, 'no CRLF CRLF after the block');
  return { ...head, offset, length: total, blockStart };
}

async function readGzipMember(win: FileWindow, offset: number): Promise<WarcRecordInfo> {
  const file = win.file;
  let window = Math.min(FIRST_WINDOW, file.size - offset);
  for (;;) {
    const buf = await win.bytes(offset, window);
    const headerLen = gzipHeaderLength(buf);
    if (headerLen === null) throw bad(file, offset, 'not a gzip member (a .gz WARC must be all gzip members)');
    if (headerLen === undefined) {
      if (offset + window < file.size) {
        window = Math.min(window * 4, file.size - offset);
        continue;
      }
      throw bad(file, offset, 'no gzip member header');
    }
    let record: Buffer;
    let consumed: number;
    try {
      const out = inflateRawSync(buf.subarray(headerLen), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      record = out.buffer;
      consumed = out.engine.bytesWritten;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'Z_BUF_ERROR' && offset + window < file.size) {
        window = Math.min(window * 4, file.size - offset);
        continue;
      }
      throw bad(file, offset, code === 'Z_BUF_ERROR' ? 'gzip member cut short' : `bad gzip data (${code ?? String(err)})`);
    }
    const trailerAt = offset + headerLen + consumed;
    const trailer = await win.bytes(trailerAt, 8);
    if (trailer.length < 8) throw bad(file, offset, 'gzip member cut short');
    if (trailer.readUInt32LE(0) !== crc32(record) || trailer.readUInt32LE(4) !== record.length % 2 ** 32) {
      throw bad(file, offset, 'gzip member fails its CRC-32 or size check');
    }
    return { ...recordInMember(file, offset, record), offset, length: trailerAt + 8 - offset };
  }
}

/** The WARC record that a gzip member inflates to: exactly one, whole. */
function recordInMember(file: OpenWarc, offset: number, record: Buffer): WarcHead & { blockStart: Buffer } {
  const end = record.indexOf(CRLFCRLF);
  if (end < 0 || end > MAX_HEAD_BYTES) throw bad(file, offset, 'no end of the WARC header in the gzip member');
  const head = headOrBad(file, offset, record.subarray(0, end + 2));
  const blockAt = end + 4;
  const total = blockAt + head.contentLength + 4;
  if (record.length < total) throw bad(file, offset, 'record cut short inside its gzip member');
  if (!record.subarray(total - 4, total).equals(CRLFCRLF)) throw bad(file, offset, 'no CRLF CRLF after the block');
  if (record.length > total) throw bad(file, offset, 'gzip member holds more than one record (not one member per record)');
  const blockStart = Buffer.from(record.subarray(blockAt, blockAt + Math.min(head.contentLength, BLOCK_START_BYTES)));
  return { ...head, blockStart };
}

function headOrBad(file: OpenWarc, offset: number, bytes: Buffer): WarcHead {
  const head = parseWarcHead(bytes);
  if (typeof head === 'string') throw bad(file, offset, head);
  return head;
}

/**
 * The length of the gzip member header at the start of `buf` (RFC 1952 §2.3),
 * undefined if `buf` ends first, null if it is no gzip member (no magic, or not deflate).
 */
function gzipHeaderLength(buf: Buffer): number | undefined | null {
  if (buf.length >= 3 && (buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8)) return null;
  if (buf.length < 10) return undefined;
  const flags = buf[3] ?? 0;
  let at = 10;
  if (flags & 4) {
    if (buf.length < at + 2) return undefined;
    at += 2 + buf.readUInt16LE(at);
  }
  for (const bit of [8, 16]) {
    if (flags & bit) {
      const nul = buf.indexOf(0, at);
      if (nul < 0) return undefined;
      at = nul + 1;
    }
  }
  if (flags & 2) at += 2;
  return at <= buf.length ? at : undefined;
}
