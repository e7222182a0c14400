/**
 * One exchange as it was on the wire: the bytes written for a request and
 * the bytes read for its response, with when, where and how it ended. The
 * HTTP client reports one per request it sends (pages, robots.txt and every
 * redirect hop alike) to its `onExchange` observer; the crawl archive keeps
 * these bytes as they are, and the report draws their timing.
 */
import type { CrawlerError } from '../errors.js';
import type { HttpUrl } from '../url/http-url.js';

/**
 * Why a response's bytes end early (WARC-Truncated's values, WARC 1.1 §5.13):
 * `length` a size cap (an unwanted body's drain threshold too), `time` the
 * idle or whole-response timeout, `disconnect` a reset or a close before the
 * end, `unspecified` anything else that stopped the reading (a malformed
 * response).
 */
export type Truncation = 'length' | 'time' | 'disconnect' | 'unspecified';

export interface WireExchange {
  /** The URL requested. */
  url: HttpUrl;
  method: 'GET' | 'HEAD';
  /** The peer's IP address, when a socket was connected. */
  ip: string | undefined;
  /**
   * True when the request bytes were handed to a connected socket. False when
   * they never left: no connection was made (refused, unreachable, unknown
   * name, TLS handshake failed, connect timeout), or the connection closed
   * before the request could be written. The archive writes a `request`
   * record only for a request that was sent.
   */
  sent: boolean;
  /** Epoch milliseconds (fractional) when the request bytes were handed to the socket. */
  startedAt: number;
  /** Epoch milliseconds (fractional) when the response was complete or the exchange failed. */
  endedAt: number;
  /** The bytes written to the socket for this request. */
  request: Buffer;
  /**
   * The bytes read for this response message: status line, header section as
   * sent (folded lines too), chunked framing and trailers, and any interim
   * 1xx responses before it. Bytes read past the message's end are not in it.
   * Empty when none arrived.
   */
  response: Buffer;
  /** The body with the transfer coding removed (the WARC payload), when the response was complete. */
  payload: Buffer | undefined;
  /** The status, or 0 when no status line arrived. */
  status: number;
  /**
   * Set when response bytes arrived but are not the whole message: cut short
   * by a failure (see `error`), or `length` with no error for a body the
   * reader did not want and was left unread (FetchOptions.wantsBody).
   */
  truncated?: Truncation | undefined;
  /** Set when the exchange failed (no response, or an incomplete one). */
  error?: CrawlerError | undefined;
  /** True when the exchange used a kept-alive connection that had served before. */
  reused: boolean;
}

/** An observer of wire exchanges. */
export type ExchangeObserver = (exchange: WireExchange) => void;

/** The WARC-Truncated reason for an exchange that failed with `code` after some response bytes arrived. */
export function truncationOf(code: string): Truncation {
  if (code === 'ERR_BODY_OVERFLOW' || code === 'ERR_HEADERS_OVERFLOW') return 'length';
  if (code === 'ERR_IDLE_TIMEOUT' || code === 'ERR_RESPONSE_TIMEOUT') return 'time';
  if (code === 'ERR_SOCKET' || code === 'ERR_PREMATURE_CLOSE' || code === 'ERR_ABORTED') return 'disconnect';
  return 'unspecified';
}

/** Epoch milliseconds with a fraction (performance's clock, anchored at its time origin). */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}
