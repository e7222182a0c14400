/**
 * The HTTP client against raw loopback servers writing literal bytes:
 * keep-alive reuse (RFC 9112 §9.3), the stale-connection retry, timeouts,
 * caps and network failures, each ending in a stable error code.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpClient } from '../../src/http/client.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { isCrawlerError } from '../../src/errors.js';
import { startRaw } from '../helpers/raw-server.js';

const OK = (body: string): string => `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

function client(extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): HttpClient {
  return new HttpClient({ userAgent: 'test-agent', idleTimeoutMs: 2000, responseTimeoutMs: 4000, connectTimeoutMs: 2000, ...extra });
}

test('RFC 9112 §9.3 persistence: N requests to one origin travel over one connection', async (t) => {
  const server = await startRaw(async (conn) => {
    for (let head = await conn.nextRequest(); head !== undefined; head = await conn.nextRequest()) {
      const path = head.split(' ')[1] ?? '';
      conn.socket.write(OK(`page ${path}`));
    }
  });
  t.after(() => server.close());
  const c = client();
  t.after(() => c.close());
  for (let i = 0; i < 5; i++) {
    const res = await c.fetch(parseHttpUrl(`${server.origin}/p${i}`));
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), `page /p${i}`);
    assert.equal(res.reused, i > 0);
  }
  assert.equal(server.connections.length, 1);
});

test('a kept-alive connection the server dropped is retried once on a fresh one', async (t) => {
  let served = 0;
  const server = await startRaw(async (conn) => {
    const head = await conn.nextRequest();
    if (head === undefined) return;
    served++;
    conn.socket.write(OK('first'));
    if (conn.index === 0) {
      // Keep-alive was promised, but the connection is dropped once the next request arrives.
      await conn.nextRequest();
      conn.socket.destroy();
    } else {
      for (let h = await conn.nextRequest(); h !== undefined; h = await conn.nextRequest()) conn.socket.write(OK('again'));
    }
  });
  t.after(() => server.close());
  const c = client();
  t.after(() => c.close());
  assert.equal((await c.fetch(parseHttpUrl(`${server.origin}/a`))).body.toString(), 'first');
  const second = await c.fetch(parseHttpUrl(`${server.origin}/b`));
  assert.equal(second.status, 200);
  assert.equal(second.reused, false, 'the retry used a fresh connection');
  assert.equal(server.connections.length, 2);
  assert.equal(served, 2);
});

test('keepAlive false sends Connection: close and uses a connection per request', async (t) => {
  const heads: string[] = [];
  const server = await startRaw(async (conn) => {
    const head = await conn.nextRequest();
    if (head === undefined) return;
    heads.push(head);
    conn.socket.end(OK('x'));
  });
  t.after(() => server.close());
  const c = client({ keepAlive: false });
  t.after(() => c.close());
  await c.fetch(parseHttpUrl(`${server.origin}/1`));
  await c.fetch(parseHttpUrl(`${server.origin}/2`));
  assert.equal(server.connections.length, 2);
  for (const h of heads) assert.match(h, /\r\nConnection: close\r\n/);
});

test('a response with Connection: close is not reused', async (t) => {
  const server = await startRaw(async (conn) => {
    await conn.nextRequest();
    conn.socket.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok');
  });
  t.after(() => server.close());
  const c = client();
  t.after(() => c.close());
  await c.fetch(parseHttpUrl(`${server.origin}/1`));
  await c.fetch(parseHttpUrl(`${server.origin}/2`));
  assert.equal(server.connections.length, 2);
});

test('refused connection → ERR_CONNECT', async () => {
  const server = await startRaw(() => undefined);
  const port = server.port;
  await server.close();
  const c = client();
  await assert.rejects(c.fetch(parseHttpUrl(`http://127.0.0.1:${port}/`)), (e: unknown) => isCrawlerError(e, 'ERR_CONNECT'));
});

test('unresolvable name (*.invalid, RFC 6761) → ERR_DNS', async () => {
  const c = client();
  await assert.rejects(c.fetch(parseHttpUrl('http://no-such-host.invalid/')), (e: unknown) => isCrawlerError(e, 'ERR_DNS'));
});

test('a server that accepts and never answers → ERR_IDLE_TIMEOUT within the bound', async (t) => {
  const server = await startRaw(() => undefined);
  t.after(() => server.close());
  const c = client({ idleTimeoutMs: 200, responseTimeoutMs: 5000 });
  const started = performance.now();
  await assert.rejects(c.fetch(parseHttpUrl(`${server.origin}/`)), (e: unknown) => isCrawlerError(e, 'ERR_IDLE_TIMEOUT'));
  assert.ok(performance.now() - started < 2000);
});

test('a server dripping one byte at a time forever → ERR_RESPONSE_TIMEOUT', async (t) => {
  const server = await startRaw(async (conn) => {
    await conn.nextRequest();
    const timer = setInterval(() => conn.socket.write('X-Drip: y\r\n'.slice(0, 1)), 20);
    conn.socket.write('HTTP/1.1 200 OK\r\n');
    conn.socket.on('close', () => clearInterval(timer));
  });
  t.after(() => server.close());
  const c = client({ idleTimeoutMs: 1000, responseTimeoutMs: 300 });
  await assert.rejects(c.fetch(parseHttpUrl(`${server.origin}/`)), (e: unknown) => isCrawlerError(e, 'ERR_RESPONSE_TIMEOUT'));
});

test('connect timeout bounds the TLS handshake: a server that accepts TCP and never speaks TLS → ERR_CONNECT_TIMEOUT', async (t) => {
  const server = await startRaw(() => undefined);
  t.after(() => server.close());
  const c = client({ connectTimeoutMs: 200 });
  const started = performance.now();
  await assert.rejects(c.fetch(parseHttpUrl(`https://127.0.0.1:${server.port}/`)), (e: unknown) => isCrawlerError(e, 'ERR_CONNECT_TIMEOUT'));
  assert.ok(performance.now() - started < 2000);
});

test('reset before any byte → ERR_SOCKET or ERR_PREMATURE_CLOSE, never a hang', async (t) => {
  const server = await startRaw(async (conn) => {
    await conn.nextRequest();
    conn.socket.resetAndDestroy();
  });
  t.after(() => server.close());
  const c = client();
  await assert.rejects(c.fetch(parseHttpUrl(`${server.origin}/`)), (e: unknown) => isCrawlerError(e, 'ERR_SOCKET', 'ERR_PREMATURE_CLOSE'));
});

test('body over the cap → ERR_BODY_OVERFLOW; header section over the cap → ERR_HEADERS_OVERFLOW', async (t) => {
  const server = await startRaw(async (conn) => {
    const head = await conn.nextRequest();
    if (head?.startsWith('GET /big-body')) conn.socket.write(OK('x'.repeat(5000)));
    else conn.socket.write(`HTTP/1.1 200 OK\r\nX-Big: ${'y'.repeat(5000)}\r\nContent-Length: 0\r\n\r\n`);
  });
  t.after(() => server.close());
  const c = client({ limits: { maxBodyBytes: 1000, maxHeaderBytes: 1000 } });
  await assert.rejects(c.fetch(parseHttpUrl(`${server.origin}/big-body`)), (e: unknown) => isCrawlerError(e, 'ERR_BODY_OVERFLOW'));
  await assert.rejects(c.fetch(parseHttpUrl(`${server.origin}/big-head`)), (e: unknown) => isCrawlerError(e, 'ERR_HEADERS_OVERFLOW'));
});
