/**
 * The client's connections, all origins together (connection-pool.ts),
 * seen from raw loopback servers: idle keep-alive connections are capped
 * and the least recently used is closed first; open sockets stay within
 * the budget, and a request past it waits (an idle connection closing to
 * make room) instead of failing; a connect that failed gives its room back;
 * close() ends the waits.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { HttpClient } from '../../src/http/client.js';
import { isCrawlerError } from '../../src/errors.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { openConnections, type OpenConnections } from '../helpers/open-connections.js';
import { startRaw, type RawConnection, type RawServer } from '../helpers/raw-server.js';
import { refusedPort } from '../helpers/refused-port.js';

const OK = (body: string): string => `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** A keep-alive origin answering every request, after `delayMs`. */
interface Origin {
  server: RawServer;
  /** Whether each connection (by its index) has ended, as the server saw it. */
  ended: boolean[];
  /** Resolves once connection `i` has ended. */
  endOf(i: number): Promise<void>;
}

async function startOrigins(t: TestContext, n: number, counter?: OpenConnections, delayMs = 0): Promise<Origin[]> {
  const origins: Origin[] = [];
  for (let k = 0; k < n; k++) {
    const ended: boolean[] = [];
    const ends: Array<Promise<void>> = [];
    const handle = async (conn: RawConnection): Promise<void> => {
      ended[conn.index] = false;
      ends[conn.index] = new Promise<void>((resolve) => {
        const done = (): void => {
          ended[conn.index] = true;
          resolve();
        };
        conn.socket.once('end', done);
        conn.socket.once('close', done);
      });
      for (let head = await conn.nextRequest(); head !== undefined; head = await conn.nextRequest()) {
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        if (!conn.socket.destroyed) conn.socket.write(OK(`origin ${k} ${head.split(' ')[1] ?? ''}`));
      }
    };
    // Different origins: a host each (the port alone would do; hosts are what a crawl has).
    const server = await startRaw(handle, `127.0.0.${41 + k}`);
    counter?.watch(server.server);
    origins.push({ server, ended, endOf: (i) => ends[i] ?? Promise.reject(new Error(`no connection ${i}`)) });
  }
  t.after(() => Promise.all(origins.map((o) => o.server.close())));
  return origins;
}

function client(t: TestContext, extra: Partial<ConstructorParameters<typeof HttpClient>[0]>): HttpClient {
  const c = new HttpClient({ userAgent: 'test-agent', idleTimeoutMs: 4000, responseTimeoutMs: 8000, connectTimeoutMs: 4000, ...extra });
  t.after(() => c.close());
  return c;
}

/** Waits up to `ms` for `p`; false when it did not settle by then. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

test('at most --max-idle-connections idle connections, all origins together; the least recently used is closed first', async (t) => {
  const [a, b, c, d] = (await startOrigins(t, 4)) as [Origin, Origin, Origin, Origin];
  const http = client(t, { maxIdleConnections: 2 });
  const get = (o: Origin, path = '/'): Promise<unknown> => http.fetch(parseHttpUrl(`${o.server.origin}${path}`));

  await get(a);
  await get(b);
  assert.equal(http.idleConnections, 2);
  await get(c);
  assert.equal(http.idleConnections, 2, 'never more than 2 idle');
  assert.ok(await within(a.endOf(0), 3000), 'the least recently used (a) was closed');
  assert.deepEqual([b.ended[0], c.ended[0]], [false, false], 'b and c are kept');

  // b used again: now c is the least recently used.
  const again = (await http.fetch(parseHttpUrl(`${b.server.origin}/again`))) as { reused: boolean };
  assert.equal(again.reused, true, 'b was reused from the idle set');
  await get(d);
  assert.equal(http.idleConnections, 2);
  assert.ok(await within(c.endOf(0), 3000), 'c, the least recently used, was closed');
  assert.deepEqual([b.ended[0], d.ended[0]], [false, false], 'b (used after c) and d are kept');
  assert.deepEqual([a, b, c, d].map((o) => o.server.connections.length), [1, 1, 1, 1], 'one connection each');
});

test('--max-idle-connections 0: no connection is kept idle, each closes after its response', async (t) => {
  const [a] = (await startOrigins(t, 1)) as [Origin];
  const http = client(t, { maxIdleConnections: 0 });
  for (let i = 0; i < 3; i++) assert.equal((await http.fetch(parseHttpUrl(`${a.server.origin}/${i}`))).reused, false);
  assert.equal(http.idleConnections, 0);
  assert.equal(a.server.connections.length, 3);
});

test('past the socket budget requests wait, none fails, and the servers never see more connections than the budget', async (t) => {
  const counter = openConnections();
  const origins = await startOrigins(t, 8, counter, 100);
  const http = client(t, { maxSockets: 3 });
  // Two requests to each origin at once: 16 requests, 8 origins, 3 sockets.
  const results = await Promise.all(origins.flatMap((o, k) => [0, 1].map((i) => http.fetch(parseHttpUrl(`${o.server.origin}/r${i}`)).then((r) => [k, r.body.toString()]))));
  assert.equal(results.length, 16);
  for (const [k, body] of results) assert.match(String(body), new RegExp(`^origin ${k} /r[01]$`));
  assert.ok(counter.most <= 3, `at most 3 connections open at once at the servers, saw ${counter.most}`);
  assert.equal(counter.most, 3, 'the budget was used');
  assert.ok(http.openConnections <= 3);
});

test('an idle connection is closed to make room for a request to another origin (the least recently used)', async (t) => {
  const [a, b, c] = (await startOrigins(t, 3)) as [Origin, Origin, Origin];
  const http = client(t, { maxSockets: 2 });
  await http.fetch(parseHttpUrl(`${a.server.origin}/`));
  await http.fetch(parseHttpUrl(`${b.server.origin}/`));
  assert.equal(http.idleConnections, 2, 'both kept: the budget is full');
  const res = await http.fetch(parseHttpUrl(`${c.server.origin}/`));
  assert.equal(res.status, 200);
  assert.ok(await within(a.endOf(0), 3000), 'a, the least recently used, made room');
  assert.equal(b.ended[0], false, 'b is kept');
  assert.ok(http.openConnections <= 2);
});

test('a connect that failed gives its room back: the next request does not wait for it', async (t) => {
  const [a] = (await startOrigins(t, 1)) as [Origin];
  const http = client(t, { maxSockets: 1 });
  const port = await refusedPort();
  await assert.rejects(http.fetch(parseHttpUrl(`http://127.0.0.1:${port}/`)), (err: unknown) => isCrawlerError(err) && err.code === 'ERR_CONNECT');
  assert.ok(await within(http.fetch(parseHttpUrl(`${a.server.origin}/`)), 3000), 'served without waiting for the failed connect');
});

test('close() ends the requests waiting for a socket: they fail as aborted and are never sent', async (t) => {
  // The only socket is held by a request the server never answers.
  const silent = await startRaw(async (conn) => void (await conn.nextRequest()));
  t.after(() => silent.close());
  const [a] = (await startOrigins(t, 1)) as [Origin];
  const http = client(t, { maxSockets: 1 });
  const held = http.fetch(parseHttpUrl(`${silent.origin}/`));
  held.catch(() => undefined);
  while (silent.connections.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const waiting = http.fetch(parseHttpUrl(`${a.server.origin}/`));
  await new Promise((resolve) => setTimeout(resolve, 50));
  http.close();
  await assert.rejects(waiting, (err: unknown) => isCrawlerError(err) && err.code === 'ERR_ABORTED' && /client closed/.test(err.message));
  await assert.rejects(held);
  assert.equal(a.server.connections.length, 0, 'the waiting request never connected');
});
