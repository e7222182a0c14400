/**
 * The HTTP client and an unwanted body (FetchOptions.wantsBody false), at
 * raw loopback servers that count the body bytes they managed to send: a
 * short body is read and dropped and the connection carries the next
 * request; a long one (Content-Length, chunked, or delimited by the close)
 * is not read, the connection is closed before the server could send it
 * all, and the wire tap says the response was cut (WARC-Truncated `length`).
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { HttpClient } from '../../src/http/client.js';
import { UNWANTED_BODY_DRAIN_BYTES } from '../../src/http/response-parser.js';
import type { WireExchange } from '../../src/http/wire-exchange.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { startRaw } from '../helpers/raw-server.js';

const NOT_WANTED = (): boolean => false;
const PIECE = 16 * 1024;

function client(extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): { client: HttpClient; seen: WireExchange[] } {
  const seen: WireExchange[] = [];
  const c = new HttpClient({ userAgent: 'test-agent', idleTimeoutMs: 3000, responseTimeoutMs: 10_000, connectTimeoutMs: 2000, onExchange: (x) => seen.push(x), ...extra });
  return { client: c, seen };
}

/**
 * Writes `total` body bytes in pieces (each framed by `frame`), one piece
 * once the last was taken by the kernel, until all are sent or the peer has
 * closed. Resolves with the body bytes sent and whether the peer closed first.
 */
async function sendBody(socket: Socket, total: number, frame: (piece: Buffer) => Buffer = (p) => p): Promise<{ sent: number; closedEarly: boolean }> {
  let closed = false;
  const onClose = (): void => {
    closed = true;
  };
  socket.on('close', onClose);
  socket.on('error', onClose);
  let sent = 0;
  while (sent < total && !closed && !socket.destroyed) {
    const piece = Buffer.alloc(Math.min(PIECE, total - sent), 0x61);
    const ok = await new Promise<boolean>((resolve) => socket.write(frame(piece), (err) => resolve(err == null)));
    if (!ok) break;
    sent += piece.length;
    // Paced a little, so that a client which closes is seen to have closed long before the end.
    await new Promise((r) => setTimeout(r, 2));
  }
  return { sent, closedEarly: sent < total };
}

/** A server answering one request with `head`, then `total` body bytes (see sendBody); `sent` says how far it got. */
async function serveLong(t: TestContext, head: string, total: number, frame?: (piece: Buffer) => Buffer): Promise<{ origin: string; sent: () => Promise<{ sent: number; closedEarly: boolean }> }> {
  let result: Promise<{ sent: number; closedEarly: boolean }> | undefined;
  const server = await startRaw(async (conn) => {
    if ((await conn.nextRequest()) === undefined) return;
    conn.socket.write(head);
    result = sendBody(conn.socket, total, frame);
  });
  t.after(() => server.close());
  return { origin: server.origin, sent: () => result as NonNullable<typeof result> };
}

test('a short unwanted body is read and dropped, and the connection carries the next request', async (t) => {
  const body = 'print("hello")\n'.repeat(100);
  const server = await startRaw(async (conn) => {
    for (let head = await conn.nextRequest(); head !== undefined; head = await conn.nextRequest()) {
      if (head.startsWith('GET /a.py ')) conn.socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/x-python\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      else conn.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello');
    }
  });
  t.after(() => server.close());
  const { client: c, seen } = client();
  t.after(() => c.close());
  const py = await c.fetch(parseHttpUrl(`${server.origin}/a.py`), { wantsBody: NOT_WANTED });
  assert.equal(py.status, 200);
  assert.equal(py.unwanted, 'drained');
  const page = await c.fetch(parseHttpUrl(`${server.origin}/b.html`), { wantsBody: NOT_WANTED });
  assert.equal(page.reused, true, 'the second request went on the same connection');
  assert.equal(server.connections.length, 1);
  assert.equal(seen[0]?.truncated, undefined, 'the tap has the whole message');
  assert.equal(seen[0]?.payload?.toString(), body);
});

test('a long unwanted Content-Length body is not read: the connection is closed before the server sent it all', async (t) => {
  const total = 4 * 1024 * 1024;
  const long = await serveLong(t, `HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: ${total}\r\n\r\n`, total);
  const { client: c, seen } = client();
  t.after(() => c.close());
  const res = await c.fetch(parseHttpUrl(`${long.origin}/big.zip`), { wantsBody: NOT_WANTED });
  assert.equal(res.status, 200);
  assert.equal(res.unwanted, 'cut');
  assert.equal(res.body.length, 0);
  assert.equal(c.idleConnections, 0, 'the connection is not kept');
  const { sent, closedEarly } = await long.sent();
  assert.ok(closedEarly, `the server saw the close after ${sent} of ${total} body bytes`);
  const x = seen[0] as WireExchange;
  assert.equal(x.truncated, 'length');
  assert.equal(x.payload, undefined);
  assert.match(x.response.toString('latin1'), /^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n$/, 'the tap holds the head, and nothing past where reading stopped');
  assert.equal(x.error, undefined, 'not a failure');
});

test('a long unwanted chunked body is read only up to the chunk that passes the threshold', async (t) => {
  const total = 2 * 1024 * 1024;
  const long = await serveLong(t, 'HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n', total, (piece) => Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
  const { client: c, seen } = client();
  t.after(() => c.close());
  const res = await c.fetch(parseHttpUrl(`${long.origin}/stream`), { wantsBody: NOT_WANTED });
  assert.equal(res.unwanted, 'cut');
  const { sent, closedEarly } = await long.sent();
  assert.ok(closedEarly, `the server saw the close after ${sent} of ${total} body bytes`);
  assert.ok(sent > UNWANTED_BODY_DRAIN_BYTES, 'the chunks within the threshold were read');
  assert.equal(seen[0]?.truncated, 'length');
});

test('a short unwanted chunked body is read to its end and the connection kept', async (t) => {
  const server = await startRaw(async (conn) => {
    for (let head = await conn.nextRequest(); head !== undefined; head = await conn.nextRequest()) {
      conn.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n');
    }
  });
  t.after(() => server.close());
  const { client: c } = client();
  t.after(() => c.close());
  assert.equal((await c.fetch(parseHttpUrl(`${server.origin}/1.txt`), { wantsBody: NOT_WANTED })).unwanted, 'drained');
  assert.equal((await c.fetch(parseHttpUrl(`${server.origin}/2.txt`), { wantsBody: NOT_WANTED })).reused, true);
  assert.equal(server.connections.length, 1);
});

test('a long unwanted body delimited by the close is not read to the end', async (t) => {
  const total = 4 * 1024 * 1024;
  const long = await serveLong(t, 'HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\nConnection: close\r\n\r\n', total);
  const { client: c } = client();
  t.after(() => c.close());
  const res = await c.fetch(parseHttpUrl(`${long.origin}/film`), { wantsBody: NOT_WANTED });
  assert.equal(res.unwanted, 'cut');
  const { sent, closedEarly } = await long.sent();
  assert.ok(closedEarly, `the server saw the close after ${sent} of ${total} body bytes`);
});

test('with --compressed an unwanted body is not decoded: a gzip body that is no gzip costs no failure', async (t) => {
  const server = await startRaw(async (conn) => {
    if ((await conn.nextRequest()) === undefined) return;
    conn.socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Encoding: gzip\r\nContent-Length: 9\r\n\r\nnot gzip!');
  });
  t.after(() => server.close());
  const { client: c } = client({ compressed: true });
  t.after(() => c.close());
  const res = await c.fetch(parseHttpUrl(`${server.origin}/doc.pdf`), { wantsBody: NOT_WANTED });
  assert.equal(res.status, 200);
  assert.equal(res.unwanted, 'drained');
});

test('without wantsBody the same long body is read in full (the default)', async (t) => {
  const total = 1024 * 1024;
  const long = await serveLong(t, `HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: ${total}\r\n\r\n`, total);
  const { client: c } = client();
  t.after(() => c.close());
  const res = await c.fetch(parseHttpUrl(`${long.origin}/big.zip`));
  assert.equal(res.body.length, total);
  assert.equal(res.unwanted, undefined);
  assert.equal((await long.sent()).closedEarly, false);
});
