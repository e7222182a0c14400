/**
 * The request target as it goes on the wire (RFC 9112 §3.2): the path and
 * query with every character that must not appear raw percent-encoded as
 * UTF-8 octets, so that no control character, space or non-ASCII byte can
 * reach a request line, a log line or a robots.txt match.
 */

// Characters that may appear unencoded in a request target (RFC 3986 pchar,
// "/", "?" and "%" of existing escapes). Everything else is encoded as UTF-8
// octets: CTLs, space, DEL, '"', '<', '>', '\\', '^', '`', '{', '|', '}', non-ASCII.
const SAFE = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%[]") {
  SAFE[c.charCodeAt(0)] = 1;
}
const HEX = '0123456789ABCDEF';

/** Percent-encodes every character of a request target that must not appear raw. */
export function encodeTarget(target: string): string {
  let i = 0;
  const n = target.length;
  while (i < n) {
    const c = target.charCodeAt(i);
    if (c >= 128 || SAFE[c] === 0) break;
    i++;
  }
  if (i === n) return target; // the common case: nothing to encode, no copy
  let out = target.slice(0, i);
  for (const byte of Buffer.from(target.slice(i), 'utf8')) {
    if (byte < 128 && SAFE[byte] === 1) out += String.fromCharCode(byte);
    else out += '%' + HEX[byte >> 4] + HEX[byte & 15];
  }
  return out;
}
