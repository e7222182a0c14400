/**
 * A sitemap response's body as the uncompressed XML bytes, streamed: the
 * content codings its `Content-Encoding` lists are removed (gzip, br), and
 * then a gzip file (`sitemap.xml.gz`) is unpacked when the bytes are one.
 *
 * gzip is recognized by its bytes (RFC 1952's magic number, 1f 8b, and
 * method 8), not by names: a `.xml.gz` URL that a server sends already
 * unpacked, or a body labelled `Content-Encoding: gzip` that a fetcher has
 * already decoded, is read as it is. A `.xml.gz` file served with
 * `Content-Encoding: gzip` is gzip twice, and unpacked twice.
 *
 * Decoding is streaming and bounded: compressed input goes to node:zlib in
 * slices of SLICE_BYTES, and each slice's output is handed on before the
 * next slice goes in, so a decompression bomb holds at most one slice's
 * output in memory (deflate expands at most 1032:1: about 4 MiB), and stops
 * costing anything as soon as the consumer stops pulling.
 */
import type { Transform } from 'node:stream';
import { CrawlerError } from '../errors.js';
import { decoderFor } from '../http/content-decoding.js';

// Which codings a Content-Encoding lists, and which the HTTP layer removes, are the HTTP layer's to say.
export { contentCodings } from '../http/content-decoding.js';

/** A response body: whole, or as chunks as they arrive. */
export type SitemapBody = Uint8Array | AsyncIterable<Uint8Array>;

/** Compressed bytes given to the decoder at a time. */
export const SLICE_BYTES = 4096;

/**
 * The uncompressed bytes of `body`, chunk by chunk: the `codings` removed
 * (last applied, first removed; a gzip one only when the bytes are gzip),
 * then one gzip layer more when what is left is gzip. Stopping the
 * iteration early releases the decoders and stops pulling `body`. Rejects
 * with ERR_BAD_RESPONSE for a corrupt or cut-short stream (zlib's words).
 */
export async function* sitemapBytes(body: SitemapBody, codings: readonly string[] = []): AsyncGenerator<Uint8Array> {
  let stream = chunksOf(body);
  for (const coding of [...codings].reverse()) stream = await decoded(stream, coding);
  stream = await decoded(stream, 'gzip');
  yield* stream;
}

async function* chunksOf(body: SitemapBody): AsyncGenerator<Uint8Array> {
  if (body instanceof Uint8Array) yield body;
  else yield* body;
}

/** `source` with `coding` removed; gzip only when its first bytes say gzip. */
async function decoded(source: AsyncGenerator<Uint8Array>, coding: string): Promise<AsyncGenerator<Uint8Array>> {
  if (coding !== 'br') {
    const { head, rest } = await peek(source, 3);
    const gzip = head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08;
    source = rest;
    if (!gzip) return source;
  }
  return inflate(source, coding);
}

/** The first `n` bytes of `source` (fewer when it is shorter), and `source` whole again. */
async function peek(source: AsyncGenerator<Uint8Array>, n: number): Promise<{ head: Uint8Array; rest: AsyncGenerator<Uint8Array> }> {
  const seen: Uint8Array[] = [];
  let size = 0;
  while (size < n) {
    const next = await source.next();
    if (next.done === true) break;
    seen.push(next.value);
    size += next.value.length;
  }
  async function* rest(): AsyncGenerator<Uint8Array> {
    try {
      yield* seen;
      // Not `yield* source`: a `return` must reach it even when it never started.
      for (;;) {
        const next = await source.next();
        if (next.done === true) return;
        yield next.value;
      }
    } finally {
      await source.return(undefined);
    }
  }
  return { head: Buffer.concat(seen), rest: rest() };
}

/** Runs `source` through a fresh decoder for `coding`, slice by slice (see the module comment). */
async function* inflate(source: AsyncGenerator<Uint8Array>, coding: string): AsyncGenerator<Uint8Array> {
  const decoder = decoderFor(coding);
  const out: Buffer[] = [];
  let failure: Error | undefined;
  decoder.on('data', (b: Buffer) => out.push(b));
  decoder.on('error', (err: Error) => (failure ??= err));
  const fail = (err: Error): CrawlerError =>
    new CrawlerError('ERR_BAD_RESPONSE', `${coding} data ${err.message === 'unexpected end of file' ? 'cut short' : 'corrupt'}: ${err.message}`, { cause: err });
  try {
    for (;;) {
      const next = await source.next();
      if (next.done === true) break;
      const chunk = next.value;
      for (let at = 0; at < chunk.length; at += SLICE_BYTES) {
        await settled(decoder, (done) => decoder.write(chunk.subarray(at, at + SLICE_BYTES), () => done()));
        if (failure !== undefined) throw fail(failure);
        while (out.length > 0) yield out.shift() as Buffer;
      }
    }
    await settled(decoder, (done) => {
      decoder.once('end', done);
      decoder.end();
    });
    while (out.length > 0) yield out.shift() as Buffer;
    if (failure !== undefined) throw fail(failure);
  } finally {
    decoder.destroy();
    await source.return(undefined);
  }
}

/** Starts `action` and waits until it calls `done`, or the decoder fails or closes (a failed write may never call back). */
function settled(decoder: Transform, action: (done: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      decoder.off('error', done);
      decoder.off('close', done);
      resolve();
    };
    decoder.once('error', done);
    decoder.once('close', done);
    action(done);
  });
}
