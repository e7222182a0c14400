/**
 * Content codings (RFC 9110 §8.4) removed from a response body, for
 * `--compressed`: the client asks for `gzip` and `br`, the two codings the
 * web-archive replay tools decode, and decodes what comes with node:zlib.
 *
 * - Streaming and bounded: the body goes through the decoders as a stream
 *   and the decoded bytes are counted as they come out; past `maxBytes`
 *   (--max-body-bytes, the cap the wire body already has) the decoders are
 *   destroyed, so a decompression bomb costs at most the cap and one
 *   decoder's output chunk of memory, and fails with ERR_BODY_OVERFLOW.
 * - Several codings are removed in reverse order of listing (§8.4: "listed
 *   in the order in which they were applied"), at most MAX_CODINGS of them:
 *   each decoder holds a window of its own (brotli's up to 16 MiB), so a
 *   header listing a thousand is refused, not obeyed.
 * - A coding we did not ask for (`deflate`, `compress`, `zstd`...) is an
 *   error (ERR_BAD_RESPONSE), never saved as bytes no reader can use;
 *   `identity` is no coding, and `x-gzip` is `gzip` (§8.4.1.3).
 * - A body that is not what its coding says, or is cut short, is an error
 *   (ERR_BAD_RESPONSE) naming the coding and zlib's words.
 * - An empty body is empty whatever its label: there is nothing to decode
 *   (a 200 with `Content-Length: 0` and `Content-Encoding: gzip` happens).
 */
import { Readable, Writable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip } from 'node:zlib';
import { CrawlerError } from '../errors.js';
import { ExchangeError } from './connection.js';
import { headerValue } from './header-lines.js';
import type { ParsedResponse } from './parsed-response.js';

export { ACCEPT_COMPRESSED } from './request.js';

/** Most codings removed from one body (as many as we ask for; a `gzip, gzip` of a misconfigured server passes). */
export const MAX_CODINGS = 2;

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  br: createBrotliDecompress,
};

/** A fresh node:zlib decoder for `coding`, one contentCodings returned. */
export function decoderFor(coding: string): Transform {
  return (DECODERS[coding] as () => Transform)();
}

/**
 * The codings of a Content-Encoding value, in the order they were applied,
 * lower-cased, `identity` left out. Throws ERR_BAD_RESPONSE for a coding we
 * cannot remove (we ask for none but gzip and br), or more than MAX_CODINGS.
 */
export function contentCodings(value: string | undefined): string[] {
  if (value === undefined) return [];
  const codings = value.split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  for (const c of codings) {
    if (DECODERS[c] === undefined) throw new CrawlerError('ERR_BAD_RESPONSE', `Content-Encoding ${JSON.stringify(c)} is not one we can decode (gzip, br)`);
  }
  if (codings.length > MAX_CODINGS) {
    throw new CrawlerError('ERR_BAD_RESPONSE', `Content-Encoding ${JSON.stringify(value)} lists ${codings.length} codings; at most ${MAX_CODINGS} are decoded`);
  }
  return codings;
}

/** A stop that is no failure: the decoded bytes wanted have come (decodeBody's `cut`). */
const ENOUGH = new Error('enough');

/**
 * `body` with `codings` removed (the last applied first), read as a stream.
 * Rejects with ERR_BODY_OVERFLOW as soon as the decoded bytes pass
 * `maxBytes` (with `cut`, resolves with the first `maxBytes` instead), and
 * with ERR_BAD_RESPONSE for a body that is corrupt or cut short for its
 * coding.
 */
export async function decodeBody(body: Buffer, codings: readonly string[], maxBytes: number, cut = false): Promise<Buffer> {
  if (codings.length === 0 || body.length === 0) return body;
  const parts: Buffer[] = [];
  let size = 0;
  const label = codings.join(', ');
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const room = maxBytes - size;
      if (chunk.length <= room) {
        parts.push(chunk);
        size += chunk.length;
        done();
        return;
      }
      if (cut) {
        parts.push(chunk.subarray(0, room));
        size = maxBytes;
      }
      // A failed write makes pipeline destroy every decoder: nothing more is inflated.
      done(cut ? ENOUGH : new CrawlerError('ERR_BODY_OVERFLOW', `body decoded from Content-Encoding ${label} exceeds maxBodyBytes (${maxBytes} bytes)`));
    },
  });
  try {
    await pipeline([Readable.from([body], { objectMode: false }), ...[...codings].reverse().map(decoderFor), sink]);
  } catch (err) {
    if (err === ENOUGH) return Buffer.concat(parts, size);
    if (err instanceof CrawlerError) throw err;
    const words = err instanceof Error ? err.message : String(err);
    const what = words === 'unexpected end of file' ? 'is cut short' : 'is not valid data for it';
    throw new CrawlerError('ERR_BAD_RESPONSE', `body with Content-Encoding ${label} ${what} (${words})`, { cause: err });
  }
  return Buffer.concat(parts, size);
}

/**
 * A response with its content codings removed, for `--compressed`. Only a
 * 2xx answer's body is decoded: no reader uses another's (a redirect is
 * followed by its Location, an error decided by its status), so a broken
 * body on a 301 or a 404 does not hide its status. A decoded response no
 * longer has its Content-Encoding fields (a reader that decodes by that
 * header, such as the sitemap reader, must not decode twice); its other
 * fields, Content-Length too, are as received. Rejects with an
 * ExchangeError (ERR_BODY_OVERFLOW or ERR_BAD_RESPONSE, with the status)
 * when the body cannot be decoded within `maxBytes`.
 */
export async function decodeResponse<T extends ParsedResponse>(res: T, maxBytes: number): Promise<T> {
  if (res.status < 200 || res.status > 299) return res;
  const value = headerValue(res.headers, 'content-encoding');
  if (value === undefined) return res;
  try {
    res.body = await decodeBody(res.body, contentCodings(value), maxBytes);
  } catch (err) {
    const e = err as CrawlerError;
    throw new ExchangeError(e.code, e.message, true, err, res.status);
  }
  res.headers = res.headers.filter(([name]) => name.toLowerCase() !== 'content-encoding');
  return res;
}
