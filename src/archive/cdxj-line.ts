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

/**
 * The index entry for `rec` in the file named `filename` (read from `path`),
 * or undefined when such a record gets none. A response or revisit without
 * a target URI or a valid WARC-Date (both mandatory, WARC 1.1 §5) is refused.
 */
export function cdxjEntry(rec: WarcRecordInfo, filename: string, path = filename): CdxjEntry | undefined {
  if (rec.type !== 'response' && rec.type !== 'revisit') return undefined;
  // WARC 1.0 wrote the URI in angle brackets (a grammar error that 1.1 fixed); readers accept both.
  const url = (warcField(rec, 'WARC-Target-URI') ?? '').replace(/^<(.*)>$/, '$1');
  const ts = timestamp14(warcField(rec, 'WARC-Date') ?? '');
  if (url === '' || ts === undefined) {
    throw new CrawlerError('ERR_WRITE', `not a valid WARC file: ${path}: a ${rec.type} record without WARC-Target-URI or a valid WARC-Date at offset ${rec.offset}`);
  }
  const http = httpHead(rec.blockStart);
  const mime = rec.type === 'revisit' ? 'warc/revisit' : http?.contentType;
  const digest = warcField(rec, 'WARC-Payload-Digest');
  const json: CdxjFields = {
    url,
    ...(mime === undefined ? {} : { mime }),
    ...(http === undefined ? {} : { status: http.status }),
    ...(digest === undefined ? {} : { digest }),
    length: String(rec.length),
    offset: String(rec.offset),
    filename,
  };
  return { key: `${surt(url)} ${ts}`, json };
}

/** The line as written, with its newline. */
export function cdxjLine(entry: CdxjEntry): string {
  return `${entry.key} ${JSON.stringify(entry.json)}\n`;
}

/** The 14 digits `YYYYMMDDhhmmss` of a WARC-Date (W3C-DTF, fractions allowed), or undefined when it is not one. */
export function timestamp14(warcDate: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z$/.exec(warcDate);
  return m === null ? undefined : m.slice(1, 7).join('');
}

/** The status and the media type of the HTTP response head at the start of `block`, or undefined when it is none. */
function httpHead(block: Buffer): { status: string; contentType?: string } | undefined {
  const text = block.toString('latin1');
  const m = /^HTTP\/\d(?:\.\d)? +(\d{3})/.exec(text);
  if (m === null) return undefined;
  const end = text.search(/\r?\n\r?\n/);
  const lines = (end < 0 ? text : text.slice(0, end)).split(/\r?\n/);
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
