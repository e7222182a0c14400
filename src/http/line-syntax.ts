/**
 * The two line grammars the response parser reads besides field lines: the
 * status line (RFC 9112 §4) and the chunk-size line (RFC 9112 §7.1). Both are
 * short; the status line is also checked byte by byte as it arrives, so that
 * garbage is refused at its first wrong byte.
 */
import { badResponse, excerpt } from './header-lines.js';

const CR = 13;
const SP = 32;
const HT = 9;
const SEMI = 59;
const HTTP_SLASH = Buffer.from('HTTP/', 'latin1');

/** Bytes of a status line checkable as they arrive: "HTTP/d.d ddd" and the SP (or CR) after it. */
export const STATUS_PREFIX = 13;

/** RFC 9112 §4: may byte `b` be byte `k` (< STATUS_PREFIX) of a status line? */
function statusByteOk(k: number, b: number): boolean {
  if (k < 5) return b === HTTP_SLASH[k];
  if (k === 6) return b === 46; // "."
  if (k === 8) return b === SP;
  if (k === 12) return b === SP || b === CR; // the reason phrase may be absent
  return b >= 48 && b <= 57; // version and status digits
}

/**
 * Checks a status line's first STATUS_PREFIX bytes as they arrive, so that a
 * line that cannot start "HTTP/d.d ddd " is refused at its first wrong byte
 * (no waiting for 64 KiB of garbage). Byte k of the line is
 * `buf[lineStart + k]` (lineStart is negative when the line began in an
 * earlier chunk); bytes before `to` have arrived; the first `checked` were
 * checked before. Returns how many are checked now. Throws ERR_BAD_RESPONSE.
 */
export function checkStatusPrefix(buf: Buffer, lineStart: number, to: number, checked: number): number {
  let k = checked;
  for (; k < STATUS_PREFIX && lineStart + k < to; k++) {
    if (!statusByteOk(k, buf[lineStart + k] as number)) {
      const from = Math.max(lineStart, 0);
      throw badResponse(`not an HTTP/1.x status line: ${excerpt(buf.toString('latin1', from, Math.min(to, from + 40)))}`);
    }
  }
  return k;
}

/** RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ]; the SP before an absent reason may be missing too. */
const STATUS_LINE = /^HTTP\/([0-9])\.([0-9]) ([0-9]{3})(?: (.*))?$/;

export interface StatusLine {
  major: number;
  minor: number;
  status: number;
  /** As sent, not trimmed: "HTTP/1.1 200  OK" has the reason " OK" (as llhttp reports it). */
  reason: string;
}

/** Parses a status line (latin1, line end removed). Throws ERR_BAD_RESPONSE. */
export function parseStatusLine(s: string): StatusLine {
  const m = STATUS_LINE.exec(s);
  if (m === null) throw badResponse(`malformed status line ${excerpt(s)}`);
  const major = Number(m[1]);
  const minor = Number(m[2]);
  // RFC 9110 §2.5: any 1.x is processed as 1.1; 0.9 is accepted as both upstreams do; 2.0+ cannot be text framing.
  if (major !== 1 && !(major === 0 && minor === 9)) throw badResponse(`unsupported HTTP version in ${excerpt(s)}`);
  const status = Number(m[3]);
  if (status < 100) throw badResponse(`invalid status code in ${excerpt(s)}`);
  return { major, minor, status, reason: m[4] ?? '' };
}

/** A chunk-size line longer than this (size plus ignored extensions) is refused. */
export const MAX_CHUNK_LINE = 16 * 1024;
const MAX_CHUNK_SIZE = 2 ** 44;
const HEX = new Int8Array(256).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[65 + i] = HEX[97 + i] = 10 + i;

/**
 * The size in `line[start, end)` (line end removed), RFC 9112 §7.1:
 * chunk-size [ chunk-ext ]. Extensions are ignored unparsed (§7.1.1: a
 * recipient must ignore unknown ones), but may not hold a bare CR. Spaces and
 * tabs after the size are tolerated: http-parser accepts them (llhttp only in
 * a lenient mode), real servers send them, and they cannot change the size.
 * Throws ERR_BAD_RESPONSE.
 */
export function parseChunkSize(line: Buffer, start: number, end: number): number {
  let i = start;
  let size = 0;
  for (; i < end; i++) {
    const h = HEX[line[i] as number] as number;
    if (h === -1) break;
    size = size * 16 + h;
    if (size > MAX_CHUNK_SIZE) throw badResponse('chunk size too large');
  }
  let bad = i === start;
  while (i < end && (line[i] === SP || line[i] === HT)) i++;
  if (i < end && line[i] !== SEMI) bad = true;
  if (bad) throw badResponse(`invalid chunk size ${excerpt(line.toString('latin1', start, end))}`);
  for (; i < end; i++) if (line[i] === CR) throw badResponse('bare CR in a chunk extension (RFC 9112 §2.2)');
  return size;
}
