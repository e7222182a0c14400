/**
 * One gzip member per record (WARC 1.1 Annex D), so a reader can seek to any
 * record's offset and inflate it alone. The member is plain RFC 1952 (any
 * gunzip reads it, and a file of members is one gzip stream), with one
 * addition in its FEXTRA field: a subfield `pc` holding the member's total
 * length, so that `--resume` finds where the last complete record of our
 * own archive ends without inflating the whole file.
 */
import { crc32, deflateRawSync } from 'node:zlib';

/** Header (10) + XLEN (2) + subfield id (2) + its length (2) + the member length (4). */
export const MEMBER_HEAD = 20;
const TRAILER = 8;
const FEXTRA = 0x04;

/**
 * Deflate level 1: much less CPU than level 6 for a slightly larger archive
 * (docs/performance.md, The cost of `--warc`).
 */
export const GZIP_LEVEL = 1;

/**
 * One gzip member holding `data`, deflated synchronously (on the archive
 * thread, record-thread.ts): zlib's async API sets up a stream each time,
 * which costs more CPU than the synchronous call's deflate itself
 * (docs/performance.md, The cost of `--warc`).
 */
export function gzipMember(data: Buffer, level = GZIP_LEVEL): Buffer {
  // A 16 KiB window and memLevel 7 keep zlib's state under glibc's mmap threshold: the default's fresh mappings per call cost page faults.
  const deflated = deflateRawSync(data, { level, windowBits: 14, memLevel: 7 });
  const total = MEMBER_HEAD + deflated.length + TRAILER;
  const head = Buffer.alloc(MEMBER_HEAD);
  head[0] = 0x1f;
  head[1] = 0x8b;
  head[2] = 8; // deflate
  head[3] = FEXTRA;
  // MTIME 0 (unknown), XFL 0, OS 255 (unknown): the record says when.
  head[9] = 255;
  head.writeUInt16LE(8, 10); // XLEN
  head[12] = 0x70; // 'p'
  head[13] = 0x63; // 'c'
  head.writeUInt16LE(4, 14);
  head.writeUInt32LE(total, 16);
  const tail = Buffer.alloc(TRAILER);
  tail.writeUInt32LE(crc32(data) >>> 0, 0);
  tail.writeUInt32LE(data.length >>> 0, 4);
  return Buffer.concat([head, deflated, tail], total);
}

/** The total length our writer put in a member's head, or undefined when `head` is no member of ours. */
export function ourMemberLength(head: Buffer): number | undefined {
  if (head.length < MEMBER_HEAD || head[0] !== 0x1f || head[1] !== 0x8b || head[2] !== 8 || head[3] !== FEXTRA) return undefined;
  if (head.readUInt16LE(10) !== 8 || head[12] !== 0x70 || head[13] !== 0x63 || head.readUInt16LE(14) !== 4) return undefined;
  const total = head.readUInt32LE(16);
  return total >= MEMBER_HEAD + TRAILER ? total : undefined;
}
