/**
 * A push parser for HTTP/1.1 responses (RFC 9112): `feed(chunk)` as bytes
 * arrive, `end()` when the peer closes. Status line, header fields (obs-fold
 * continuation lines joined), then the body by its framing: chunked with
 * trailers (§7.1), Content-Length (§6.2), or read until close (§6.3 rule 8).
 * Interim 1xx responses are skipped. Every size is capped.
 *
 * Hot path: line-based states decode only the line (latin1, one char per
 * byte); body bytes are copied once, into a buffer of the announced length
 * or, for chunked and close-delimited bodies, by one concat at the end.
 */
import { CrawlerError } from '../errors.js';
import { addFieldLine, badResponse, excerpt, finalCodingIsChunked, hasToken, headerValues, parseContentLength, trimOws, type Field } from './header-lines.js';

export { headerValue, headerValues } from './header-lines.js';

export interface ParserLimits {
  /** Largest header section (status line and fields), and separately largest trailer section. */
  maxHeaderBytes: number;
  /** Largest body, after chunked framing is removed. */
  maxBodyBytes: number;
}

export const DEFAULT_LIMITS: ParserLimits = { maxHeaderBytes: 64 * 1024, maxBodyBytes: 10 * 1024 * 1024 };

export interface ParsedResponse {
  version: string;
  status: number;
  reason: string;
  headers: Field[];
  trailers: Field[];
  /** The body exactly as sent, chunked framing removed, never decoded. */
  body: Buffer;
  /** May the connection carry another request after this message? */
  keepAlive: boolean;
  framing: 'chunked' | 'length' | 'close' | 'none';
}

export interface ResponseParserOptions {
  limits?: Partial<ParserLimits>;
  /** The request was HEAD: no body follows whatever the headers say (RFC 9110 §9.3.2). */
  headRequest?: boolean;
}

type State = 'status' | 'headers' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'body-length' | 'body-close' | 'done';

/** HTTP/1.x, any minor (RFC 9110 §2.5), or HTTP/0.9 as both reference parsers take it; reason optional. */
const STATUS_RE = /^HTTP\/(?:1\.([0-9])|0\.9) ([0-9]{3})(?:[ \t](.*))?$/;
const HEX_RE = /^[0-9A-Fa-f]{1,13}$/;
/** The shape of a status line's first 12 bytes ('9' stands for any digit), checked while it is still arriving. */
const STATUS_SHAPE = 'HTTP/9.9 999';
/** Longest chunk-size line accepted (size plus extensions). */
const MAX_CHUNK_LINE = 4096;
/** Empty lines tolerated before a status line (stray CRLF after a previous body). */
const MAX_LEADING_EMPTY = 4;

export class ResponseParser {
  private readonly limits: ParserLimits;
  private readonly headRequest: boolean;
  private state: State = 'status';
  /** An unfinished line, in the pieces it arrived in (joined once its LF arrives: linear, not quadratic). */
  private carry: Buffer[] = [];
  private carryLen = 0;
  private seen = false;
  private sectionBytes = 0;
  private leadingEmpty = 0;
  private version = '';
  private status = 0;
  private reason = '';
  private headers: Field[] = [];
  private trailers: Field[] = [];
  private framing: ParsedResponse['framing'] = 'none';
  private keepAlive = false;
  private remaining = 0;
  private lengthBody: Buffer | undefined;
  private lengthOffset = 0;
  private parts: Buffer[] = [];
  private bodySize = 0;
  private extraParts: Buffer[] = [];
  private result: ParsedResponse | undefined;
  private sawStatus = false;
  /** Minor version of HTTP/1.x; -1 for HTTP/0.9. */
  private minor = 1;
  /** A field name with whitespace inside was kept as sent: never reuse the connection. */
  private looseName = false;

  constructor(options: ResponseParserOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.headRequest = options.headRequest === true;
  }

  /** True once the final response is complete. */
  get done(): boolean {
    return this.state === 'done';
  }

  /** The final response, once `done`. */
  get response(): ParsedResponse | undefined {
    return this.result;
  }

  /** True once a status line (interim or final) was parsed. */
  get statusReceived(): boolean {
    return this.sawStatus;
  }

  /** Bytes received after the complete message (they make the connection unusable). */
  get extra(): Buffer {
    return this.extraParts.length === 1 ? (this.extraParts[0] as Buffer) : Buffer.concat(this.extraParts);
  }

  /** Pushes bytes from the socket. Throws CrawlerError on malformed input or a cap exceeded. */
  feed(chunk: Buffer): void {
    if (this.state === 'done') {
      if (chunk.length > 0) this.extraParts.push(chunk);
      return;
    }
    if (chunk.length > 0) this.seen = true;
    let data = chunk;
    if (this.carryLen > 0) {
      if (chunk.indexOf(0x0a) === -1) {
        this.hold(chunk);
        return;
      }
      this.carry.push(chunk);
      data = Buffer.concat(this.carry, this.carryLen + chunk.length);
      this.carry = [];
      this.carryLen = 0;
    }
    let off = 0;
    while (off < data.length && !this.done) {
      switch (this.state) {
        case 'body-length': {
          const n = Math.min(this.remaining, data.length - off);
          data.copy(this.lengthBody as Buffer, this.lengthOffset, off, off + n);
          this.lengthOffset += n;
          this.remaining -= n;
          off += n;
          if (this.remaining === 0) this.complete();
          break;
        }
        case 'chunk-data': {
          const n = Math.min(this.remaining, data.length - off);
          this.parts.push(data.subarray(off, off + n));
          this.bodySize += n;
          this.remaining -= n;
          off += n;
          if (this.remaining === 0) this.state = 'chunk-end';
          break;
        }
        case 'body-close': {
          this.addBody(data.subarray(off));
          off = data.length;
          break;
        }
        default: {
          const lf = data.indexOf(0x0a, off);
          if (lf === -1) {
            this.hold(data.subarray(off));
            off = data.length;
            break;
          }
          // Bare LF ends a line too: real servers send it and it is safe here
          // (RFC 9112 §2.2 allows a recipient to accept it).
          const end = lf > off && data[lf - 1] === 0x0d ? lf - 1 : lf;
          const line = data.toString('latin1', off, end);
          this.countSection(lf + 1 - off);
          off = lf + 1;
          // RFC 9112 §2.2: a bare CR (not before LF) makes the element invalid;
          // parsers that read it as a line end would frame this differently.
          if (line.indexOf('\r') !== -1) throw badResponse(`bare CR in ${this.where()}: ${excerpt(line)}`);
          this.onLine(line);
        }
      }
    }
    if (this.done && off < data.length) this.extraParts.push(data.subarray(off));
  }

  /** The peer closed the connection. Completes a close-delimited body, else throws ERR_PREMATURE_CLOSE. */
  end(): void {
    if (this.done) return;
    if (this.state === 'body-close') {
      this.complete();
      return;
    }
    const where = !this.seen
      ? 'before any response byte'
      : this.state === 'status' || this.state === 'headers'
        ? 'before the end of the headers'
        : this.state === 'trailers'
          ? 'before the end of the trailers'
          : this.framing === 'length'
            ? `with the body incomplete (${this.lengthOffset} of ${this.lengthOffset + this.remaining} bytes received)`
            : `with the chunked body incomplete (${this.bodySize} bytes received)`;
    throw new CrawlerError('ERR_PREMATURE_CLOSE', `connection closed ${where}`);
  }

  private countSection(n: number): void {
    if (this.state === 'status' || this.state === 'headers' || this.state === 'trailers') {
      this.sectionBytes += n;
      if (this.sectionBytes > this.limits.maxHeaderBytes) {
        const what = this.state === 'trailers' ? 'trailer' : 'header';
        throw new CrawlerError('ERR_HEADERS_OVERFLOW', `response ${what} section larger than ${this.limits.maxHeaderBytes} bytes`);
      }
    }
  }

  /** What the current line is, for error messages. */
  private where(): string {
    return this.state === 'status' ? 'the status line' : this.state === 'headers' ? 'a header line' : this.state === 'trailers' ? 'a trailer line' : 'a chunk line';
  }

  /**
   * Keeps `piece` (no LF in it) of an unfinished line and checks what is
   * known already, so that garbage or a flood fails at once rather than at
   * the cap: the caps, a status line's shape, a bare CR, whitespace before
   * the first header line.
   */
  private hold(piece: Buffer): void {
    if (piece.length === 0) return;
    const before = this.carryLen;
    const last = this.carry[this.carry.length - 1];
    const prevCR = last !== undefined && last[last.length - 1] === 0x0d;
    this.carry.push(Buffer.from(piece));
    this.carryLen += piece.length;
    const n = this.carryLen;
    const cr = piece.indexOf(0x0d);
    if (prevCR || (cr !== -1 && cr < piece.length - 1)) throw badResponse(`bare CR in ${this.where()}`);
    if (this.state === 'chunk-size' || this.state === 'chunk-end') {
      if (n > MAX_CHUNK_LINE) throw badResponse(`chunk-size line longer than ${MAX_CHUNK_LINE} bytes`);
      return;
    }
    if (this.state === 'status' && before < STATUS_SHAPE.length) {
      const start = (this.carry.length === 1 ? piece : Buffer.concat(this.carry, n)).toString('latin1', 0, Math.min(n, STATUS_SHAPE.length));
      if (!statusShapeOk(start)) throw badResponse(`not an HTTP/1.x response: ${excerpt(start)}`);
    }
    if (this.state === 'headers' && before === 0 && this.headers.length === 0 && (piece[0] === 0x20 || piece[0] === 0x09)) {
      throw badResponse('whitespace before the first header line');
    }
    if (this.sectionBytes + n > this.limits.maxHeaderBytes) {
      const what = this.state === 'trailers' ? 'trailer' : 'header';
      throw new CrawlerError('ERR_HEADERS_OVERFLOW', `response ${what} section larger than ${this.limits.maxHeaderBytes} bytes`);
    }
  }

  private onLine(line: string): void {
    switch (this.state) {
      case 'status':
        return this.onStatusLine(line);
      case 'headers':
        if (line.length === 0) return this.onHeadersEnd();
        if (addFieldLine(this.headers, line)) this.looseName = true;
        return;
      case 'chunk-size':
        return this.onChunkSize(line);
      case 'chunk-end':
        if (line.length !== 0) throw badResponse(`missing CRLF after chunk data: ${excerpt(line)}`);
        this.state = 'chunk-size';
        return;
      case 'trailers':
        if (line.length === 0) return this.complete();
        if (addFieldLine(this.trailers, line)) this.looseName = true;
        return;
      default:
        return;
    }
  }

  private onStatusLine(line: string): void {
    if (line.length === 0) {
      if (++this.leadingEmpty > MAX_LEADING_EMPTY) throw badResponse('empty lines instead of a status line');
      this.sectionBytes = 0;
      return;
    }
    const m = STATUS_RE.exec(line);
    if (m === null) throw badResponse(`invalid status line: ${excerpt(line)}`);
    this.version = line.slice(5, 8);
    this.minor = m[1] === undefined ? -1 : Number(m[1]);
    this.status = Number(m[2]);
    this.reason = m[3] ?? '';
    this.sawStatus = true;
    this.state = 'headers';
  }

  private onHeadersEnd(): void {
    const status = this.status;
    // RFC 9110 §15.2: interim responses are followed by the final one.
    if (status >= 100 && status < 200 && status !== 101) {
      this.headers = [];
      this.sectionBytes = 0;
      this.leadingEmpty = 0;
      this.state = 'status';
      return;
    }
    // RFC 9112 §9.3: HTTP/1.1 and later persist unless "close"; HTTP/1.0 only with "keep-alive".
    const connection = headerValues(this.headers, 'connection');
    this.keepAlive = this.minor >= 1 ? !hasToken(connection, 'close') : hasToken(connection, 'keep-alive');
    // Proxy-Connection is not standard, but "close" there is honoured as both
    // reference parsers do: closing is always safe. A field name we kept loose,
    // or a 101 (the connection now speaks another protocol), ends reuse too.
    if (this.looseName || status === 101 || hasToken(headerValues(this.headers, 'proxy-connection'), 'close')) this.keepAlive = false;
    const te = headerValues(this.headers, 'transfer-encoding');
    const cl = headerValues(this.headers, 'content-length');
    // RFC 9112 §6.3 rules 1 and 2: no body for HEAD, 1xx, 204 and 304; after
    // a 101 the bytes belong to another protocol (RFC 9110 §15.2.2): `extra`.
    if (this.headRequest || status === 204 || status === 304 || status === 101) {
      this.framing = 'none';
      this.complete();
      return;
    }
    if (te.length > 0) {
      // Rule 3: Transfer-Encoding overrides Content-Length; both present is a
      // smuggling signal, so never reuse the connection after it.
      if (cl.length > 0) this.keepAlive = false;
      if (finalCodingIsChunked(te)) {
        this.framing = 'chunked';
        this.state = 'chunk-size';
      } else {
        this.startClose();
      }
      return;
    }
    if (cl.length > 0) {
      // Rule 5: several differing values are an error (parseContentLength per value, then compare).
      let length = -1;
      for (const v of cl) {
        const n = parseContentLength(v);
        if (length !== -1 && n !== length) throw badResponse(`conflicting Content-Length values ${excerpt(cl.join(', '))}`);
        length = n;
      }
      if (length > this.limits.maxBodyBytes) {
        throw new CrawlerError('ERR_BODY_OVERFLOW', `response body of ${length} bytes is larger than the ${this.limits.maxBodyBytes}-byte cap`);
      }
      this.framing = 'length';
      this.remaining = length;
      this.lengthBody = Buffer.allocUnsafe(length);
      if (length === 0) this.complete();
      else this.state = 'body-length';
      return;
    }
    this.startClose();
  }

  /** Rule 8: the body runs until the server closes; the connection cannot be reused. */
  private startClose(): void {
    this.framing = 'close';
    this.keepAlive = false;
    this.state = 'body-close';
  }

  private onChunkSize(line: string): void {
    const semi = line.indexOf(';');
    // Chunk extensions are ignored unparsed (RFC 9112 §7.1.1): the line ends
    // at its LF whatever they hold. Spaces or tabs after the size (BWS) are
    // tolerated, as real servers send them; before it they are not.
    const c0 = line.charCodeAt(0);
    if (c0 === 32 || c0 === 9) throw badResponse(`invalid chunk size ${excerpt(line)}`);
    const size = trimOws(semi === -1 ? line : line.slice(0, semi));
    if (!HEX_RE.test(size)) throw badResponse(`invalid chunk size ${excerpt(line)}`);
    const n = parseInt(size, 16);
    if (n === 0) {
      this.sectionBytes = 0;
      this.state = 'trailers';
      return;
    }
    if (this.bodySize + n > this.limits.maxBodyBytes) {
      throw new CrawlerError('ERR_BODY_OVERFLOW', `response body larger than the ${this.limits.maxBodyBytes}-byte cap`);
    }
    this.remaining = n;
    this.state = 'chunk-data';
  }

  private addBody(part: Buffer): void {
    if (part.length === 0) return;
    this.bodySize += part.length;
    if (this.bodySize > this.limits.maxBodyBytes) {
      throw new CrawlerError('ERR_BODY_OVERFLOW', `response body larger than the ${this.limits.maxBodyBytes}-byte cap`);
    }
    this.parts.push(part);
  }

  private complete(): void {
    let body: Buffer;
    if (this.framing === 'length') body = this.lengthBody as Buffer;
    else if (this.parts.length === 1) body = this.parts[0] as Buffer;
    else body = Buffer.concat(this.parts, this.bodySize);
    this.parts = [];
    this.result = {
      version: this.version,
      status: this.status,
      reason: this.reason,
      headers: this.headers,
      trailers: this.trailers,
      body,
      keepAlive: this.keepAlive,
      framing: this.framing,
    };
    this.state = 'done';
  }
}

/** True when `start` (a status line's first bytes) can still begin "HTTP/d.d ddd". A lone CR may be an empty line's. */
function statusShapeOk(start: string): boolean {
  if (start === '\r') return true;
  for (let i = 0; i < start.length && i < STATUS_SHAPE.length; i++) {
    const want = STATUS_SHAPE.charCodeAt(i);
    const c = start.charCodeAt(i);
    if (want === 57 ? c < 48 || c > 57 : c !== want) return false;
  }
  return true;
}
