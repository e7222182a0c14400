/**
 * One WARC/1.1 record as bytes (ISO 28500:2017 §4): the version line, the
 * named fields, Content-Length, a blank line, the block, and CRLF CRLF.
 * Pure: the caller gives the record's ID, date and digests. Field values
 * are our own or URLs the URL layer encoded, and any control character that
 * could still reach one is escaped, so no value can break the header.
 */
import { randomUUID } from 'node:crypto';

export type WarcType = 'warcinfo' | 'request' | 'response' | 'revisit' | 'metadata';

/** A record to write: its fields other than WARC-Type and Content-Length, and its block. */
export interface WarcRecordSpec {
  type: WarcType;
  /** Named fields in the order they are written (WARC-Record-ID, WARC-Date first by convention). */
  fields: ReadonlyArray<readonly [string, string | undefined]>;
  /** The block, in parts (written one after the other). */
  block: readonly Uint8Array[];
}

const END = Buffer.from('\r\n\r\n', 'latin1');

/** A new WARC-Record-ID: `<urn:uuid:...>` (§5.2). */
export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/**
 * A WARC-Date (§5.4, W3C profile of ISO 8601, UTC) with microseconds, from
 * epoch milliseconds with a fraction: `2026-12-03T16:05:33.123456Z`.
 */
export function warcDate(epochMs: number): string {
  const whole = Math.floor(epochMs);
  const micros = Math.min(999, Math.floor((epochMs - whole) * 1000));
  return `${new Date(whole).toISOString().slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

/** A field value with no control character left in it (CR, LF and the rest are percent-encoded). */
export function fieldValue(value: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f]/.test(value) ? value.replace(/[\u0000-\u001f\u007f]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`) : value;
}

/** An `application/warc-fields` block (§5.4 of the warcinfo record): one `name: value` line each. */
export function warcFields(fields: ReadonlyArray<readonly [string, string]>): Buffer {
  return Buffer.from(warcFieldsText(fields), 'utf8');
}

/** The text of an `application/warc-fields` block. */
export function warcFieldsText(fields: ReadonlyArray<readonly [string, string]>): string {
  let text = '';
  for (const [name, value] of fields) text += `${name}: ${fieldValue(value)}\r\n`;
  return text;
}

/** A record's bytes, in parts written one after the other: its head, its block's parts (views, not copies), CRLF CRLF. */
export type RecordBytes = readonly Buffer[];

/** The record's bytes (one write, one gzip member). Fields whose value is undefined are left out. */
export function serializeRecord(spec: WarcRecordSpec): RecordBytes {
  let length = 0;
  for (const part of spec.block) length += part.length;
  let head = `WARC/1.1\r\nWARC-Type: ${spec.type}\r\n`;
  for (const [name, value] of spec.fields) if (value !== undefined) head += `${name}: ${fieldValue(value)}\r\n`;
  head += `Content-Length: ${length}\r\n\r\n`;
  return [Buffer.from(head, 'utf8'), ...spec.block.map((b) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength))), END];
}

/** The length of a record's bytes. */
export function recordLength(record: RecordBytes): number {
  let n = 0;
  for (const part of record) n += part.length;
  return n;
}
