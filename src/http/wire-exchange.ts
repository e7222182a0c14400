/**
 * One exchange as it was on the wire: the bytes written for a request and
 * the bytes read for its response, with when, where and how it ended. The
 * HTTP client reports one per request it sends (pages, robots.txt and every
 * redirect hop alike) to its `onExchange` observer; the crawl archive keeps
 * these bytes as they are, and the report draws their timing.
 */
import type { CrawlerError } from '../errors.js';
import type { HttpUrl } from '../url/http-url.js';

/** Why a response's bytes end early (WARC-Truncated's values). */
export type Truncation = 'length' | 'time' | 'disconnect';

export interface WireExchange {
  /** The URL requested. */
  url: HttpUrl;
  method: 'GET' | 'HEAD';
  /** The peer's IP address, when a socket was connected. */
  ip: string | undefined;
  /** Epoch milliseconds (fractional) when the request bytes were handed to the socket. */
  startedAt: number;
  /** Epoch milliseconds (fractional) when the response was complete or the exchange failed. */
  endedAt: number;
  /** The bytes written to the socket for this request. */
  request: Buffer;
  /** The bytes read for this response message: status line, header section as sent, framing, trailers. Empty when none arrived. */
  response: Buffer;
  /** The body with the transfer coding removed (the WARC payload), when the response was complete. */
  payload: Buffer | undefined;
  /** The status, or 0 when no status line arrived. */
  status: number;
  /** Set when the response bytes were cut short. */
  truncated?: Truncation | undefined;
  /** Set when the exchange failed (no response, or an incomplete one). */
  error?: CrawlerError | undefined;
  /** True when the exchange used a kept-alive connection that had served before. */
  reused: boolean;
}

/** An observer of wire exchanges. */
export type ExchangeObserver = (exchange: WireExchange) => void;
