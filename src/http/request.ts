/**
 * Builds the bytes of an HTTP/1.1 request (RFC 9112 §3). Pure: same input,
 * same bytes, no I/O. The request target is percent-encoded so that no
 * control character, space or non-ASCII byte can reach the request line,
 * and header values are checked so that no header can be injected.
 */
import { CrawlerError } from '../errors.js';
import type { HttpUrl } from '../url/http-url.js';
import { encodeTarget } from '../url/request-target.js';

export interface RequestSpec {
  method?: 'GET' | 'HEAD';
  /** The URL to request; its `target` is the request target, its host the Host header. */
  url: HttpUrl;
  userAgent: string;
  /** false sends `Connection: close`. */
  keepAlive: boolean;
  /** true asks for gzip or br bodies (`Accept-Encoding: gzip, br`); otherwise for unencoded ones (`identity`). */
  compressed?: boolean;
  /** Extra header fields, sent after the standard ones. */
  headers?: ReadonlyArray<readonly [string, string]>;
}

/** The Host header value: punycode host, port only when not the default. */
export function hostHeader(url: HttpUrl): string {
  const host = url.hostname.includes(':') ? `[${url.hostname}]` : url.hostname;
  const dflt = url.scheme === 'https' ? 443 : 80;
  return url.port === dflt ? host : `${host}:${url.port}`;
}

// RFC 9110 §5.1 token; §5.5 field values: no CR, LF or NUL.
const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// eslint-disable-next-line no-control-regex
const BAD_VALUE_RE = /[\r\n\u0000]/;

function checkHeader(name: string, value: string): void {
  if (!TOKEN_RE.test(name)) throw new CrawlerError('ERR_INVALID_OPTION', `invalid header name "${name}"`);
  if (BAD_VALUE_RE.test(value)) throw new CrawlerError('ERR_INVALID_OPTION', `invalid value for header ${name}: contains CR, LF or NUL`);
}

/** The Accept-Encoding value `--compressed` sends (RFC 9110 §12.5.3). */
export const ACCEPT_COMPRESSED = 'gzip, br';

/** The request bytes for `spec`. Throws CrawlerError for an unsafe header. */
export function buildRequest(spec: RequestSpec): Buffer {
  checkHeader('User-Agent', spec.userAgent);
  // A URL made by src/url/ carries its target encoded, and encoding it again
  // returns that same string (one scan, no copy); a URL put together by hand,
  // bypassing the URL layer, still cannot put a control character, space or
  // non-ASCII byte on the request line.
  let head =
    `${spec.method ?? 'GET'} ${encodeTarget(spec.url.target)} HTTP/1.1\r\n` +
    `Host: ${hostHeader(spec.url)}\r\n` +
    `User-Agent: ${spec.userAgent}\r\n` +
    'Accept: text/html,application/xhtml+xml,*/*;q=0.8\r\n' +
    // Without --compressed, bodies are kept byte for byte, so ask for them unencoded.
    `Accept-Encoding: ${spec.compressed === true ? ACCEPT_COMPRESSED : 'identity'}\r\n` +
    `Connection: ${spec.keepAlive ? 'keep-alive' : 'close'}\r\n`;
  for (const [name, value] of spec.headers ?? []) {
    checkHeader(name, value);
    head += `${name}: ${value}\r\n`;
  }
  return Buffer.from(head + '\r\n', 'latin1');
}
