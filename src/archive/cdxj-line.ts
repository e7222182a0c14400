/**
 * One CDXJ index line (pywb's format, the one ReplayWeb.page and the WACZ
 * spec read): `SURT timestamp14 {json}`, the JSON holding url, mime, status,
 * digest, length, offset and filename, numbers written as strings as pywb's
 * cdxj-indexer and warcio write them.
 *
 * Only `response` and `revisit` records get a line. Replay looks a URL up
 * and takes the capture nearest in time; a `request` or `metadata` record
 * under the same URL would be such a capture and would replay as the page
 * (requests matter to the index only for POST bodies, which we never send).
 */
import { CrawlerError } from '../errors.js';
import { surt } from './surt.js';
import { warcField } from './warc-reader-head.js';
import type { WarcRecordInfo } from './warc-reader.js';

/** An index line before it is written: the sort key apart. */
export interface CdxjEntry {
  /** `SURT timestamp14`: the line's sort key, compared bytewise. */
  key: string;
  json: CdxjFields;
}

/** The JSON part of a line, in the order it is written. */
export interface CdxjFields {
  url: string;
  mime?: string;
  status?: string;
  digest?: string;
  length: string;
  offset: string;
  filename: string;
}

/** What a capture's index line is made of: from a record read back, or from one as it is written. */
export interface CaptureFacts {
  type: 'response' | 'revisit';
  /** WARC-Target-URI. */
  url: string;
  /** WARC-Date. */
  date: string;
  /** WARC-Payload-Digest. */
  digest: string | undefined;
  /** The first bytes of the block (at least its HTTP head). */
  blockStart: Buffer;
  /** Where the record (or its gzip member) starts in its file, and its length there. */
  offset: number;
  length: number;
  /**
   * A server-not-modified revisit (WARC-Profile, WARC 1.1 §6.7.3): its
   * block is a 304's head, but its payload is the earlier capture's, so its
   * line carries no status. ReplayWeb.page (2.4.6, as 2.5.3) serves a
   * capture whose line says 304 as an empty 304 and never reaches the
   * earlier record (test/replay/replay-refresh.test.ts); without a status it
   * serves the earlier payload.
   */
  notModified?: boolean | undefined;
}

/**
 * The index entry for `rec` in the file named `filename` (read from `path`),
 * or undefined when such a record gets none. A response or revisit without
 * a target URI or a valid WARC-Date (both mandatory, WARC 1.1 §5) is refused.
 */
export function cdxjEntry(rec: WarcRecordInfo, filename: string, path = filename): CdxjEntry | undefined {
  if (rec.type !== 'response' && rec.type !== 'revisit') return undefined;
  return captureEntry(
    {
      type: rec.type,
      // WARC 1.0 wrote the URI in angle brackets (a grammar error that 1.1 fixed); readers accept both.
      url: (warcField(rec, 'WARC-Target-URI') ?? '').replace(/^<(.*)>$/, '$1'),
      date: warcField(rec, 'WARC-Date') ?? '',
      digest: warcField(rec, 'WARC-Payload-Digest'),
      blockStart: rec.blockStart,
      offset: rec.offset,
      length: rec.length,
      // Ours name the 1.1 profile; other writers the 1.0 one (and WARC 1.0's annex wrote it without `revisit/`).
      notModified: rec.type === 'revisit' && /\/server-not-modified$/.test(warcField(rec, 'WARC-Profile') ?? ''),
    },
    filename,
    path,
  );
}

/** The index entry for a capture in the file named `filename` (`path`, for the message when it is refused). */
export function captureEntry(c: CaptureFacts, filename: string, path = filename): CdxjEntry {
  const ts = timestamp14(c.date);
  if (c.url === '' || ts === undefined) {
    throw new CrawlerError('ERR_WRITE', `not a valid WARC file: ${path}: a ${c.type} record without WARC-Target-URI or a valid WARC-Date at offset ${c.offset}`);
  }
  const http = httpHead(c.blockStart);
  const mime = c.type === 'revisit' ? 'warc/revisit' : http?.contentType;
  const json: CdxjFields = {
    url: c.url,
    ...(mime === undefined ? {} : { mime }),
    ...(http === undefined || c.notModified === true ? {} : { status: http.status }),
    ...(c.digest === undefined ? {} : { digest: c.digest }),
    length: String(c.length),
    offset: String(c.offset),
    filename,
  };
  return { key: `${surt(c.url)} ${ts}`, json };
}

/** The line as written, with its newline. */
export function cdxjLine(entry: CdxjEntry): string {
  return `${cdxjText(entry)}\n`;
}

/** The line's text, without its newline. */
export function cdxjText(entry: CdxjEntry): string {
  return `${entry.key} ${JSON.stringify(entry.json)}`;
}

/** A character whose UTF-16 code units sort apart from its UTF-8 bytes: U+D800 and up. */
const HIGH = /[\ud800-\uffff]/;

/**
 * An index file's bytes: `lines` (each without its newline) sorted bytewise
 * by whole line, each followed by a newline. This is the order `LC_ALL=C
 * sort` gives the file, the one every reader's binary search assumes: pywb
 * and ReplayWeb.page look a URL up by its key and read on from the first
 * line not below it, so lines with the same key and timestamp must be in
 * byte order too, not in the order their records were written. Sorts
 * `lines` in place.
 */
export function sortedCdxj(lines: string[]): Buffer {
  // UTF-16 code units order as UTF-8 bytes do below U+D800 (URLs, our JSON: nearly always all there is): a plain sort.
  // Beyond it a surrogate would sort below U+E000..U+FFFF, so such lines are compared as bytes.
  if (!lines.some((l) => HIGH.test(l))) lines.sort();
  else {
    const bytes = lines.map((text) => ({ text, utf8: Buffer.from(text) }));
    bytes.sort((a, b) => Buffer.compare(a.utf8, b.utf8));
    for (const [i, b] of bytes.entries()) lines[i] = b.text;
  }
  return Buffer.from(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
}

/** The 14 digits `YYYYMMDDhhmmss` of a WARC-Date (W3C-DTF, fractions allowed), or undefined when it is not one. */
export function timestamp14(warcDate: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$/.exec(warcDate);
  return m === null ? undefined : m.slice(1, 7).join('');
}

/** The status and the media type of the HTTP response head at the start of `block`, or undefined when it is none. */
function httpHead(block: Buffer): { status: string; contentType?: string } | undefined {
  // Only the head is decoded: it ends at the first blank line (LF LF, or LF CR LF).
  const lf = block.indexOf('\n\n', 0, 'latin1');
  const crlf = block.indexOf('\n\r\n', 0, 'latin1');
  const end = lf < 0 ? crlf : crlf < 0 ? lf : Math.min(lf, crlf);
  const text = block.toString('latin1', 0, end < 0 ? block.length : end + 1);
  const m = /^HTTP\/\d(?:\.\d)? +(\d{3})/.exec(text);
  if (m === null) return undefined;
  const lines = text.split(/\r?\n/);
  const out: { status: string; contentType?: string } = { status: m[1] ?? '' };
  for (const line of lines.slice(1)) {
    const f = /^content-type[ \t]*:(.*)$/i.exec(line);
    if (f !== null) {
      // Type and subtype are case-insensitive (RFC 9110 §8.3.1): one spelling for replay to compare.
      const type = (f[1] ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
      if (type !== '') out.contentType = type;
      break;
    }
  }
  return out;
}
