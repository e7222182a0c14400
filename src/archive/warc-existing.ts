/**
 * What an existing archive file is: ours or not (its first record is a
 * warcinfo whose `software` is this program), and where its last complete
 * record ends, so that `--resume` can cut a record that a kill -9 left half
 * written and append after it. Records are found by their lengths, never by
 * searching the bytes: a plain file by each record's Content-Length (and the
 * CRLF CRLF after its block), a gzip file by the length our writer puts in
 * each member's head (warc-gzip.ts).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { isOurSoftware } from './software.js';
import { MEMBER_HEAD, ourMemberLength } from './warc-gzip.js';
import { isGzipName } from '../sink/warc-names.js';

export interface ExistingWarc {
  /** The file's first record is our warcinfo (an empty file counts as ours: there is nothing in it to lose). */
  ours: boolean;
  /** Where the last complete record ends (with `walk`; otherwise where the first one does). */
  end: number;
  size: number;
}

/** Longest WARC header section read when walking a plain file. */
const MAX_HEAD = 64 * 1024;
const END = Buffer.from('\r\n\r\n', 'latin1');

async function readAt(fh: FileHandle, pos: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, pos);
  return buf.subarray(0, bytesRead);
}

/** The record at the start of `bytes`, when it is a complete warcinfo of ours. */
function isOurWarcinfo(record: Buffer): boolean {
  const headEnd = record.indexOf(END);
  if (headEnd === -1 || !record.subarray(0, 9).equals(Buffer.from('WARC/1.1\r'))) return false;
  const head = record.toString('utf8', 0, headEnd);
  if (!/\r\nWARC-Type: warcinfo\r\n/.test(head)) return false;
  const software = /(?:^|\r\n)software: ([^\r\n]*)/.exec(record.toString('utf8', headEnd + 4))?.[1];
  return isOurSoftware(software);
}

/** Inspects `path` (an existing file). With `walk`, finds the end of its last complete record. */
export async function inspectWarc(path: string, walk: boolean): Promise<ExistingWarc> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size === 0) return { ours: true, end: 0, size };
    return isGzipName(path) ? await walkMembers(fh, size, walk) : await walkRecords(fh, size, walk);
  } finally {
    await fh.close();
  }
}

async function walkMembers(fh: FileHandle, size: number, walk: boolean): Promise<ExistingWarc> {
  let pos = 0;
  let ours = false;
  while (pos < size) {
    const length = ourMemberLength(await readAt(fh, pos, MEMBER_HEAD));
    if (length === undefined) break; // not a member of ours: the rest is not a record we can vouch for
    if (pos === 0) ours = true; // our member head, even if the kill cut this first member short
    if (pos + length > size) break; // cut short
    if (pos === 0) {
      let first: Buffer;
      try {
        first = gunzipSync(await readAt(fh, 0, length));
      } catch {
        return { ours: false, end: 0, size };
      }
      if (!isOurWarcinfo(first)) return { ours: false, end: 0, size };
    }
    pos += length;
    if (!walk) break;
  }
  return { ours, end: pos, size };
}

async function walkRecords(fh: FileHandle, size: number, walk: boolean): Promise<ExistingWarc> {
  let pos = 0;
  while (pos < size) {
    const head = await readAt(fh, pos, Math.min(MAX_HEAD, size - pos));
    const headEnd = head.indexOf(END);
    if (headEnd === -1 || !head.subarray(0, 7).equals(Buffer.from('WARC/1.'))) break;
    const length = /\r\nContent-Length: *([0-9]+)\r\n/i.exec(head.toString('latin1', 0, headEnd + 2))?.[1];
    if (length === undefined) break;
    const next = pos + headEnd + 4 + Number(length) + END.length;
    if (next > size || !(await readAt(fh, next - END.length, END.length)).equals(END)) break; // cut short
    if (pos === 0 && !isOurWarcinfo(await readAt(fh, 0, next))) return { ours: false, end: 0, size };
    pos = next;
    if (!walk) break;
  }
  return { ours: pos > 0, end: pos, size };
}
