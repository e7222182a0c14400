/**
 * Compressed bodies for the `--compressed` tests: decompression bombs made
 * without holding what they expand to, and a site route that compresses as
 * a real server does, only for a client that asks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliCompressSync, constants, createBrotliCompress, crc32, deflateRawSync, gzipSync } from 'node:zlib';
import type { Route } from './site-server.js';

const MIB = 1 << 20;

/**
 * `mib` MiB of zeros as one valid gzip member (RFC 1952), about 1 KiB on
 * the wire per MiB: one MiB of zeros deflated with a full flush (which
 * resets the compressor, so every such block is the same bytes) repeated,
 * then an empty final block, the CRC-32 and the length.
 */
export function gzipZeros(mib: number): Buffer {
  const zeros = Buffer.alloc(MIB);
  const block = deflateRawSync(zeros, { finishFlush: constants.Z_FULL_FLUSH });
  let crc = 0;
  for (let i = 0; i < mib; i++) crc = crc32(zeros, crc);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE((mib * MIB) % 2 ** 32, 4);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
  return Buffer.concat([header, ...Array<Buffer>(mib).fill(block), deflateRawSync(Buffer.alloc(0)), trailer]);
}

/** `mib` MiB of zeros in brotli (quality 1: fast to make; 1 GiB is some 190 KiB). */
export function brotliZeros(mib: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zeros = Buffer.alloc(MIB);
    const c = createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
    const out: Buffer[] = [];
    c.on('data', (d: Buffer) => out.push(d));
    c.on('end', () => resolve(Buffer.concat(out)));
    c.on('error', reject);
    let i = 0;
    const write = (): void => {
      while (i < mib) {
        i++;
        if (!c.write(zeros)) {
          c.once('drain', write);
          return;
        }
      }
      c.end();
    };
    write();
  });
}

/** `text` gzipped. */
export function gzip(text: string | Buffer): Buffer {
  return gzipSync(text);
}

/** `text` in brotli. */
export function brotli(text: string | Buffer): Buffer {
  return brotliCompressSync(text);
}

/** A coding a negotiated route applies: one, or two in the order applied. */
export type Coding = 'gzip' | 'br' | 'gzip, br';

/** `body` with `coding` applied. */
export function encode(body: Buffer, coding: Coding): Buffer {
  if (coding === 'gzip') return gzip(body);
  if (coding === 'br') return brotli(body);
  return brotli(gzip(body));
}

/**
 * A startSite route serving `body` (text/html unless `type` says) with
 * `coding` when the request's Accept-Encoding lists each of its codings,
 * as is (identity) otherwise. `sent` gets the body bytes as they went out.
 */
export function negotiated(body: string | Buffer, coding: Coding, sent?: (bytes: Buffer, coding: Coding | undefined) => void, type = 'text/html'): Route {
  const plain = Buffer.from(body);
  const coded = encode(plain, coding);
  return {
    handle: (req: IncomingMessage, res: ServerResponse) => {
      const accepted = String(req.headers['accept-encoding'] ?? '').split(',').map((c) => c.trim());
      const ok = coding.split(', ').every((c) => accepted.includes(c));
      const bytes = ok ? coded : plain;
      sent?.(bytes, ok ? coding : undefined);
      res.writeHead(200, { 'content-type': type, ...(ok ? { 'content-encoding': coding } : {}) });
      res.end(bytes);
    },
  };
}
