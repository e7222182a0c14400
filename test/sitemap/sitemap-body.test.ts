/**
 * sitemapBytes: a sitemap body's content codings and gzip file layer
 * removed, streaming and bounded.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { isCrawlerError } from '../../src/errors.js';
import { contentCodings, sitemapBytes, type SitemapBody } from '../../src/sitemap/sitemap-body.js';
import { countedChunks, gzip, urlset } from './sitemap-fixtures.js';

const XML = urlset(['http://a/1', 'http://a/2']);

async function text(body: SitemapBody, codings: string[] = []): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const chunk of sitemapBytes(body, codings)) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

async function* pieces(bytes: Buffer, ...cuts: number[]): AsyncGenerator<Uint8Array> {
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    yield bytes.subarray(at, cut);
    at = cut;
  }
}

describe('what is decoded', () => {
  test('a plain body passes as it is, whole or in chunks', async () => {
    assert.equal(await text(Buffer.from(XML)), XML);
    assert.equal(await text(pieces(Buffer.from(XML), 1, 2, 40)), XML);
  });

  test('a gzip file (a .xml.gz) is recognized by its bytes, even split before its magic number ends', async () => {
    assert.equal(await text(gzip(XML)), XML);
    assert.equal(await text(pieces(gzip(XML), 1, 2, 3, 10)), XML);
  });

  test('Content-Encoding: gzip (or x-gzip) is removed; a .xml.gz sent with it is unpacked twice', async () => {
    assert.equal(await text(gzip(XML), contentCodings('gzip')), XML);
    assert.equal(await text(gzip(XML), contentCodings('X-Gzip')), XML);
    assert.equal(await text(gzip(gzip(XML)), contentCodings('gzip')), XML);
  });

  test('a body labelled gzip that is not (a fetcher decoded it already) is read as it is', async () => {
    assert.equal(await text(Buffer.from(XML), contentCodings('gzip')), XML);
  });

  test('Content-Encoding: br is removed; codings apply last first', async () => {
    assert.equal(await text(brotliCompressSync(Buffer.from(XML)), contentCodings('br')), XML);
    assert.equal(await text(brotliCompressSync(gzip(XML)), contentCodings('gzip, br')), XML);
    assert.equal(await text(gzip(brotliCompressSync(Buffer.from(XML))), ['br', 'gzip']), XML);
  });

  test('a coding we never asked for is refused by name; identity is no coding', () => {
    assert.deepEqual(contentCodings(undefined), []);
    assert.deepEqual(contentCodings('identity'), []);
    assert.throws(() => contentCodings('gzip, zstd'), (err: unknown) => isCrawlerError(err, 'ERR_BAD_RESPONSE') && err.message === 'Content-Encoding "zstd" is not one we can decode (gzip, br)');
  });
});

describe('broken streams', () => {
  test('a gzip stream cut short gives what it decoded, then says so', async () => {
    const big = urlset(Array.from({ length: 2000 }, (_, i) => `http://a/${i}`));
    const zipped = gzip(big);
    const got: Uint8Array[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of sitemapBytes(zipped.subarray(0, zipped.length - 100))) got.push(chunk);
      })(),
      (err: unknown) => isCrawlerError(err, 'ERR_BAD_RESPONSE') && err.message === 'gzip data cut short: unexpected end of file',
    );
    const partial = Buffer.concat(got).toString('utf8');
    assert.ok(partial.length > 0 && big.startsWith(partial), 'the decoded part is a prefix of the file');
  });

  test('corrupt gzip data is named as such', async () => {
    const zipped = gzip(XML);
    zipped.fill(0xff, 12, 30);
    await assert.rejects(text(zipped), (err: unknown) => isCrawlerError(err, 'ERR_BAD_RESPONSE') && err.message.startsWith('gzip data corrupt: '));
  });
});

describe('bounded decoding', () => {
  // A decompression bomb: 1 GiB of blanks as 1,024 gzip members of 1 MiB each (a gzip file may hold several members).
  const MEMBER = gzipSync(Buffer.alloc(1 << 20, 0x20));

  test('a consumer that stops after 8 MiB stops the decoding, and the body is pulled no further', async () => {
    const bomb = countedChunks(MEMBER, 1024);
    let seen = 0;
    for await (const chunk of sitemapBytes(bomb.body)) {
      seen += chunk.length;
      if (seen >= 8 << 20) break;
    }
    assert.ok(bomb.pulled() <= 10, `pulled ${bomb.pulled()} MiB-members for 8 MiB`);
    assert.equal(bomb.closed(), true, 'the body was let go');
  });
});
