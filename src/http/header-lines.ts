/**
 * Field-line helpers for the HTTP/1.1 response parser (RFC 9112 §5, RFC 9110
 * §5): one header or trailer line into a name/value pair, and the readings of
 * the fields that decide framing (Content-Length, Transfer-Encoding,
 * Connection). Strings here are latin1 decodings of the wire bytes, so one
 * char is one byte.
 */
import { CrawlerError } from '../errors.js';

/** A header or trailer field: the name as sent, the value with surrounding OWS trimmed. */
export type Field = [name: string, value: string];

/** How a message body is delimited (RFC 9112 §6.3). */
export type Framing = 'chunked' | 'length' | 'close' | 'none';

/** RFC 9110 §5.6.2: field-name = token = 1*tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const DIGITS = /^[0-9]+$/;

/** A CrawlerError with code ERR_BAD_RESPONSE. */
export function badResponse(message: string): CrawlerError {
  return new CrawlerError('ERR_BAD_RESPONSE', message);
}

/** DEL and the C1 controls: JSON.stringify leaves them as they are. */
const C1 = /[\x7f-\x9f]/g;

/**
 * A short, printable excerpt of wire text (latin1) for an error message or a
 * note: quoted, at most 60 chars, every control char escaped (JSON.stringify
 * escapes those below 0x20; DEL and C1 are escaped here), so that printing it
 * cannot move a terminal's cursor or change its state.
 */
export function excerpt(s: string): string {
  const quoted = JSON.stringify(s.length > 60 ? `${s.slice(0, 60)}...` : s);
  return quoted.replace(C1, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

/**
 * `s.slice(from, to)` without leading and trailing OWS (SP / HTAB only, RFC 9110
 * §5.6.3). Not String.prototype.trim: that would also strip 0xA0 (NBSP in
 * latin1), VT and FF, which are field content.
 */
export function trimOws(s: string, from = 0, to = s.length): string {
  let a = from;
  let b = to;
  while (a < b && (s.charCodeAt(a) === 32 || s.charCodeAt(a) === 9)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 32 || s.charCodeAt(b - 1) === 9)) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** What addFieldLine returns for a line it skipped. */
export const SKIPPED = -1;

/**
 * Adds one field line (CR/LF already removed, no bare CR inside) to `fields`,
 * and returns the index of the field it set or extended, or SKIPPED.
 *
 * A line that starts with SP or HTAB is an obs-fold continuation (RFC 9112
 * §5.2): it is joined to the previous value with one SP, the fold's own OWS
 * dropped; when the line before was skipped (`afterSkipped`), the
 * continuation belongs to it and is skipped too.
 *
 * A line that cannot be a field is SKIPPED, as curl, wget and browsers skip
 * it, and the page kept: no colon, an empty name, or a name that is not a
 * token (RFC 9110 §5.1), such as IIS 6's "en-US Content-Type: text/xml".
 * That includes whitespace between the name and the colon: RFC 9112 §5.1
 * allows none ("Content-Length : 5"), so such a line is not a Content-Length
 * field here, nor any other field, and can never frame a body. It is not
 * trimmed into one either: RFC 9112 §5.1 has a server reject it and a proxy
 * remove the whitespace, but a user agent that repaired it would be taking
 * framing from a line the grammar says is no field; the parser instead
 * refuses to reuse the connection after it (see `namesFramingField`).
 *
 * A NUL in the value of a valid field is still rejected (RFC 9110 §5.5 lets a
 * recipient reject or replace it; it is dangerous downstream).
 */
export function addFieldLine(fields: Field[], line: string, afterSkipped = false): number {
  const c0 = line.charCodeAt(0);
  if (c0 === 32 || c0 === 9) {
    if (afterSkipped) return SKIPPED;
    // RFC 9112 §2.2: whitespace before the first field line must be rejected (or the line ignored).
    if (fields.length === 0) throw badResponse(`continuation line without a field before it: ${excerpt(line)}`);
    const last = fields[fields.length - 1] as Field;
    const more = trimOws(line);
    if (more.length > 0) last[1] = last[1].length === 0 ? more : `${last[1]} ${more}`;
    return fields.length - 1;
  }
  const colon = line.indexOf(':');
  if (colon <= 0) return SKIPPED;
  const name = line.slice(0, colon);
  if (!TOKEN.test(name)) return SKIPPED;
  // RFC 9110 §5.5: NUL in a field value is dangerous; reject rather than pass it on.
  if (line.indexOf('\0', colon) !== -1) throw badResponse(`NUL in the value of field ${excerpt(name)}`);
  fields.push([name, trimOws(line, colon + 1)]);
  return fields.length - 1;
}

/**
 * Does a skipped line name a framing field once the whitespace around its
 * name is gone ("Content-Length : 5", "Transfer-Encoding\t: chunked")? We do
 * not read it as one (see addFieldLine), but a proxy would (RFC 9112 §5.1
 * tells it to remove that whitespace), and so might the server's own code:
 * the body's end is then in doubt, so the connection must not carry another
 * response (in the spirit of RFC 9112 §6.3 rule 5, which has a user agent close
 * the connection on an invalid Content-Length).
 */
export function namesFramingField(line: string): boolean {
  const colon = line.indexOf(':');
  if (colon === -1) return false;
  const name = trimOws(line, 0, colon);
  return isName(name, 'content-length') || isName(name, 'transfer-encoding');
}

/** True when `name` (any case) equals `lower` (lower case). Compares lengths first: no lowercasing for most names. */
export function isName(name: string, lower: string): boolean {
  return name.length === lower.length && name.toLowerCase() === lower;
}

/**
 * The value of a Content-Length field (RFC 9110 §8.6): 1*DIGIT, or a list of
 * identical values ("5, 5") which RFC 9110 lets a recipient collapse. Throws
 * ERR_BAD_RESPONSE when empty, not digits, differing, or beyond 2^53.
 */
export function parseContentLength(value: string): number {
  if (DIGITS.test(value)) return checkedLength(value);
  let result = -1;
  for (const part of value.split(',')) {
    const p = trimOws(part);
    if (p.length === 0) continue; // RFC 9110 §5.6.1: empty list elements are ignored
    if (!DIGITS.test(p)) throw badResponse(`invalid Content-Length ${excerpt(value)}`);
    const n = checkedLength(p);
    if (result !== -1 && n !== result) throw badResponse(`conflicting Content-Length values ${excerpt(value)}`);
    result = n;
  }
  if (result === -1) throw badResponse(`empty Content-Length`);
  return result;
}

function checkedLength(digits: string): number {
  const n = Number(digits);
  if (n > Number.MAX_SAFE_INTEGER) throw badResponse(`Content-Length ${excerpt(digits)} is too large`);
  return n;
}

/** The comma-separated elements of all `values`, OWS-trimmed and lower-cased, empty ones dropped. */
function elements(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    for (const part of v.split(',')) {
      const p = trimOws(part);
      if (p.length > 0) out.push(p.toLowerCase());
    }
  }
  return out;
}

/** RFC 9112 §6.3: is "chunked" the final transfer coding of these Transfer-Encoding values? */
export function finalCodingIsChunked(values: readonly string[]): boolean {
  const codings = elements(values);
  return codings.length > 0 && codings[codings.length - 1] === 'chunked';
}

/** True when one of the Connection-style `values` lists `token` (lower case). */
export function hasToken(values: readonly string[], token: string): boolean {
  return values.length > 0 && elements(values).includes(token);
}

/** What a final response's fields say about its body and its connection. */
export interface BodyFraming {
  framing: Framing;
  /** The Content-Length when framing is 'length', else -1. */
  length: number;
  keepAlive: boolean;
}

/**
 * Decides the framing (RFC 9112 §6.3) and persistence (§9.3) of a final
 * response from its fields, status, version and whether it answers a HEAD.
 */
export function decideFraming(fields: readonly Field[], status: number, major: number, minor: number, headRequest: boolean): BodyFraming {
  let length = -1;
  let te: string[] | undefined;
  const conn: string[] = [];
  let proxyClose = false;
  for (const [name, value] of fields) {
    if (name.length === 10 && isName(name, 'connection')) conn.push(value);
    else if (name.length === 14 && isName(name, 'content-length')) {
      const n = parseContentLength(value);
      if (length !== -1 && n !== length) throw badResponse('conflicting Content-Length fields');
      length = n;
    } else if (name.length === 16 && isName(name, 'proxy-connection')) {
      // Not standard, but both upstreams read it like Connection; honouring "close" is the safe direction.
      if (hasToken([value], 'close')) proxyClose = true;
    } else if (name.length === 17 && isName(name, 'transfer-encoding')) (te ??= []).push(value);
  }
  let framing: Framing;
  if (headRequest || status === 101 || status === 204 || status === 304) framing = 'none'; // §6.3 rules 1-2
  else if (te !== undefined) framing = finalCodingIsChunked(te) ? 'chunked' : 'close'; // rules 3-4: TE overrides Content-Length
  else if (length !== -1) framing = 'length'; // rule 6
  else framing = 'close'; // rule 8
  // §9.3: 1.1 persists unless "close"; 1.0 (and 0.9) only with "keep-alive". Never after a
  // close-delimited body, a 101 (the connection now speaks another protocol), or TE together
  // with Content-Length (§6.3 rule 3: possible response splitting, so do not reuse the connection).
  let keepAlive = major === 1 && minor >= 1 ? !hasToken(conn, 'close') : hasToken(conn, 'keep-alive') && !hasToken(conn, 'close');
  if (proxyClose || framing === 'close' || status === 101 || (te !== undefined && length !== -1)) keepAlive = false;
  return { framing, length: framing === 'length' ? length : -1, keepAlive };
}

/** Fields of which a message may carry one only: duplicates after the first are ignored (as Node's http module does). */
const SINGLETONS = new Set([
  'content-length', 'content-type', 'content-location', 'location', 'etag', 'last-modified',
  'expires', 'retry-after', 'server', 'age', 'date',
]);

/**
 * Looks up a field by name, case-insensitively (RFC 9110 §5.1). For fields a
 * message may carry only once (Location, Content-Type, Content-Length, ...)
 * the first occurrence wins; for any other field every occurrence is joined
 * with ", " in order, as RFC 9110 §5.3 allows for list fields. Undefined when
 * absent. Use `headerValues` for Set-Cookie, which must not be joined.
 */
export function headerValue(headers: readonly Field[], name: string): string | undefined {
  const lower = name.toLowerCase();
  let out: string | undefined;
  for (const [n, v] of headers) {
    if (!isName(n, lower)) continue;
    if (out === undefined) out = v;
    else if (SINGLETONS.has(lower)) break;
    else out = `${out}, ${v}`;
  }
  return out;
}

/** Every value of the fields called `name` (any case), in order. */
export function headerValues(headers: readonly Field[], name: string): string[] {
  const lower = name.toLowerCase();
  const out: string[] = [];
  for (const [n, v] of headers) if (isName(n, lower)) out.push(v);
  return out;
}
