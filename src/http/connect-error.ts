/**
 * The host could not be reached: its name did not resolve, the connection
 * was refused or not answered, or the TLS handshake failed. Nothing was
 * sent, so no server said anything: a program that must say why a URL
 * failed names this cause first (spec decision "Errors name their cause
 * first"), never what the missing answer would have meant.
 */
import { CrawlerError, type ErrorCode } from '../errors.js';

/** The codes a ConnectError carries. */
export type ConnectErrorCode = Extract<ErrorCode, 'ERR_DNS' | 'ERR_CONNECT' | 'ERR_CONNECT_TIMEOUT' | 'ERR_TLS'>;

/** A failure to reach `host` (and `port`, when the lookup had succeeded), before any request was sent. */
export class ConnectError extends CrawlerError {
  declare readonly code: ConnectErrorCode;
  /** The host name (or IP literal) that could not be reached. */
  readonly host: string;
  /** The port, or undefined for a name that did not resolve (no port was tried). */
  readonly port: number | undefined;
  /** The system's code behind it (ECONNREFUSED, ENOTFOUND, CERT_HAS_EXPIRED...), '' when there is none (our own timeout). */
  readonly systemCode: string;

  constructor(code: ConnectErrorCode, message: string, where: { host: string; port?: number | undefined; systemCode?: string; cause?: unknown }) {
    super(code, message, where.cause === undefined ? {} : { cause: where.cause });
    this.host = where.host;
    this.port = where.port;
    this.systemCode = where.systemCode ?? '';
  }
}
