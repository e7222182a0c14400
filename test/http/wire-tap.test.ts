/**
 * The HTTP client's wire tap (`onExchange`): every exchange is told with the
 * request bytes written and exactly the bytes read for its response message,
 * byte for byte as a raw node:net server sent them (status line, folded
 * header lines, chunked framing, trailers), nothing read past the message's
 * end, and how it ended (WARC-Truncated's reasons). A request that got no
 * answer is told too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from '../../src/http/client.js';
import type { WireExchange } from '../../src/http/wire-exchange.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { startRaw } from '../helpers/raw-server.js';
import { refusedPort } from '../helpers/refused-port.js';
import { CHUNKED_FOLDED, CHUNKED_PAYLOAD, LENGTH_BODY, LENGTH_RESPONSE } from '../helpers/wire-fixtures.js';

function tapped(extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): { client: HttpClient; seen: WireExchange[] } {
  const seen: WireExchange[] = [];
  const client = new HttpClient({ userAgent: 'tap-test', idleTimeoutMs: 2000, responseTimeoutMs: 4000, connectTimeoutMs: 2000, onExchange: (x) => seen.push(x), ...extra });
  return { client, seen };
}

test('the tap holds, byte for byte, a chunked response with folded headers and trailers, then a keep-alive Content-Length response on the same connection', async (t) => {
  const requests: string[] = [];
  const server = await startRaw(async (conn) => {
    const first = await conn.nextRequest();
    if (first === undefined) return;
    requests.push(first);
    // Dripped in pieces that cut lines, chunk sizes and the trailer apart.
    for (const piece of [CHUNKED_FOLDED.slice(0, 40), CHUNKED_FOLDED.slice(40, 75), CHUNKED_FOLDED.slice(75, 130), CHUNKED_FOLDED.slice(130)]) {
      conn.socket.write(piece);
      await sleep(15);
    }
    const second = await conn.nextRequest();
    if (second === undefined) return;
    requests.push(second);
    conn.socket.write(LENGTH_RESPONSE);
  });
  t.after(() => server.close());
  const { client, seen } = tapped();
  t.after(() => client.close());
  const before = Date.now();
  const a = await client.fetch(parseHttpUrl(`${server.origin}/chunked`));
  const b = await client.fetch(parseHttpUrl(`${server.origin}/length`));
  const after = Date.now();
  assert.equal(server.connections.length, 1, 'both on one connection');
  assert.equal(seen.length, 2);
  const [x, y] = seen as [WireExchange, WireExchange];
  assert.equal(x.response.toString('latin1'), CHUNKED_FOLDED);
  assert.equal(y.response.toString('latin1'), LENGTH_RESPONSE);
  assert.equal(x.request.toString('latin1'), requests[0]);
  assert.equal(y.request.toString('latin1'), requests[1]);
  assert.equal(x.payload?.toString('latin1'), CHUNKED_PAYLOAD);
  assert.equal(a.body.toString('latin1'), CHUNKED_PAYLOAD);
  assert.equal(y.payload?.toString('latin1'), LENGTH_BODY);
  assert.equal(b.status, 200);
  for (const e of seen) {
    assert.equal(e.ip, '127.0.0.1');
    assert.equal(e.sent, true);
    assert.equal(e.status, 200);
    assert.equal(e.truncated, undefined);
    assert.equal(e.error, undefined);
    assert.ok(e.startedAt >= before - 1 && e.endedAt <= after + 1 && e.startedAt <= e.endedAt, 'epoch ms');
  }
  assert.ok(x.endedAt - x.startedAt >= 40, 'the dripped response took its time');
  assert.equal(x.reused, false);
  assert.equal(y.reused, true);
  assert.equal(x.url.key, `${server.origin}/chunked`);
});

test('bytes a server sends past the end of the message are not part of the recorded response', async (t) => {
  const server = await startRaw(async (conn) => {
    if ((await conn.nextRequest()) === undefined) return;
    conn.socket.write(`${LENGTH_RESPONSE}HTTP/1.1 408 Request Timeout\r\n\r\n`);
  });
  t.after(() => server.close());
  const { client, seen } = tapped();
  t.after(() => client.close());
  await client.fetch(parseHttpUrl(`${server.origin}/x`));
  assert.equal(seen[0]?.response.toString('latin1'), LENGTH_RESPONSE);
});

test('a reset mid-body is told with the bytes that arrived, truncated by disconnect', async (t) => {
  const head = 'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n';
  const server = await startRaw(async (conn) => {
    if ((await conn.nextRequest()) === undefined) return;
    conn.socket.write(`${head}only part`);
    await sleep(30);
    conn.socket.resetAndDestroy();
  });
  t.after(() => server.close());
  const { client, seen } = tapped();
  t.after(() => client.close());
  await assert.rejects(client.fetch(parseHttpUrl(`${server.origin}/cut`)));
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.response.toString('latin1'), `${head}only part`);
  assert.equal(seen[0]?.truncated, 'disconnect');
  assert.equal(seen[0]?.status, 200);
  assert.equal(seen[0]?.payload, undefined);
  assert.ok(seen[0]?.error !== undefined);
});

test('a body over the cap is truncated by length, a stalled one by time', async (t) => {
  const server = await startRaw(async (conn) => {
    const head = await conn.nextRequest();
    if (head === undefined) return;
    if (head.includes('/big')) conn.socket.write(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n${'x'.repeat(64)}\r\n`);
    else conn.socket.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
  });
  t.after(() => server.close());
  const { client, seen } = tapped({ limits: { maxHeaderBytes: 4096, maxBodyBytes: 32 }, idleTimeoutMs: 150 });
  t.after(() => client.close());
  await assert.rejects(client.fetch(parseHttpUrl(`${server.origin}/big`)));
  await assert.rejects(client.fetch(parseHttpUrl(`${server.origin}/stall`)));
  assert.deepEqual(seen.map((e) => e.truncated), ['length', 'time']);
  assert.ok(seen[1]?.response.toString('latin1').endsWith('abc'));
});

test('a refused connection is told: the request as it would have been sent, no response, the error', async (t) => {
  const port = await refusedPort();
  const { client, seen } = tapped();
  t.after(() => client.close());
  await assert.rejects(client.fetch(parseHttpUrl(`http://127.0.0.1:${port}/nothing`)));
  assert.equal(seen.length, 1);
  const e = seen[0] as WireExchange;
  assert.equal(e.response.length, 0);
  assert.equal(e.error?.code, 'ERR_CONNECT');
  assert.equal(e.status, 0);
  assert.equal(e.truncated, undefined);
  assert.equal(e.sent, false, 'no connection, so the request never left');
  assert.match(e.request.toString('latin1'), /^GET \/nothing HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\n/);
});

test('a stale keep-alive retry tells both tries', async (t) => {
  const server = await startRaw(async (conn) => {
    if ((await conn.nextRequest()) === undefined) return;
    conn.socket.write(LENGTH_RESPONSE);
    if (conn.index === 0) {
      await conn.nextRequest();
      conn.socket.destroy();
      return;
    }
  });
  t.after(() => server.close());
  const { client, seen } = tapped();
  t.after(() => client.close());
  await client.fetch(parseHttpUrl(`${server.origin}/a`));
  await client.fetch(parseHttpUrl(`${server.origin}/b`));
  assert.equal(seen.length, 3);
  assert.equal(seen[1]?.reused, true);
  assert.equal(seen[1]?.sent, true, 'the server read the request on the kept-alive connection before closing it');
  assert.equal(seen[1]?.response.length, 0);
  assert.ok(seen[1]?.error !== undefined);
  assert.equal(seen[2]?.reused, false);
  assert.equal(seen[2]?.response.toString('latin1'), LENGTH_RESPONSE);
  assert.deepEqual(seen[1]?.request, seen[2]?.request);
});
