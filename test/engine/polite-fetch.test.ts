/**
 * PoliteFetcher: a request starts only in its host's turn. Spec decision
 * "When the server pushes back": a request re-sent because a kept-alive
 * connection turned out closed is a new request start, and waits for the
 * host's interval like any other (it used to go out at once: the server saw
 * two request starts 0 ms apart).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { isCrawlerError } from '../../src/errors.js';
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

/** A raw server answering each path with its bytes; records each request's arrival. */
async function serveRaw(routes: Record<string, string>, host = '127.0.0.1'): Promise<{ server: RawServer; arrivals: Array<{ path: string; at: number }> }> {
  const arrivals: Array<{ path: string; at: number }> = [];
  const server = await startRaw(async (conn) => {
    for (;;) {
      const head = await conn.nextRequest();
      if (head === undefined) return;
      const path = head.split(' ')[1] ?? '';
      arrivals.push({ path, at: performance.now() });
      conn.socket.write(routes[path] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    }
  }, host);
  servers.push(server);
  return { server, arrivals };
}

test('429 with Retry-After pauses the whole host (robots.txt included); another host is not slowed; the response notes the pause', async () => {
  const { server, arrivals } = await serveRaw({ '/busy': 'HTTP/1.1 429 Too Many\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n', '/robots.txt': ok('User-agent: *\n'), '/next': ok('next') });
  const other = await serveRaw({ '/x': ok('x') }, '127.0.0.2');
  const politeness = new Politeness({ delayMs: 0 });
  const client = new HttpClient({ userAgent: 'polite-fetch-test' });
  try {
    const fetcher = new PoliteFetcher(client, politeness);
    const busy = await fetcher.fetch(parseHttpUrl(`${server.origin}/busy`));
    assert.equal(busy.status, 429);
    assert.match(busy.notes?.join('\n') ?? '', /HTTP 429 with Retry-After: 1: no request to this host for 1\.0 s/);
    const t0 = performance.now();
    assert.equal((await fetcher.fetch(parseHttpUrl(`${other.server.origin}/x`))).status, 200);
    assert.ok(performance.now() - t0 < 800, 'the other host answered without waiting out the pause');
    await fetcher.fetch(parseHttpUrl(`${server.origin}/robots.txt`));
    await fetcher.fetch(parseHttpUrl(`${server.origin}/next`));
  } finally {
    client.close();
  }
  assert.deepEqual(arrivals.map((a) => a.path), ['/busy', '/robots.txt', '/next']);
  const gap = (arrivals[1]?.at as number) - (arrivals[0]?.at as number);
  assert.ok(gap >= 1000, `robots.txt came ${gap.toFixed(1)} ms after the 429 (Retry-After: 1)`);
});

test('503 with an HTTP-date read against the response\'s Date (a server an hour ahead of us) pauses as long as the server meant', async () => {
  const serverNow = Date.now() + 3_600_000;
  const date = new Date(serverNow).toUTCString();
  const until = new Date(serverNow + 2000).toUTCString();
  const { server, arrivals } = await serveRaw({ '/down': `HTTP/1.1 503 Unavailable\r\nDate: ${date}\r\nRetry-After: ${until}\r\nContent-Length: 0\r\n\r\n`, '/up': ok('up') });
  const politeness = new Politeness({ delayMs: 0 });
  const client = new HttpClient({ userAgent: 'polite-fetch-test' });
  try {
    const fetcher = new PoliteFetcher(client, politeness);
    assert.equal((await fetcher.fetch(parseHttpUrl(`${server.origin}/down`))).status, 503);
    assert.equal((await fetcher.fetch(parseHttpUrl(`${server.origin}/up`))).status, 200);
  } finally {
    client.close();
  }
  const gap = (arrivals[1]?.at as number) - (arrivals[0]?.at as number);
  // toUTCString drops the milliseconds: the pause is 1 to 2 s, never an hour and never none.
  assert.ok(gap >= 1000 && gap < 5000, `the next request came ${gap.toFixed(1)} ms after the 503`);
});

test('a Retry-After beyond --max-retry-after is not waited for: the host is asked nothing more (its pages fail quoting the server), another host goes on', async () => {
  const { server, arrivals } = await serveRaw({ '/busy': 'HTTP/1.1 429 Too Many\r\nRetry-After: 3600\r\nContent-Length: 0\r\n\r\n', '/next': ok('next') });
  const other = await serveRaw({ '/up': ok('up') });
  const politeness = new Politeness({ delayMs: 0 });
  const client = new HttpClient({ userAgent: 'polite-fetch-test' });
  try {
    const fetcher = new PoliteFetcher(client, politeness, undefined, { maxRetryAfterMs: 120_000 });
    const busy = await fetcher.fetch(parseHttpUrl(`${server.origin}/busy`));
    assert.match(busy.notes?.join('\n') ?? '', /Retry-After: 3600 asks for 3600\.0 s, beyond --max-retry-after 120 s: not waiting/);
    const t0 = performance.now();
    await assert.rejects(fetcher.fetch(parseHttpUrl(`${server.origin}/next`)), (err: unknown) =>
      isCrawlerError(err) && err.code === 'ERR_HOST_REFUSED' && /HTTP 429 with Retry-After: 3600, beyond --max-retry-after 120 s/.test(err.message));
    assert.ok(performance.now() - t0 < 2000, 'no pause');
    assert.equal((await fetcher.fetch(parseHttpUrl(`${other.server.origin}/up`))).status, 200, 'another host is not refused');
  } finally {
    client.close();
  }
  assert.equal(arrivals.length, 1, 'nothing more was requested of the host');
  assert.equal(politeness.pausedUntilOf(`${server.origin}`), undefined, 'the host was never paused');
});

test('--delay-factor 2 against a server that answers in 200 ms: request starts at least 0.4 s apart (0 when off)', async () => {
  for (const factor of [2, 0]) {
    const starts: number[] = [];
    const server = await startRaw(async (conn) => {
      for (;;) {
        const head = await conn.nextRequest();
        if (head === undefined) return;
        starts.push(performance.now());
        // 205: a timer may fire a fraction of a millisecond early, and the client measures from its own write.
        await new Promise((r) => setTimeout(r, 205));
        conn.socket.write(ok('slow'));
      }
    });
    servers.push(server);
    const politeness = new Politeness({ delayMs: 0, delayFactor: factor });
    const client = new HttpClient({ userAgent: 'polite-fetch-test' });
    try {
      const fetcher = new PoliteFetcher(client, politeness);
      for (const p of ['/1', '/2', '/3']) assert.equal((await fetcher.fetch(parseHttpUrl(`${server.origin}${p}`))).status, 200);
      const host = server.origin;
      if (factor === 2) {
        // The interval is 2 x the last response's duration, which was at least the server's 200 ms (it waits 205).
        assert.ok(politeness.intervalFor(host) >= 400, `interval ${politeness.intervalFor(host)} ms`);
        for (let i = 1; i < starts.length; i++) {
          const gap = (starts[i] as number) - (starts[i - 1] as number);
          assert.ok(gap >= 400, `request ${i}: ${gap.toFixed(1)} ms after the one before`);
        }
      } else {
        assert.equal(politeness.intervalFor(host), 0, 'off: the interval stays the delay');
      }
    } finally {
      client.close();
    }
  }
});

test('an answer whose first byte comes late moves its request\'s start that much later (at most 5 % of the interval): the next request waits from there', async () => {
  const server = await startRaw(async (conn) => {
    for (;;) {
      const head = await conn.nextRequest();
      if (head === undefined) return;
      if (head.includes('/late')) await new Promise((r) => setTimeout(r, 150));
      conn.socket.write(ok('x'));
    }
  });
  servers.push(server);
  // The request starts as politeness stamps them (when the bytes are written), on its own clock.
  const stamps: number[] = [];
  class Recording extends Politeness {
    override stamp(host: string): void {
      super.stamp(host);
      stamps.push(performance.now());
    }
  }
  const politeness = new Recording({ delayMs: 400 });
  const client = new HttpClient({ userAgent: 'polite-fetch-test' });
  try {
    const fetcher = new PoliteFetcher(client, politeness);
    for (const p of ['/1', '/late', '/3']) assert.equal((await fetcher.fetch(parseHttpUrl(`${server.origin}${p}`))).status, 200);
  } finally {
    client.close();
  }
  const [first, late, third] = stamps as [number, number, number];
  assert.ok(late - first >= 402, `the late request ${(late - first).toFixed(1)} ms after the first`);
  // 150 ms late: 5 % of 400 ms in all, of which 2 beyond the guard's 2: 18 ms more than the interval and guard.
  assert.ok(third - late >= 420, `the next request ${(third - late).toFixed(1)} ms after the late one, not 420`);
});
