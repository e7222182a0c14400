/**
 * `--compressed` in the HTTP client (content-decoding.ts), against a raw
 * loopback server writing literal gzip and br bytes: what is asked for,
 * what is decoded (RFC 9110 §8.4), and every way a body can fail to decode:
 * a bomb (bounded by maxBodyBytes, in bounded memory and time), a stream
 * cut short, a body that is not what its Content-Encoding says, a coding we
 * did not ask for. The wire tap keeps the bytes as they came.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpClient } from '../../src/http/client.js';
import { ExchangeError } from '../../src/http/connection.js';
import { headerValue } from '../../src/http/header-lines.js';
import type { WireExchange } from '../../src/http/wire-exchange.js';
import { isCrawlerError, type ErrorCode } from '../../src/errors.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { brotli, brotliZeros, gzip, gzipZeros } from '../helpers/compressed-bodies.js';
import { startRaw, type RawServer } from '../helpers/raw-server.js';

const HTML = '<html><head><title>Zipped</title></head><body>only the decoded body says ZEBRA</body></html>\n';

/** A response with a Content-Length body: `head` is the status line's end and the fields, one per item. */
function withLength(fields: string[], body: Buffer, status = '200 OK'): Buffer {
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${[...fields, `Content-Length: ${body.length}`].join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

/** A chunked response, its body cut into chunks of `size` bytes. */
function chunked(fields: string[], body: Buffer, size = 7): Buffer {
  const parts: Buffer[] = [Buffer.from(`HTTP/1.1 200 OK\r\n${[...fields, 'Transfer-Encoding: chunked'].join('\r\n')}\r\n\r\n`, 'latin1')];
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** A raw server answering each path with its literal bytes (404 otherwise), keep-alive; records the request heads. */
async function serve(t: import('node:test').TestContext, routes: Record<string, Buffer>): Promise<RawServer & { heads: string[] }> {
  const heads: string[] = [];
  const server = await startRaw(async (conn) => {
    for (let head = await conn.nextRequest(); head !== undefined; head = await conn.nextRequest()) {
      heads.push(head);
      const path = head.split(' ')[1] ?? '';
      conn.socket.write(routes[path] ?? withLength([], Buffer.from('no'), '404 Not Found'));
    }
  });
  t.after(() => server.close());
  return Object.assign(server, { heads });
}

function client(t: import('node:test').TestContext, extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient {
  const c = new HttpClient({ userAgent: 'decode-test', idleTimeoutMs: 5000, responseTimeoutMs: 10_000, connectTimeoutMs: 2000, compressed: true, ...extra });
  t.after(() => c.close());
  return c;
}

/** The check of a fetch that fails to decode: its code, its words, and the status that came. */
function fails(code: ErrorCode, words: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(isCrawlerError(e, code), `${code}: ${String(e)}`);
    assert.match(e.message, words);
    assert.ok(e instanceof ExchangeError && e.status === 200, 'the error carries the status that came');
    return true;
  };
}

test('Accept-Encoding: identity by default, "gzip, br" with compressed (RFC 9110 §12.5.3)', async (t) => {
  const s = await serve(t, { '/': withLength([], Buffer.from('x')) });
  await client(t, { compressed: false }).fetch(parseHttpUrl(`${s.origin}/`));
  await client(t).fetch(parseHttpUrl(`${s.origin}/`));
  assert.match(s.heads[0] ?? '', /\r\nAccept-Encoding: identity\r\n/);
  assert.match(s.heads[1] ?? '', /\r\nAccept-Encoding: gzip, br\r\n/);
});

test('gzip (Content-Length) and br (chunked) are decoded; Content-Encoding is gone, the other fields stay', async (t) => {
  const s = await serve(t, {
    '/gzip': withLength(['Content-Type: text/html', 'Content-Encoding: gzip'], gzip(HTML)),
    '/br': chunked(['Content-Type: text/html', 'Content-Encoding: br'], brotli(HTML)),
    '/x-gzip': withLength(['Content-Encoding: X-GZIP'], gzip(HTML)),
    '/identity': withLength(['Content-Encoding: identity'], Buffer.from(HTML)),
  });
  const c = client(t);
  for (const path of ['/gzip', '/br', '/x-gzip', '/identity']) {
    const res = await c.fetch(parseHttpUrl(`${s.origin}${path}`));
    assert.equal(res.body.toString(), HTML, path);
    assert.equal(headerValue(res.headers, 'content-encoding'), undefined, `${path}: no Content-Encoding once decoded`);
  }
  const res = await c.fetch(parseHttpUrl(`${s.origin}/br`));
  assert.equal(headerValue(res.headers, 'content-type'), 'text/html');
  assert.equal(headerValue(res.headers, 'transfer-encoding'), 'chunked');
});

test('RFC 9110 §8.4: "gzip, br" is br over gzip, removed in reverse, in one field or two; three codings are refused', async (t) => {
  const both = brotli(gzip(HTML));
  const s = await serve(t, {
    '/one-field': withLength(['Content-Encoding: gzip, br'], both),
    '/two-fields': withLength(['Content-Encoding: gzip', 'Content-Encoding: br'], both),
    '/gzip-twice': withLength(['Content-Encoding: gzip, gzip'], gzip(gzip(HTML))),
    '/three': withLength(['Content-Encoding: gzip, gzip, gzip'], gzip(gzip(gzip(HTML)))),
  });
  const c = client(t);
  for (const path of ['/one-field', '/two-fields', '/gzip-twice']) assert.equal((await c.fetch(parseHttpUrl(`${s.origin}${path}`))).body.toString(), HTML, path);
  await assert.rejects(c.fetch(parseHttpUrl(`${s.origin}/three`)), fails('ERR_BAD_RESPONSE', /^Content-Encoding "gzip, gzip, gzip" lists 3 codings; at most 2 are decoded$/));
});

test('a decompression bomb (1 GiB of zeros: 1 MiB of gzip, 190 KiB of br) fails with ERR_BODY_OVERFLOW in bounded memory and time; the connection serves on', async (t) => {
  const bombs = { gzip: gzipZeros(1024), br: await brotliZeros(1024) };
  assert.ok(bombs.gzip.length < 1.1 * 2 ** 20 && bombs.br.length < 2 ** 20, 'each bomb is small on the wire, under maxBodyBytes');
  const s = await serve(t, {
    '/gzip': withLength(['Content-Encoding: gzip'], bombs.gzip),
    '/br': chunked(['Content-Encoding: br'], bombs.br, 65536),
    '/next': withLength([], Buffer.from('next')),
  });
  const c = client(t);
  for (const coding of ['gzip', 'br'] as const) {
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    await assert.rejects(
      c.fetch(parseHttpUrl(`${s.origin}/${coding}`)),
      fails('ERR_BODY_OVERFLOW', new RegExp(`^body decoded from Content-Encoding ${coding} exceeds maxBodyBytes \\(10485760 bytes\\)$`)),
    );
    const ms = performance.now() - started;
    const grown = process.memoryUsage().rss - rss;
    // Decoding it whole would hold 1 GiB (and take seconds); stopping at the 10 MiB cap holds some 12 MiB.
    assert.ok(grown < 200 * 2 ** 20, `${coding}: the process grew by ${(grown / 2 ** 20).toFixed(0)} MiB`);
    assert.ok(ms < 10_000, `${coding}: it took ${ms.toFixed(0)} ms`);
  }
  const next = await c.fetch(parseHttpUrl(`${s.origin}/next`));
  assert.equal(next.body.toString(), 'next');
  assert.equal(next.reused, true, 'the framing was sound: the connection was kept');
  assert.equal(s.connections.length, 1);
});

test('the cap is maxBodyBytes: a body that decodes to exactly the cap passes, one byte more fails', async (t) => {
  const s = await serve(t, {
    '/at': withLength(['Content-Encoding: gzip'], gzip('a'.repeat(1000))),
    '/over': withLength(['Content-Encoding: br'], brotli('a'.repeat(1001))),
  });
  const c = client(t, { limits: { maxHeaderBytes: 4096, maxBodyBytes: 1000 } });
  assert.equal((await c.fetch(parseHttpUrl(`${s.origin}/at`))).body.length, 1000);
  await assert.rejects(c.fetch(parseHttpUrl(`${s.origin}/over`)), fails('ERR_BODY_OVERFLOW', /exceeds maxBodyBytes \(1000 bytes\)/));
});

test('a gzip or br stream cut short fails with ERR_BAD_RESPONSE "cut short" (the HTTP framing was whole)', async (t) => {
  const gz = gzip(HTML);
  const br = brotli(HTML);
  const s = await serve(t, {
    '/gzip': withLength(['Content-Encoding: gzip'], gz.subarray(0, gz.length - 6)),
    '/br': chunked(['Content-Encoding: br'], br.subarray(0, br.length - 4)),
  });
  const c = client(t);
  await assert.rejects(c.fetch(parseHttpUrl(`${s.origin}/gzip`)), fails('ERR_BAD_RESPONSE', /^body with Content-Encoding gzip is cut short \(unexpected end of file\)$/));
  await assert.rejects(c.fetch(parseHttpUrl(`${s.origin}/br`)), fails('ERR_BAD_RESPONSE', /^body with Content-Encoding br is cut short/));
});

test('a wrong Content-Encoding: gzip or br on a body that is not fails with ERR_BAD_RESPONSE, never saved as it came', async (t) => {
  const s = await serve(t, {
    '/gzip': withLength(['Content-Encoding: gzip'], Buffer.from(HTML)),
    '/br': withLength(['Content-Encoding: br'], Buffer.from(HTML)),
    '/br-is-gzip': withLength(['Content-Encoding: br'], gzip(HTML)),
  });
  const c = client(t);
  await assert.rejects(c.fetch(parseHttpUrl(`${s.origin}/gzip`)), fails('ERR_BAD_RESPONSE', /^body with Content-Encoding gzip is not valid data for it \(incorrect header check\)$/));
  await assert.rejects(c.fetch(parseHttpUrl(`${s.origin}/br`)), fails('ERR_BAD_RESPONSE', /^body with Content-Encoding br is not valid data for it/));
  await assert.rejects(c.fetch(parseHttpUrl(`${s.origin}/br-is-gzip`)), fails('ERR_BAD_RESPONSE', /^body with Content-Encoding br is not valid data for it/));
});

test('a coding we did not ask for (deflate, compress, zstd) fails with ERR_BAD_RESPONSE naming it', async (t) => {
  const s = await serve(t, {
    '/deflate': withLength(['Content-Encoding: deflate'], Buffer.from('x')),
    '/compress': withLength(['Content-Encoding: compress'], Buffer.from('x')),
    '/zstd': withLength(['Content-Encoding: gzip, zstd'], Buffer.from('x')),
  });
  const c = client(t);
  for (const coding of ['deflate', 'compress', 'zstd']) {
    await assert.rejects(c.fetch(parseHttpUrl(`${s.origin}/${coding}`)), fails('ERR_BAD_RESPONSE', new RegExp(`^Content-Encoding "${coding}" is not one we can decode \\(gzip, br\\)$`)));
  }
});

test('only a 2xx is decoded: a 404 and a 301 with a body that is no gzip keep body and field, and their status decides', async (t) => {
  const s = await serve(t, {
    '/missing': withLength(['Content-Encoding: gzip'], Buffer.from('not gzip'), '404 Not Found'),
    '/moved': withLength(['Location: /x', 'Content-Encoding: zstd'], Buffer.from('not zstd'), '301 Moved Permanently'),
  });
  const c = client(t);
  const missing = await c.fetch(parseHttpUrl(`${s.origin}/missing`));
  assert.equal(missing.status, 404);
  assert.equal(missing.body.toString(), 'not gzip');
  assert.equal(headerValue(missing.headers, 'content-encoding'), 'gzip');
  assert.equal((await c.fetch(parseHttpUrl(`${s.origin}/moved`))).status, 301);
});

test('nothing to decode: an empty body labelled gzip is empty, and so is the answer to a HEAD', async (t) => {
  const s = await serve(t, {
    '/empty': withLength(['Content-Encoding: gzip'], Buffer.alloc(0)),
    '/head': Buffer.from('HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 1234\r\n\r\n'),
  });
  const c = client(t);
  assert.equal((await c.fetch(parseHttpUrl(`${s.origin}/empty`))).body.length, 0);
  assert.equal((await c.fetch(parseHttpUrl(`${s.origin}/head`), { head: true })).body.length, 0);
});

test('without compressed, a body compressed anyway is kept as it came, with its field (as before --compressed)', async (t) => {
  const gz = gzip(HTML);
  const s = await serve(t, { '/': withLength(['Content-Encoding: gzip'], gz) });
  const res = await client(t, { compressed: false }).fetch(parseHttpUrl(`${s.origin}/`));
  assert.deepEqual(res.body, gz);
  assert.equal(headerValue(res.headers, 'content-encoding'), 'gzip');
});

test('the wire tap keeps the bytes as they came: the response with its Content-Encoding, the payload still gzip (WARC 1.1 §6.3.2)', async (t) => {
  const gz = gzip(HTML);
  const wire = chunked(['Content-Type: text/html', 'Content-Encoding: gzip'], gz);
  const s = await serve(t, { '/': wire });
  const seen: WireExchange[] = [];
  const res = await client(t, { onExchange: (x) => seen.push(x) }).fetch(parseHttpUrl(`${s.origin}/`));
  assert.equal(res.body.toString(), HTML);
  assert.equal(seen.length, 1);
  assert.deepEqual(seen[0]?.response, wire, 'the message byte for byte');
  assert.deepEqual(seen[0]?.payload, gz, 'the payload: chunked framing removed, content coding kept');
});
