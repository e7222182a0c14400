/**
 * A push parser for HTTP/1.1 responses (RFC 9112): feed it the socket's bytes
 * as they arrive, tell it when the peer closed, read the response when `done`.
 *
 * Hot path of the crawler, so: Buffers are scanned with indexOf (native), never
 * byte by byte in JS except the few bytes of a chunk-size line; header lines
 * are decoded once each with latin1 (one char per byte, so any obs-text in a
 * field survives unchanged); a Content-Length body that arrives within one
 * fed chunk is a view of that chunk (no copy), otherwise it is copied once
 * into a buffer allocated once; chunked and read-until-close bodies are kept
 * as slices of the fed chunks and concatenated once at the end. The caller
 * must not modify a chunk after feeding it.
 *
 * Leniency, chosen where the two upstream parsers in the conformance data
 * disagree (see test/http/response-parser-conformance.test.ts):
 * - bare LF ends a line anywhere a CRLF may (RFC 9112 §2.2 allows it; real
 *   servers send it); a bare CR is always rejected, so no byte sequence can
 *   be read as two different line structures;
 * - spaces and tabs after a chunk size are tolerated (they cannot change the
 *   size; RFC 9112 §7.1.1 allows BWS before ";" anyway);
 * - a header or trailer line that cannot be a field is skipped with a note
 *   in `notes`, and never frames a body (see header-section.ts).
 * What makes framing ambiguous is still rejected (RFC 9112 §6.3): differing
 * or invalid Content-Length values, an invalid chunk size, a bare CR, or
 * whitespace before the first field line (§2.2).
 *
 * A body the reader has no use for (`wantsBody` says so from the head, such
 * as a page whose Content-Type is not HTML) is read only while it is short
 * (UNWANTED_BODY_DRAIN_BYTES); once it is known to be longer, the message
 * ends without it (`unwanted: 'cut'`), and the connection must be closed.
 */
import { CrawlerError } from '../errors.js';
import { badResponse, excerpt } from './header-lines.js';
import { HeaderSection } from './header-section.js';
import { MAX_CHUNK_LINE, STATUS_PREFIX, checkStatusPrefix, parseChunkSize } from './line-syntax.js';
import { DEFAULT_LIMITS, UNWANTED_BODY_DRAIN_BYTES, type ParsedResponse, type ResponseHead, type ResponseParserOptions, type WantsBody } from './parsed-response.js';

export { headerValue, headerValues, type Field, type Framing } from './header-lines.js';
export { DEFAULT_LIMITS, UNWANTED_BODY_DRAIN_BYTES, type ParsedResponse, type ParserLimits, type ResponseHead, type ResponseParserOptions, type WantsBody } from './parsed-response.js';

const CR = 13;
const LF = 10;
const SP = 32;
const HT = 9;
/** Empty lines tolerated before a status line (RFC 9112 §2.2 asks for "at least one"). */
const MAX_EMPTY_LINES = 4;
const EMPTY = Buffer.alloc(0);

// Parser states.
const START = 0; // skipping empty lines before a status line
const STATUS = 1;
const HEADERS = 2;
const BODY_LENGTH = 3;
const CHUNK_SIZE = 4;
const CHUNK_DATA = 5;
const CHUNK_CR = 6; // after chunk data: CR or LF
const CHUNK_LF = 7; // after chunk data and CR: LF
const TRAILERS = 8;
const BODY_CLOSE = 9;
const DONE = 10;

/**
 * Parses one HTTP/1.1 response, skipping any 1xx interim responses before it.
 * feed() keeps references to the chunks it is given until the message is
 * complete: don't reuse or modify a chunk after feeding it.
 */
export class ResponseParser {
  private readonly maxHeaderBytes: number;
  private readonly maxBodyBytes: number;
  private readonly headRequest: boolean;
  private readonly wantsBody: WantsBody | undefined;
  /** The body's cap: maxBodyBytes, or for an unwanted body the drain threshold (past which it is cut, not refused). */
  private bodyCap: number;
  private unwanted: ParsedResponse['unwanted'];
  private state = START;
  private anyByte = false;
  private emptyLines = 0;
  private startCR = false;
  // The line being assembled across chunks.
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  private pieceEndsCR = false;
  /** Bytes of the current header (or trailer) section so far, for the cap. */
  private sectionBytes = 0;
  /** How many of the first STATUS_PREFIX bytes of the status line have been checked. */
  private prefixOk = 0;
  /** The status line, fields, trailers and notes: what the lines of the field sections say. */
  private readonly section = new HeaderSection();
  private headInfo: ResponseHead | undefined;
  private fixed: Buffer | undefined;
  /** A Content-Length body that arrived within one fed chunk: a view of that chunk. */
  private view: Buffer | undefined;
  private filled = 0;
  private remaining = 0;
  private parts: Buffer[] = [];
  private bodyBytes = 0;
  private result: ParsedResponse | undefined;
  private extraParts: Buffer[] = [];
  private extraCache: Buffer | undefined;
  private failure: CrawlerError | undefined;

  constructor(options: ResponseParserOptions = {}) {
    this.maxHeaderBytes = options.limits?.maxHeaderBytes ?? DEFAULT_LIMITS.maxHeaderBytes;
    this.maxBodyBytes = options.limits?.maxBodyBytes ?? DEFAULT_LIMITS.maxBodyBytes;
    this.headRequest = options.headRequest === true;
    this.wantsBody = options.wantsBody;
    this.bodyCap = this.maxBodyBytes;
  }

  /** The final response is complete. */
  get done(): boolean {
    return this.state === DONE;
  }

  /** The final response, once `done`. */
  get response(): ParsedResponse | undefined {
    return this.result;
  }

  /** The final response's head, as soon as its header section is complete. */
  get head(): ResponseHead | undefined {
    return this.headInfo;
  }

  /** A (final or interim) status line was parsed. */
  get statusReceived(): boolean {
    return this.section.gotStatus;
  }

  /** Bytes received after the complete message (their presence makes the connection non-reusable). */
  get extra(): Buffer {
    if (this.extraCache === undefined) this.extraCache = this.extraParts.length === 0 ? EMPTY : Buffer.concat(this.extraParts);
    return this.extraCache;
  }

  /** Push bytes from the socket. Throws CrawlerError on malformed input or a cap exceeded (and again on any later call). */
  feed(chunk: Buffer): void {
    if (this.failure !== undefined) throw this.failure;
    if (chunk.length === 0) return;
    this.anyByte = true;
    if (this.state === DONE) {
      this.addExtra(chunk);
      return;
    }
    try {
      this.run(chunk);
    } catch (err) {
      if (err instanceof CrawlerError) this.failure = err;
      throw err;
    }
  }

  /** The peer closed the connection: completes a read-until-close body; throws ERR_PREMATURE_CLOSE if the message is incomplete. */
  end(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.state === DONE) return;
    if (this.state === BODY_CLOSE) {
      this.complete(); // RFC 9112 §6.3 ¶8: the close delimits the body
      return;
    }
    const message = this.headInfo !== undefined
      ? `connection closed after the headers had arrived, before the end of the body (${this.progress()})`
      : !this.anyByte
        ? 'connection closed before any response byte arrived'
        : `connection closed before the end of the headers (${this.section.gotStatus ? 'status line received' : 'no status line yet'})`;
    this.failure = new CrawlerError('ERR_PREMATURE_CLOSE', message);
    throw this.failure;
  }

  private progress(): string {
    if (this.state === BODY_LENGTH) return `${this.filled} of ${this.filled + this.remaining} bytes`;
    if (this.state === TRAILERS) return 'trailers incomplete';
    return `${this.bodyBytes - this.remaining} bytes of a chunked body`;
  }

  private run(buf: Buffer): void {
    const len = buf.length;
    let pos = 0;
    while (pos < len) {
      const state = this.state;
      if (state === BODY_LENGTH) {
        const n = Math.min(this.remaining, len - pos);
        if (this.fixed === undefined) {
          if (n === this.remaining) {
            // The whole body is in this chunk (the usual case): a view of it, no copy.
            this.view = buf.subarray(pos, pos + n);
            this.remaining = 0;
            pos += n;
            this.complete();
            continue;
          }
          this.fixed = Buffer.allocUnsafe(this.remaining);
        }
        // TypedArray#set is a plain memcpy; Buffer#copy has more JS overhead on Node 20.
        this.fixed.set(n === len ? buf : buf.subarray(pos, pos + n), this.filled);
        this.filled += n;
        this.remaining -= n;
        pos += n;
        if (this.remaining === 0) this.complete();
      } else if (state === CHUNK_DATA) {
        const n = Math.min(this.remaining, len - pos);
        this.parts.push(buf.subarray(pos, pos + n));
        this.remaining -= n;
        pos += n;
        if (this.remaining === 0) this.state = CHUNK_CR;
      } else if (state === BODY_CLOSE) {
        const n = len - pos;
        if (this.bodyBytes + n > this.bodyCap) {
          if (this.unwanted === undefined) throw this.bodyOverflow('response body');
          this.cut(); // what is left of this chunk is past the message
          continue;
        }
        this.parts.push(pos === 0 ? buf : buf.subarray(pos));
        this.bodyBytes += n;
        pos = len;
      } else if (state === CHUNK_CR || state === CHUNK_LF) {
        // RFC 9112 §7.1: chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF (bare LF accepted, as everywhere).
        const b = buf[pos++];
        if (b === LF) this.state = CHUNK_SIZE;
        else if (b === CR && state === CHUNK_CR) this.state = CHUNK_LF;
        else throw badResponse('chunk data not followed by CRLF');
      } else if (state === START) {
        // RFC 9112 §2.2: skip a few empty lines (CRLF or LF) before the status line, as llhttp does.
        const b = buf[pos];
        if (b === LF) {
          if (++this.emptyLines > MAX_EMPTY_LINES) throw badResponse(`more than ${MAX_EMPTY_LINES} empty lines before the status line`);
          this.startCR = false;
        } else if (this.startCR) throw badResponse('bare CR before the status line (RFC 9112 §2.2)');
        else if (b === CR) this.startCR = true;
        else {
          this.state = STATUS;
          this.prefixOk = 0;
          continue;
        }
        pos++;
        this.sectionBytes++;
        if (this.sectionBytes > this.maxHeaderBytes) throw this.headerOverflow();
      } else if (state === DONE) {
        this.addExtra(pos === 0 ? buf : buf.subarray(pos));
        return;
      } else {
        pos = this.lineStep(buf, pos);
      }
    }
  }

  /** One step of a line state (status, field, chunk-size or trailer line); returns the new position. */
  private lineStep(buf: Buffer, pos: number): number {
    const state = this.state;
    if (this.pieceBytes === 0 && (buf[pos] === SP || buf[pos] === HT) && (state === HEADERS || state === TRAILERS)) {
      // Whitespace before the first field (RFC 9112 §2.2): rejected at once, not when the line ends.
      this.section.leadingWhitespace(state === TRAILERS);
    }
    const lf = buf.indexOf(LF, pos);
    if (state === STATUS && this.prefixOk < STATUS_PREFIX) this.prefixOk = checkStatusPrefix(buf, pos - this.pieceBytes, lf === -1 ? buf.length : lf, this.prefixOk);
    if (lf === -1) {
      this.stash(buf, pos);
      return buf.length;
    }
    let line = buf;
    let start = pos;
    let end = lf;
    if (this.pieceBytes > 0) {
      this.pieces.push(buf.subarray(pos, lf));
      line = Buffer.concat(this.pieces, this.pieceBytes + lf - pos);
      start = 0;
      end = line.length;
      this.pieces = [];
      this.pieceBytes = 0;
      this.pieceEndsCR = false;
    }
    const size = end - start + 1;
    if (end > start && line[end - 1] === CR) end--;
    if (state === CHUNK_SIZE) {
      if (size > MAX_CHUNK_LINE) throw badResponse(`chunk-size line longer than ${MAX_CHUNK_LINE} bytes`);
      this.chunkSizeLine(line, start, end);
      return lf + 1;
    }
    this.sectionBytes += size;
    if (this.sectionBytes > this.maxHeaderBytes) throw this.headerOverflow();
    const s = line.toString('latin1', start, end);
    if (s.indexOf('\r') !== -1) throw badResponse(`bare CR in ${excerpt(s)}`); // RFC 9112 §2.2
    if (state === STATUS) {
      this.section.statusLine(s);
      this.state = HEADERS;
    } else if (state === HEADERS) {
      if (s.length === 0) this.endOfHead();
      else this.section.headerLine(s);
    } else if (s.length === 0) this.complete();
    else this.section.trailerLine(s);
    return lf + 1;
  }

  /** Keeps a partial line (no LF in it) for the next chunk, rejecting what can already be rejected. */
  private stash(buf: Buffer, pos: number): void {
    const piece = pos === 0 ? buf : buf.subarray(pos);
    const n = piece.length;
    // No LF in this piece: a CR anywhere but its last byte is bare, and so is a CR that ended the previous piece.
    const cr = piece.indexOf(CR);
    if (this.pieceEndsCR || (cr !== -1 && cr < n - 1)) throw badResponse('bare CR in a line (RFC 9112 §2.2)');
    this.pieces.push(piece);
    this.pieceBytes += n;
    this.pieceEndsCR = piece[n - 1] === CR;
    if (this.state === CHUNK_SIZE) {
      if (this.pieceBytes > MAX_CHUNK_LINE) throw badResponse(`chunk-size line longer than ${MAX_CHUNK_LINE} bytes`);
    } else if (this.sectionBytes + this.pieceBytes > this.maxHeaderBytes) throw this.headerOverflow();
  }

  /** The blank line after the fields: skip an interim response, or decide how the body is framed. */
  private endOfHead(): void {
    const head = this.section.endOfHead(this.headRequest);
    if (head === undefined) {
      // An interim response; the final one follows. Its bytes stay in the header cap.
      this.emptyLines = 0;
      this.state = START;
      return;
    }
    const length = this.section.bodyLength;
    const mayHaveBody = head.framing !== 'none' && (head.framing !== 'length' || length > 0);
    if (mayHaveBody && this.wantsBody !== undefined && !this.wantsBody(head)) {
      this.unwanted = 'drained';
      this.bodyCap = Math.min(UNWANTED_BODY_DRAIN_BYTES, this.maxBodyBytes);
    }
    if (length > this.bodyCap && this.unwanted === undefined) throw this.bodyOverflow(`Content-Length ${length}`);
    this.headInfo = head;
    this.sectionBytes = 0;
    if (length > this.bodyCap) this.cut();
    else if (head.framing === 'chunked') this.state = CHUNK_SIZE;
    else if (head.framing === 'close') this.state = BODY_CLOSE;
    else if (length > 0) {
      // The buffer is allocated when the first body bytes arrive, and only if the body spans chunks.
      this.remaining = length;
      this.state = BODY_LENGTH;
    } else this.complete();
  }

  /** A chunk-size line (RFC 9112 §7.1): the next chunk's data, or the trailers after the last chunk. */
  private chunkSizeLine(line: Buffer, start: number, end: number): void {
    const size = parseChunkSize(line, start, end);
    if (size === 0) {
      this.state = TRAILERS; // last-chunk; trailer section has its own cap
      this.sectionBytes = 0;
      return;
    }
    if (this.bodyBytes + size > this.bodyCap) {
      if (this.unwanted === undefined) throw this.bodyOverflow('chunked body');
      this.cut();
      return;
    }
    this.bodyBytes += size;
    this.remaining = size;
    this.state = CHUNK_DATA;
  }

  private complete(): void {
    const { version, status, reason, headers, keepAlive, framing } = this.headInfo as ResponseHead;
    const body = this.view ?? this.fixed ?? (this.parts.length === 0 ? EMPTY : Buffer.concat(this.parts, this.bodyBytes));
    const unwanted = this.unwanted;
    // A literal, not a spread of the head: this runs once per response on the hot path.
    this.result = { version, status, reason, headers, trailers: this.section.trailers, body, keepAlive: keepAlive && unwanted !== 'cut', framing, notes: this.section.notes, unwanted };
    this.state = DONE;
    this.fixed = undefined;
    this.view = undefined;
    this.parts = [];
  }

  /**
   * An unwanted body turned out longer than the drain threshold: the message
   * ends here, without its body (`unwanted: 'cut'`). Bytes after this point
   * are `extra`, so the connection is not reused.
   */
  private cut(): void {
    this.unwanted = 'cut';
    this.fixed = undefined;
    this.view = undefined;
    this.parts = [];
    this.bodyBytes = 0;
    this.complete();
  }

  private addExtra(chunk: Buffer): void {
    this.extraParts.push(chunk);
    this.extraCache = undefined;
  }

  private headerOverflow(): CrawlerError {
    const what = this.state === TRAILERS ? 'trailer section' : 'response header section';
    return new CrawlerError('ERR_HEADERS_OVERFLOW', `${what} exceeds maxHeaderBytes (${this.maxHeaderBytes} bytes)`);
  }

  private bodyOverflow(what: string): CrawlerError {
    return new CrawlerError('ERR_BODY_OVERFLOW', `${what} exceeds maxBodyBytes (${this.maxBodyBytes} bytes)`);
  }
}
