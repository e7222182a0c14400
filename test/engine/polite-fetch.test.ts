/**
 * PoliteFetcher: a request starts only in its host's turn. Spec decision
 * "When the server pushes back": a request re-sent because a kept-alive
 * connection turned out closed is a new request start, and waits for the
 * host's interval like any other (it used to go out at once: the server saw
 * two request starts 0 ms apart).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { PoliteFetcher } from '../../src/engine/polite-fetch.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { HttpClient } from '../../src/http/client.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { startRaw, type RawServer } from '../helpers/raw-server.js';

const servers: RawServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const ok = (body: string): string => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

test('a request re-sent on a fresh connection after a stale kept-alive one waits for the host\'s interval', async () => {
  const DELAY = 300;
  const arrivals: Array<{ path: string; connection: number; at: number }> = [];
  const server = await startRaw(async (conn) => {
    for (let nth = 1; ; nth++) {
      const head = await conn.nextRequest();
      if (head === undefined) return;
      arrivals.push({ path: head.split(' ')[1] ?? '', connection: conn.index, at: performance.now() });
      // The first connection serves one request, then closes when the second comes, answering nothing: it was stale.
      if (conn.index === 0 && nth === 2) {
        conn.socket.destroy();
        return;
      }
      conn.socket.write(ok(`page ${arrivals.length}`));
    }
  });
  servers.push(server);
  const politeness = new Politeness({ delayMs: DELAY });
  const starts: number[] = [];
  const stamp = politeness.stamp.bind(politeness);
  politeness.stamp = (host: string): void => {
    stamp(host);
    starts.push(politeness.lastStartOf(host) as number);
  };
  const client = new HttpClient({ userAgent: 'polite-fetch-test', maxIdlePerOrigin: 1 });
  try {
    const fetcher = new PoliteFetcher(client, politeness);
    const first = await fetcher.fetch(parseHttpUrl(`${server.origin}/a.html`));
    assert.equal(first.status, 200);
    const second = await fetcher.fetch(parseHttpUrl(`${server.origin}/b.html`));
    assert.equal(second.status, 200);
    assert.equal(second.reused, false, 'the answer came over the fresh connection');
  } finally {
    client.close();
  }
  assert.deepEqual(
    arrivals.map((a) => `${a.connection} ${a.path}`),
    ['0 /a.html', '0 /b.html', '1 /b.html'],
    'the second request went out on the kept-alive connection, then again on a fresh one',
  );
  // Three request starts, each at least the interval after the one before, on the clock politeness keeps.
  assert.equal(starts.length, 3, 'the re-sent request took a turn of its own');
  for (let i = 1; i < starts.length; i++) assert.ok((starts[i] as number) - (starts[i - 1] as number) >= DELAY, `start ${i}: ${(starts[i] as number) - (starts[i - 1] as number)} ms after the one before`);
  // At the server: the re-sent request arrived well after the stale attempt (it used to come 0 ms after).
  const gap = (arrivals[2]?.at as number) - (arrivals[1]?.at as number);
  assert.ok(gap >= DELAY * 0.9, `the re-sent request arrived ${gap.toFixed(1)} ms after the stale attempt`);
});
