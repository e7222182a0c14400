/**
 * One TCP (or TLS) connection to one origin and its life: connect with a
 * timeout, carry one request at a time, enforce the idle and whole-response
 * timeouts, and say afterwards whether it may carry another.
 */
import type { Socket } from 'node:net';
import { CrawlerError, type ErrorCode } from '../errors.js';
import { socketErrorCode, socketFailureWords } from '../net-errors.js';
import { ResponseParser, type ParsedResponse, type ParserLimits, type WantsBody } from './response-parser.js';
import { epochNow, truncationOf, type Truncation } from './wire-exchange.js';

/** Where to connect. */
export interface Endpoint {
  hostname: string;
  port: number;
  tls: boolean;
  /** Whether to verify the server's certificate (default true). */
  rejectUnauthorized?: boolean;
}

/**
 * Makes a connected socket within `timeoutMs`, or rejects with a CrawlerError
 * (a ConnectError for a host that cannot be reached). The default is
 * socketConnector (socket-connector.ts); tests swap in their own.
 */
export type Connector = (endpoint: Endpoint, timeoutMs: number) => Promise<Socket>;

/** Per-request options. */
export interface ExchangeOptions {
  idleTimeoutMs: number;
  responseTimeoutMs: number;
  limits: ParserLimits;
  head?: boolean;
  /** Whether the body is of use, asked of the head (see ResponseParserOptions.wantsBody). Absent: always. */
  wantsBody?: WantsBody | undefined;
  /** Called once the request bytes have been handed to the socket (politeness stamps here). */
  onRequestWritten?: () => void;
  /** Called when the first byte of the response arrives (politeness learns how late the request may have reached the server). */
  onFirstByte?: () => void;
  /**
   * Told the bytes read for this response and when, once the exchange ended
   * (well or not). Without it nothing is kept beyond what the parser needs.
   */
  observe?: (wire: WireBytes) => void;
}

/** What the connection saw of one exchange (the client adds the request and the URL). */
export interface WireBytes {
  /** The peer's address (socket.remoteAddress). */
  ip: string | undefined;
  /** Epoch ms (fractional) when the request was handed to the socket (or the exchange failed before that). */
  startedAt: number;
  endedAt: number;
  /** The bytes read for the response message, without any read past its end. */
  response: Buffer;
  /** The body, transfer coding removed, when the response was complete. */
  payload: Buffer | undefined;
  /** The final status, 0 when none arrived. */
  status: number;
  /**
   * Why `response` ends before the message did (WARC-Truncated): a failure
   * after some bytes came, or `length` for an unwanted body not read
   * (ParsedResponse.unwanted `cut`). Undefined when it is the whole message.
   */
  truncated: Truncation | undefined;
  error: ExchangeError | undefined;
}

/** A failed exchange, with whether anything of the response had arrived (decides stale retry). */
export class ExchangeError extends CrawlerError {
  readonly receivedBytes: boolean;
  /** The final status, when its status line and headers had arrived before the failure (a body over the cap, a reset mid-body). */
  readonly status: number | undefined;
  constructor(code: ErrorCode, message: string, receivedBytes: boolean, cause?: unknown, status?: number) {
    super(code, message, { cause });
    this.receivedBytes = receivedBytes;
    this.status = status;
  }
}

/** One socket to one origin, carrying one request at a time. */
export class Connection {
  readonly socket: Socket;
  /** How many responses this connection has delivered. */
  served = 0;
  private reusable = true;
  private closed = false;
  /**
   * Bytes that arrive while no request is in flight answer nothing we sent
   * (a server that wrote more than its framing said, or an unsolicited
   * 408 before an idle close): the framing of whatever follows cannot be
   * trusted, so the connection is closed instead of reused. Listening only
   * between exchanges keeps the socket's data for the next parser otherwise.
   */
  private readonly onStray = (): void => this.close();

  constructor(socket: Socket) {
    this.socket = socket;
    const markClosed = (): void => {
      this.closed = true;
    };
    socket.on('close', markClosed);
    socket.on('end', markClosed);
    // Errors between requests only mark the connection dead; a request in
    // flight has its own listener.
    socket.on('error', markClosed);
  }

  /** True when the connection may carry another request. */
  get alive(): boolean {
    return this.reusable && !this.closed && !this.socket.destroyed;
  }

  /** Closes the socket now. */
  close(): void {
    this.reusable = false;
    this.socket.destroy();
  }

  /** Writes a request and resolves with the complete response. Rejects with ExchangeError. */
  exchange(request: Buffer, options: ExchangeOptions): Promise<ParsedResponse> {
    const socket = this.socket;
    return new Promise<ParsedResponse>((resolve, reject) => {
      const parser = new ResponseParser({ limits: options.limits, headRequest: options.head === true, wantsBody: options.wantsBody });
      let received = false;
      let settled = false;
      // The tap: the chunks fed to the parser, kept (not copied) only when someone observes.
      const observe = options.observe;
      const seen: Buffer[] | undefined = observe === undefined ? undefined : [];
      let startedAt = 0;
      let ip: string | undefined;
      const finish = (err: ExchangeError | undefined, res?: ParsedResponse): void => {
        if (settled) return;
        settled = true;
        // Computed before close() below (which may drop the peer's address); told once the promise is settled.
        const wire = observe === undefined ? undefined : this.wire(seen as Buffer[], parser, startedAt, ip, err, res);
        clearTimeout(wholeTimer);
        socket.setTimeout(0);
        socket.off('data', onData);
        socket.off('end', onEnd);
        socket.off('close', onEnd);
        socket.off('error', onError);
        socket.off('timeout', onIdle);
        if (err !== undefined) {
          this.close();
          reject(err);
        } else {
          this.served++;
          if (res === undefined || !res.keepAlive || parser.extra.length > 0) this.close();
          else socket.on('data', this.onStray);
          resolve(res as ParsedResponse);
        }
        if (wire !== undefined) (observe as (w: WireBytes) => void)(wire);
      };
      const fail = (code: ErrorCode, message: string, cause?: unknown): void =>
        finish(new ExchangeError(code, message, received, cause, parser.head?.status));
      const onData = (chunk: Buffer): void => {
        if (!received) options.onFirstByte?.();
        received = true;
        seen?.push(chunk);
        try {
          parser.feed(chunk);
        } catch (err) {
          const e = err as CrawlerError;
          fail(e.code ?? 'ERR_BAD_RESPONSE', e.message, err);
          return;
        }
        if (parser.done) finish(undefined, parser.response);
      };
      const onEnd = (): void => {
        if (settled) return;
        try {
          parser.end();
        } catch (err) {
          const e = err as CrawlerError;
          fail(e.code ?? 'ERR_PREMATURE_CLOSE', e.message, err);
          return;
        }
        if (parser.done) finish(undefined, parser.response);
        else fail('ERR_PREMATURE_CLOSE', 'connection closed before the response was complete');
      };
      const onError = (err: Error): void => fail(socketErrorCode(err), socketFailureWords(err), err);
      const onIdle = (): void => fail('ERR_IDLE_TIMEOUT', `no data for ${options.idleTimeoutMs} ms (idle timeout)`);
      const wholeTimer = setTimeout(
        () => fail('ERR_RESPONSE_TIMEOUT', `response not complete after ${options.responseTimeoutMs} ms (response timeout)`),
        options.responseTimeoutMs,
      );
      socket.off('data', this.onStray);
      if (observe !== undefined) {
        startedAt = epochNow();
        ip = socket.remoteAddress;
      }
      if (this.closed || socket.destroyed) {
        fail('ERR_PREMATURE_CLOSE', 'connection closed before the request was sent');
        return;
      }
      socket.on('data', onData);
      socket.once('end', onEnd);
      socket.once('close', onEnd);
      socket.on('error', onError);
      socket.setTimeout(options.idleTimeoutMs, onIdle);
      socket.write(request);
      options.onRequestWritten?.();
    });
  }

  /** The tap's view of an ended exchange: exactly the bytes of the message (what the parser read past its end is cut off). */
  private wire(seen: Buffer[], parser: ResponseParser, startedAt: number, ip: string | undefined, error: ExchangeError | undefined, res: ParsedResponse | undefined): WireBytes {
    let response = seen.length === 1 ? (seen[0] as Buffer) : Buffer.concat(seen);
    if (error === undefined) {
      const extra = parser.extra.length;
      if (extra > 0) response = response.subarray(0, response.length - extra);
    }
    const cut = res?.unwanted === 'cut';
    return {
      ip,
      startedAt,
      endedAt: epochNow(),
      response,
      payload: error === undefined && !cut ? res?.body : undefined,
      status: res?.status ?? parser.head?.status ?? 0,
      truncated: error !== undefined ? (response.length > 0 ? truncationOf(error.code) : undefined) : cut ? 'length' : undefined,
      error,
    };
  }
}
