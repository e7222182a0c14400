/**
 * WARC digests (WARC 1.1 §5.8, §5.9): `sha1:` and the SHA-1 in base32
 * (RFC 4648 §6, upper case; 20 bytes are 32 characters, so no padding), the
 * form Heritrix, wget and warcio write and CDXJ indexes carry.
 */
import { createHash } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32, upper case, with `=` padding when the length needs it. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += '=';
  return out;
}

/** `sha1:BASE32` over the parts, in order, as if concatenated. */
export function sha1Digest(...parts: readonly Uint8Array[]): string {
  const hash = createHash('sha1');
  for (const p of parts) hash.update(p);
  return `sha1:${base32(hash.digest())}`;
}
