/**
 * The payload of a response as its record holds it (WARC 1.1 §5.9: the
 * payload digest is taken over "the payload of the record"), read from the
 * bytes recorded: the final response's header section is found past any
 * interim 1xx responses and read by the HTTP layer's own line reader
 * (HeaderSection), so that the framing is decided here exactly as it was
 * when the bytes arrived. A complete response's payload comes from its
 * parser; this reading is for a response cut short (WARC-Truncated), whose
 * parser never finished.
 */
import { HeaderSection } from '../http/header-section.js';
import type { Field, Framing } from '../http/header-lines.js';
import { parseChunkSize } from '../http/line-syntax.js';

const LF = 0x0a;
const CR = 0x0d;

/** The final response's head in a message's bytes: how its body is framed and where it starts. */
export interface FinalHead {
  framing: Framing;
  /** The Content-Length when `framing` is 'length'. */
  length: number;
  /** Where the body starts: just after the blank line that ends the final header section. */
  bodyAt: number;
  /** Its fields, as the parser reads them. */
  headers: readonly Field[];
}

/**
 * The final response's head in `bytes` (a response message as read, from
 * its first byte), past any interim 1xx responses. Undefined when the final
 * header section did not arrive whole or cannot be read (a line the parser
 * would refuse, conflicting Content-Length fields): there is no body to
 * speak of then. Lines end in CRLF or a bare LF, as the parser accepts.
 */
export function finalHead(bytes: Buffer): FinalHead | undefined {
  const section = new HeaderSection();
  let pos = 0;
  let status = false;
  try {
    for (;;) {
      const lf = bytes.indexOf(LF, pos);
      if (lf === -1) return undefined;
      const end = lf > pos && bytes[lf - 1] === CR ? lf - 1 : lf;
      const line = bytes.toString('latin1', pos, end);
      pos = lf + 1;
      if (!status) {
        // RFC 9112 §2.2: empty lines before a status line are skipped, as the parser does.
        if (line === '') continue;
        section.statusLine(line);
        status = true;
      } else if (line === '') {
        const head = section.endOfHead(false);
        // An interim response: the final one follows.
        if (head === undefined) status = false;
        else return { framing: head.framing, length: section.bodyLength, bodyAt: pos, headers: head.headers };
      } else {
        if (line.charCodeAt(0) === 0x20 || line.charCodeAt(0) === 0x09) section.leadingWhitespace(false);
        section.headerLine(line);
      }
    }
  } catch {
    return undefined;
  }
}

/**
 * The payload recorded in `bytes`, the bytes read for a response that was
 * cut short: the body bytes that arrived, with the transfer coding removed
 * as far as it can be (the content coding, such as gzip, stays: it is part
 * of the payload). That is:
 *
 * - a Content-Length or close-delimited body: every body byte that arrived
 *   (no more than the Content-Length);
 * - a chunked body: the data of each chunk, in order, and of a chunk cut in
 *   its data, the part that arrived (warcio reads such a record so too).
 *   Framing is never payload: not the chunk-size lines, their extensions,
 *   the CRLF after each chunk's data, a chunk-size line cut short, nor the
 *   trailers. The decoding stops at the first byte that breaks the framing
 *   (a chunk-size line that is no size, chunk data not followed by CRLF):
 *   what follows it cannot be told apart from framing;
 * - no body (a 204 or 304): empty.
 *
 * Undefined when the final response's header section did not arrive whole
 * (see finalHead): the record then holds no payload, only a head cut short.
 */
export function recordedPayload(bytes: Buffer): Buffer | undefined {
  const head = finalHead(bytes);
  if (head === undefined) return undefined;
  const body = bytes.subarray(head.bodyAt);
  switch (head.framing) {
    case 'none':
      return body.subarray(0, 0);
    case 'length':
      return body.subarray(0, Math.min(head.length, body.length));
    case 'close':
      return body;
    case 'chunked':
      return chunkData(body);
  }
}

/** The data of the chunks in `body` (RFC 9112 §7.1), as far as it arrived and keeps to the framing. */
function chunkData(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const lf = body.indexOf(LF, pos);
    // A chunk-size line cut short: framing, and the end of what arrived.
    if (lf === -1) break;
    let size: number;
    try {
      size = parseChunkSize(body, pos, lf > pos && body[lf - 1] === CR ? lf - 1 : lf);
    } catch {
      break;
    }
    // The last chunk: what follows is trailers.
    if (size === 0) break;
    const start = lf + 1;
    const end = Math.min(start + size, body.length);
    parts.push(body.subarray(start, end));
    if (end < start + size) break;
    // Chunk data ends in CRLF, or a bare LF (as the parser accepts); anything else ends the framing.
    if (body[end] === LF) pos = end + 1;
    else if (body[end] === CR && (end + 1 === body.length || body[end + 1] === LF)) pos = end + 2;
    else break;
  }
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}
