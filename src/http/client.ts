/**
 * The HTTP/1.1 client: one request and its response, over a kept-alive
 * connection to the origin when one is idle (RFC 9112 §9.3), a fresh one
 * otherwise. A request that fails on a reused connection before any byte of
 * the response arrived is retried once on a fresh connection: the server may
 * have closed the idle connection just as we wrote (RFC 9112 §9.3.1).
 *
 * Connections and the budget of open sockets (under the process's open-file
 * limit; past it requests wait) are the ConnectionPool's (connection-pool.ts).
 *
 * The client only fetches. Redirects, robots.txt and politeness belong to
 * the engine, which sees every hop (each hop is a request start to a host).
 */
import { CrawlerError } from '../errors.js';
import type { HttpUrl } from '../url/http-url.js';
import { Connection, ExchangeError, type Connector, type WireBytes } from './connection.js';
import { ConnectionPool } from './connection-pool.js';
import { HostResolver } from './host-resolver.js';
import { buildRequest } from './request.js';
import { socketBudget } from './socket-budget.js';
import { socketConnector } from './socket-connector.js';
import { DEFAULT_LIMITS, type ParsedResponse, type ParserLimits, type WantsBody } from './response-parser.js';
import { epochNow, type ExchangeObserver } from './wire-exchange.js';

/** Client settings; every wait and size is bounded. */
export interface HttpClientOptions {
  userAgent: string;
  /** Reuse connections (default true); false sends `Connection: close`. */
  keepAlive: boolean;
  connectTimeoutMs: number;
  idleTimeoutMs: number;
  responseTimeoutMs: number;
  limits: ParserLimits;
  /**
   * Ask for gzip or br bodies and decode them (default false: ask for
   * `identity` and keep any body as sent). A 2xx response's body is then
   * decoded, within `limits.maxBodyBytes`, and loses its Content-Encoding
   * fields; the wire tap still gets the bytes as they came (see
   * content-decoding.ts).
   */
  compressed: boolean;
  /** Verify TLS certificates (default true). */
  rejectUnauthorized: boolean;
  /** Most idle connections kept per origin. */
  maxIdlePerOrigin: number;
  /** Most idle connections kept, all origins together; the least recently used is closed first. */
  maxIdleConnections: number;
  /**
   * Most sockets open at once, connecting, in use or idle; a request past it
   * waits for one to close. Default: the process's open-file limit less a
   * margin for files (socket-budget.ts).
   */
  maxSockets?: number | undefined;
  /**
   * Makes the connections. Default: a socketConnector with a HostResolver of
   * this client's own, so each name is looked up once in the client's life
   * (one crawl), its failure too.
   */
  connector: Connector;
  /**
   * The wire tap: told every exchange this client attempts, as it ends: the
   * request bytes, exactly the response message's bytes, timing, peer and
   * how it ended. A request that got no answer (no connection) is told too,
   * with an empty response and `sent` false, and a stale keep-alive retry
   * tells both tries.
   * Unset (the default), the client keeps no bytes for it.
   */
  onExchange?: ExchangeObserver | undefined;
}

export const DEFAULT_CLIENT_OPTIONS: Omit<HttpClientOptions, 'userAgent' | 'connector'> = {
  keepAlive: true,
  connectTimeoutMs: 10_000,
  idleTimeoutMs: 15_000,
  responseTimeoutMs: 30_000,
  limits: DEFAULT_LIMITS,
  compressed: false,
  rejectUnauthorized: true,
  maxIdlePerOrigin: 4,
  maxIdleConnections: 4096,
};

/**
 * What one exchange gave. Its `notes` (from ParsedResponse) say what the
 * parser tolerated, such as a skipped header line, for the user to see.
 * With `compressed`, a 2xx answer's body is decoded (its content codings
 * removed) and its Content-Encoding fields are gone.
 */
export interface FetchResponse extends ParsedResponse {
  /** The URL that was requested. */
  url: HttpUrl;
  /**
   * The body's size as it travelled: with --compressed, before its content
   * coding was undone (`body` is then the decoded body). Absent only in a
   * response made elsewhere (a test's): then `body.length`.
   */
  wireBodyBytes?: number;
  /** True when the response came over a connection that had served before. */
  reused: boolean;
}

export interface FetchOptions {
  head?: boolean;
  /** Header fields sent after the standard ones (a refresh's If-None-Match, If-Modified-Since); checked by buildRequest. */
  headers?: ReadonlyArray<readonly [string, string]> | undefined;
  /**
   * Whether the body is of any use, asked of the response's head (a page
   * whose Content-Type is not HTML is not). False: a short body is read and
   * dropped, a longer one not read at all, the connection closed (see
   * UNWANTED_BODY_DRAIN_BYTES); the response says which in `unwanted`, and
   * with `compressed` it is not decoded. Absent: every body is read.
   */
  wantsBody?: WantsBody | undefined;
  /** Called when the request bytes are written (politeness measures request starts). */
  onRequestWritten?: () => void;
  /** Called when the first byte of the response arrives. */
  onFirstByte?: () => void;
  /**
   * Awaited before a request is sent again on a fresh connection because the
   * kept-alive one turned out closed: the re-sent request is a request start
   * of its own, so politeness may make it wait its turn (spec decision "When
   * the server pushes back"). It may reject (a stop) to give the request up.
   */
  beforeResend?: () => Promise<void>;
}

export class HttpClient {
  readonly options: HttpClientOptions;
  private readonly pool: ConnectionPool;
  /** Set by close(): no connection is opened after it (a request it cut short is not retried). */
  private closed = false;

  constructor(options: Partial<HttpClientOptions> & { userAgent: string }) {
    this.options = { ...DEFAULT_CLIENT_OPTIONS, ...options, connector: options.connector ?? socketConnector(new HostResolver()) };
    const { maxIdlePerOrigin, maxIdleConnections: maxIdle } = this.options;
    this.pool = new ConnectionPool({ maxSockets: this.options.maxSockets ?? socketBudget(), maxIdle, maxIdlePerOrigin });
  }

  /** Connections opened so far and not yet closed. */
  get openConnections(): number {
    return this.pool.openConnections;
  }

  /** Idle connections kept for reuse. */
  get idleConnections(): number {
    return this.pool.idleConnections;
  }

  /** Performs one GET (or HEAD). Rejects with CrawlerError when no complete response arrived. */
  async fetch(url: HttpUrl, options: FetchOptions = {}): Promise<FetchResponse> {
    const request = buildRequest({ method: options.head ? 'HEAD' : 'GET', url, userAgent: this.options.userAgent, keepAlive: this.options.keepAlive, compressed: this.options.compressed, ...(options.headers === undefined ? {} : { headers: options.headers }) });
    const pooled = this.pool.take(url.origin);
    if (pooled !== undefined) {
      try {
        return await this.exchangeOn(pooled, url, request, options, true);
      } catch (err) {
        // Stale keep-alive connection: retry once on a fresh one, in the host's next turn.
        if (!(err instanceof ExchangeError) || err.receivedBytes || !isStaleCode(err.code)) throw err;
      }
      await options.beforeResend?.();
    }
    if (this.closed) throw new CrawlerError('ERR_ABORTED', `client closed: not requesting ${url.href}`, { url: url.href });
    const startedAt = this.options.onExchange === undefined ? 0 : epochNow();
    let fresh: Connection;
    try {
      fresh = await this.connect(url);
    } catch (err) {
      // No connection, so no answer: the tap still hears of the request that would have been sent.
      if (this.options.onExchange !== undefined && !(err instanceof CrawlerError && err.code === 'ERR_ABORTED')) {
        const error = err instanceof CrawlerError ? err : new CrawlerError('ERR_SOCKET', String(err), { cause: err });
        this.tell(url, request, options, false, false, { ip: undefined, startedAt, endedAt: epochNow(), response: Buffer.alloc(0), payload: undefined, status: 0, truncated: undefined, error });
      }
      throw err;
    }
    return this.exchangeOn(fresh, url, request, options, false);
  }

  /** Closes every connection; the client makes no request after this. */
  close(): void {
    this.closed = true;
    this.pool.close();
  }

  /** A new connection for `url`, once the socket budget has room for it (see connection-pool.ts). */
  private async connect(url: HttpUrl): Promise<Connection> {
    const closedError = (): CrawlerError => new CrawlerError('ERR_ABORTED', `client closed: not requesting ${url.href}`, { url: url.href });
    if (!(await this.pool.reserve())) throw closedError();
    let socket;
    try {
      socket = await this.options.connector(
        { hostname: url.hostname, port: url.port, tls: url.scheme === 'https', rejectUnauthorized: this.options.rejectUnauthorized },
        this.options.connectTimeoutMs,
      );
    } catch (err) {
      this.pool.unreserve();
      throw err;
    }
    const conn = new Connection(socket);
    // Counted until its socket closes; a pool closed while we connected closes it.
    this.pool.adopt(conn, url.origin);
    if (this.closed) throw closedError();
    return conn;
  }

  private async exchangeOn(conn: Connection, url: HttpUrl, request: Buffer, options: FetchOptions, reused: boolean): Promise<FetchResponse> {
    const tapped = this.options.onExchange !== undefined;
    // For the tap: whether the request left (a connection found closed fails before writing it).
    let sent = false;
    const written = options.onRequestWritten;
    const res = await conn.exchange(request, {
      idleTimeoutMs: this.options.idleTimeoutMs,
      responseTimeoutMs: this.options.responseTimeoutMs,
      limits: this.options.limits,
      head: options.head === true,
      wantsBody: options.wantsBody,
      ...(options.onFirstByte === undefined ? {} : { onFirstByte: options.onFirstByte }),
      ...(tapped
        ? {
            onRequestWritten: () => {
              sent = true;
              written?.();
            },
            observe: (wire: WireBytes) => this.tell(url, request, options, reused, sent, wire),
          }
        : written !== undefined
          ? { onRequestWritten: written }
          : {}),
    });
    if (this.options.keepAlive) this.pool.put(url.origin, conn);
    else conn.close();
    const out = res as FetchResponse;
    out.url = url;
    out.reused = reused;
    // Kept as a number: a body that waits on disk for its turn is not read back to learn its size.
    out.wireBodyBytes = out.body.length;
    // An unwanted body, even one read whole, is of no use decoded.
    if (!this.options.compressed || out.unwanted !== undefined) return out;
    // Loaded only with --compressed: a crawl without it never loads zlib.
    const { decodeResponse } = await import('./content-decoding.js');
    return decodeResponse(out, this.options.limits.maxBodyBytes);
  }

  /** Tells the tap one exchange. */
  private tell(url: HttpUrl, request: Buffer, options: FetchOptions, reused: boolean, sent: boolean, wire: Omit<WireBytes, 'error'> & { error: CrawlerError | undefined }): void {
    const { error, response } = wire;
    (this.options.onExchange as ExchangeObserver)({
      url,
      method: options.head === true ? 'HEAD' : 'GET',
      ip: wire.ip,
      sent,
      startedAt: wire.startedAt,
      endedAt: wire.endedAt,
      request,
      response,
      payload: wire.payload,
      status: wire.status,
      truncated: wire.truncated,
      error,
      reused,
    });
  }
}

function isStaleCode(code: string): boolean {
  return code === 'ERR_SOCKET' || code === 'ERR_PREMATURE_CLOSE';
}
