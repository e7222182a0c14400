/**
 * http and https URLs as the crawler uses them: parsed once, validated
 * (host, port, length), with the parts both programs print and the identity
 * key used for de-duplication.
 */
import { domainToASCII } from 'node:url';
import { CrawlerError } from '../errors.js';
import { encodeTarget } from './request-target.js';
import { parseUriReference, recompose, removeDotSegments, resolveParts, SLASH, type UriParts } from './uri.js';

/** Default cap on the length of a URL, in characters (`--max-url-length`). */
export const DEFAULT_MAX_URL_LENGTH = 2048;

export type HttpScheme = 'http' | 'https';

/** A parsed, validated http(s) URL. Immutable. */
export interface HttpUrl {
  readonly scheme: HttpScheme;
  /** The host as written in the URL (case kept; brackets kept for IPv6). */
  readonly host: string;
  /** The host for the wire: lower-cased, IDN as punycode, IPv6 without brackets. */
  readonly hostname: string;
  /** The port: explicit, or 80/443 by scheme. */
  readonly port: number;
  /** The path, dot segments resolved; "/" when the URL had none (see `pathWasEmpty`). */
  readonly path: string;
  /** True when the URL was written without a path (`http://host`). */
  readonly pathWasEmpty: boolean;
  /** The query without "?", or undefined when absent. */
  readonly query: string | undefined;
  /** Path plus "?query": the request target before percent-encoding. */
  readonly pathAndQuery: string;
  /**
   * The request target as it goes on the wire: `pathAndQuery` with every
   * character that must not appear raw percent-encoded (encodeTarget).
   * Computed once, when the URL is made; the same string as `pathAndQuery`
   * (no copy) when nothing needed encoding. What the request line carries
   * and what robots.txt rules are matched against.
   */
  readonly target: string;
  /** `scheme://hostname[:port]` with the default port dropped: the politeness and robots key. */
  readonly origin: string;
  /**
   * The identity key: fragment dropped, scheme and host lower-cased, default
   * port dropped, dot segments resolved, and the path and query as they are
   * requested (characters that cannot go on the wire percent-encoded).
   */
  readonly key: string;
  /** Like `key` but with the host as written: what relative links resolve against, so hosts print as written. */
  readonly href: string;
}

export function defaultPort(scheme: HttpScheme): number {
  return scheme === 'https' ? 443 : 80;
}

// WHATWG URL does the same two clean-ups: links copied out of HTML often
// carry surrounding blanks or a line break in the middle.
// eslint-disable-next-line no-control-regex
const TRIM_RE = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
const TAB_NEWLINE_RE = /[\t\n\r]/g;
// RFC 3986 reg-name characters plus "%" for pct-encoding; IDN labels are
// converted before this check.
const REG_NAME_RE = /^[A-Za-z0-9\-._~!$&'()*+,;=%]+$/;
const IPV6_RE = /^\[[0-9A-Fa-f:.]+\]$/;

/** Strips what browsers strip from a link before parsing it. */
export function cleanLink(raw: string): string {
  let s = raw;
  if (s.length > 0 && (s.charCodeAt(0) <= 0x20 || s.charCodeAt(s.length - 1) <= 0x20)) s = s.replace(TRIM_RE, '');
  if (s.indexOf('\t') !== -1 || s.indexOf('\n') !== -1 || s.indexOf('\r') !== -1) s = s.replace(TAB_NEWLINE_RE, '');
  return s;
}

interface Authority {
  host: string;
  hostname: string;
  port: number;
}

function parseAuthority(authority: string, scheme: HttpScheme, url: string): Authority {
  // Userinfo is accepted and dropped: it is never sent (no credentials leak).
  const at = authority.lastIndexOf('@');
  const hostPort = at === -1 ? authority : authority.slice(at + 1);
  let host: string;
  let portText: string | undefined;
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close === -1) throw new CrawlerError('ERR_INVALID_HOST', `invalid host in ${url}: unclosed "["`, { url });
    host = hostPort.slice(0, close + 1);
    const rest = hostPort.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) throw new CrawlerError('ERR_INVALID_HOST', `invalid host in ${url}`, { url });
    portText = rest === '' ? undefined : rest.slice(1);
  } else {
    const colon = hostPort.lastIndexOf(':');
    host = colon === -1 ? hostPort : hostPort.slice(0, colon);
    portText = colon === -1 ? undefined : hostPort.slice(colon + 1);
  }
  let port = defaultPort(scheme);
  if (portText !== undefined && portText !== '') {
    if (!/^[0-9]{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
      throw new CrawlerError('ERR_INVALID_PORT', `invalid port "${portText}" in ${url} (must be 1 to 65535)`, { url });
    }
    port = Number(portText);
  }
  if (host === '') throw new CrawlerError('ERR_INVALID_HOST', `no host in ${url}`, { url });
  let hostname: string;
  if (host.startsWith('[')) {
    if (!IPV6_RE.test(host)) throw new CrawlerError('ERR_INVALID_HOST', `invalid IPv6 host in ${url}`, { url });
    hostname = host.slice(1, -1).toLowerCase();
  } else {
    // IDN hosts go out as punycode (RFC 5890); ASCII is just lower-cased.
    let ascii = host;
    // eslint-disable-next-line no-control-regex
    if (/[^\u0000-\u007f]/.test(host)) ascii = domainToASCII(host);
    if (ascii === '' || !REG_NAME_RE.test(ascii) || ascii.startsWith('.') || ascii.includes('..')) {
      throw new CrawlerError('ERR_INVALID_HOST', `invalid host "${host}" in ${url}`, { url });
    }
    hostname = ascii.toLowerCase();
  }
  return { host, hostname, port };
}

/** An authority as a URL of its scheme uses it: parsed, with the origin and the start of the href made once. */
interface SchemeAuthority extends Authority {
  /** `scheme://host[:port]`, the host lower-cased (IPv6 in brackets), the port only when not the default. */
  origin: string;
  /** `scheme://host[:port]` as written in the link (the href's start). */
  hrefStart: string;
}

function schemeAuthority(a: Authority, scheme: HttpScheme): SchemeAuthority {
  const portPart = a.port === defaultPort(scheme) ? '' : `:${a.port}`;
  const hostForKey = a.hostname.includes(':') ? `[${a.hostname}]` : a.hostname;
  return { ...a, origin: `${scheme}://${hostForKey}${portPart}`, hrefStart: `${scheme}://${a.host}${portPart}` };
}

// Links on a page mostly share the page's authority: parse each one once.
const authorityCache = new Map<string, SchemeAuthority>();
const AUTHORITY_CACHE_SIZE = 1024;

function cachedAuthority(authority: string, scheme: HttpScheme, url: string): SchemeAuthority {
  let cacheKey = scheme === 'http' ? authority : `s:${authority}`;
  let a = authorityCache.get(cacheKey);
  if (a === undefined) {
    // A link's authority is a slice of the page it was found on, and so are
    // the host strings parsed from it: cached as they are, they would keep
    // that whole page in memory (as would every origin key made from them).
    // A copy of its own (flattened from a concatenation) holds only itself.
    const own = ` ${authority}`.slice(1);
    cacheKey = scheme === 'http' ? own : `s:${own}`;
    a = schemeAuthority(parseAuthority(own, scheme, url), scheme); // throws for an invalid one: never cached
    if (authorityCache.size >= AUTHORITY_CACHE_SIZE) authorityCache.clear();
    authorityCache.set(cacheKey, a);
  }
  return a;
}

/**
 * A CrawlerError without a stack trace: mailto: and javascript: links are
 * common, each one is a skip, and capturing a stack costs more than the rest
 * of resolving the link.
 */
function linkError(code: 'ERR_UNSUPPORTED_SCHEME', message: string, options: { url: string }): CrawlerError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new CrawlerError(code, message, options);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

function build(parts: UriParts, url: string, maxLength: number): HttpUrl {
  if (url.length > maxLength) {
    throw new CrawlerError('ERR_URL_TOO_LONG', `URL longer than ${maxLength} characters: ${url.slice(0, 80)}...`, { url: url.slice(0, 200) });
  }
  const schemeLower = parts.scheme?.toLowerCase();
  if (schemeLower !== 'http' && schemeLower !== 'https') {
    throw linkError(
      'ERR_UNSUPPORTED_SCHEME',
      parts.scheme === undefined ? `not an absolute URL: ${url}` : `unsupported scheme "${parts.scheme}:" in ${url} (only http and https)`,
      { url },
    );
  }
  if (parts.authority === undefined) throw new CrawlerError('ERR_INVALID_HOST', `no host in ${url}`, { url });
  const scheme: HttpScheme = schemeLower;
  const { host, hostname, port, origin, hrefStart } = cachedAuthority(parts.authority, scheme, url);
  const pathWasEmpty = parts.path === '';
  const path = pathWasEmpty ? '/' : removeDotSegments(parts.path);
  const query = parts.query;
  const pathAndQuery = query === undefined ? path : `${path}?${query}`;
  // The key carries the target as it is requested: "a b.html" and "a%20b.html"
  // are one resource, and a key never holds a space or a control character.
  const target = encodeTarget(pathAndQuery);
  return { scheme, host, hostname, port, path, pathWasEmpty, query, pathAndQuery, target, origin, key: origin + target, href: hrefStart + pathAndQuery };
}

/** Parses an absolute http(s) URL. Throws CrawlerError naming what is wrong. */
export function parseHttpUrl(input: string, maxLength = DEFAULT_MAX_URL_LENGTH): HttpUrl {
  const s = cleanLink(input);
  return build(parseUriReference(s), s, maxLength);
}

let lastBaseHref: string | undefined;
let lastBaseParts: UriParts | undefined;

/**
 * Resolves a link found on the page at `base` (RFC 3986 §5.2) and parses the
 * result. Throws CrawlerError for a target that is not a valid http(s) URL.
 */
export function resolveHttpUrl(link: string, base: HttpUrl | string, maxLength = DEFAULT_MAX_URL_LENGTH): HttpUrl {
  const s = cleanLink(link);
  if (typeof base !== 'string') {
    const url = resolveOnBase(s, base, maxLength);
    if (url !== undefined) return url;
  }
  const baseHref = typeof base === 'string' ? base : base.href;
  // The links of a page share their base: split it once (resolveParts never mutates it).
  if (baseHref !== lastBaseHref) {
    lastBaseHref = baseHref;
    lastBaseParts = parseUriReference(baseHref);
  }
  const baseParts = lastBaseParts as UriParts;
  const target = resolveParts(baseParts, parseUriReference(s));
  target.fragment = undefined;
  return build(target, recompose(target), maxLength);
}

const COLON = 0x3a;
const QUESTION = 0x3f;
const HASH = 0x23;

let lastHrefStartBase: HttpUrl | undefined;
let lastHrefStart = '';

/** `scheme://host[:port]` as `base`'s href writes it (kept for the last base: a page's links share theirs). */
function hrefStartOf(base: HttpUrl): string {
  if (base !== lastHrefStartBase) {
    lastHrefStartBase = base;
    lastHrefStart = base.href.slice(0, base.href.length - base.pathAndQuery.length);
  }
  return lastHrefStart;
}

/**
 * The common cases of resolveHttpUrl, taken without splitting and
 * recomposing the URL: against a parsed base, a relative path (no scheme, no
 * authority, not starting with "/"), an absolute path ("/a/b", not "//"), or
 * an absolute URL that starts with the base's own scheme and authority as
 * the base writes them. The target keeps the base's scheme and authority;
 * its path is the reference's path (a relative one joined to the base's
 * directory) with dot segments removed, and its query is the reference's
 * (RFC 3986 §5.2.2, §5.2.3). Undefined for any other reference, and for a
 * target over `maxLength` (the general path then says why);
 * test/url/resolve-fast.test.ts checks it gives what the general path gives.
 * Exported for that test; `s` is a link already cleaned (cleanLink).
 */
export function resolveOnBase(s: string, base: HttpUrl, maxLength: number): HttpUrl | undefined {
  const n = s.length;
  if (n === 0) return undefined;
  const hrefStart = hrefStartOf(base);
  const c0 = s.charCodeAt(0);
  // Where the reference's path starts, and what it is joined to.
  let start = 0;
  let dir = '';
  if (c0 === SLASH) {
    if (s.charCodeAt(1) === SLASH) return undefined; // "//": an authority of its own
  } else if (n > hrefStart.length && s.charCodeAt(hrefStart.length) === SLASH && s.startsWith(hrefStart)) {
    start = hrefStart.length;
  } else {
    if (c0 === QUESTION || c0 === HASH) return undefined;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      // A ":" before any "/", "?" or "#" may end a scheme.
      if (c === COLON) return undefined;
      if (c === SLASH || c === QUESTION || c === HASH) break;
    }
    const basePath = base.path;
    dir = basePath.slice(0, basePath.lastIndexOf('/') + 1);
  }
  let end = s.indexOf('#', start);
  if (end === -1) end = n;
  let q = s.indexOf('?', start);
  if (q >= end) q = -1;
  const query = q === -1 ? undefined : s.slice(q + 1, end);
  const path = removeDotSegments(dir + s.slice(start, q === -1 ? end : q));
  const pathAndQuery = query === undefined ? path : `${path}?${query}`;
  if (hrefStart.length + pathAndQuery.length > maxLength) return undefined;
  const target = encodeTarget(pathAndQuery);
  const { scheme, host, hostname, port, origin } = base;
  return { scheme, host, hostname, port, path, pathWasEmpty: false, query, pathAndQuery, target, origin, key: origin + target, href: hrefStart + pathAndQuery };
}
