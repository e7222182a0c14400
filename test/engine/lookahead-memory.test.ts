/**
 * What the private crawl's window (lookahead.ts) keeps, in process with a
 * fake fetch: a page's answer is let go once the page is handed out (a lane
 * kept its started slots, so up to 128 answers of one host outlived their
 * pages), and the window takes entries far ahead only while the hosts at hand
 * wait for their turn (a crawl of one host at delay 0 took 256 entries ahead
 * for nothing, and its heap grew with them).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Lookahead } from '../../src/engine/lookahead.js';
import type { FrontierEntry } from '../../src/frontier/private-store.js';
import type { FetchResponse } from '../../src/http/client.js';
import { parseHttpUrl, type HttpUrl } from '../../src/url/http-url.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** `n` entries of one host, then `others` entries of one host each. */
function entries(n: number, others = 0): FrontierEntry[] {
  const one = Array.from({ length: n }, (_, i) => ({ key: `http://a.test/p${i}`, url: `http://a.test/p${i}`, depth: 1 }));
  const more = Array.from({ length: others }, (_, i) => ({ key: `http://h${i}.test/`, url: `http://h${i}.test/`, depth: 1 }));
  return [...one, ...more];
}

const answer = (url: HttpUrl, size = 20_000): FetchResponse =>
  ({ url, reused: false, version: '1.1', status: 200, reason: 'OK', headers: [['content-type', 'text/html']], trailers: [], body: Buffer.alloc(size, 0x61) }) as unknown as FetchResponse;

interface Window {
  window: Lookahead;
  /** Entries taken so far. */
  taken: () => number;
  /** Every body answered, weakly. */
  bodies: Array<WeakRef<Buffer>>;
}

function window(list: FrontierEntry[], o: { concurrency: number; waitTime?: (origin: string) => number; onFetch?: (url: HttpUrl) => void }): Window {
  let next = 0;
  const bodies: Array<WeakRef<Buffer>> = [];
  const w = new Lookahead({
    take: () => list[next++],
    resolve: (entry) => parseHttpUrl(entry.url),
    fetch: async (url) => {
      o.onFetch?.(url);
      const r = answer(url);
      bodies.push(new WeakRef(r.body));
      return { response: r };
    },
    concurrency: o.concurrency,
    perHost: () => 1,
    maxAhead: () => 2,
    budget: () => Infinity,
    ...(o.waitTime === undefined ? {} : { waitTime: o.waitTime }),
  });
  return { window: w, taken: () => Math.min(next, list.length), bodies };
}

for (const concurrency of [1, 4]) {
  test(`concurrency ${concurrency}: the answers of pages handed out are let go (150 of a host's 200 pages handed out, 20 KB each)`, async () => {
    const { window: w, bodies } = window(entries(200), { concurrency });
    // Mid-crawl: the host's lane still has pages to go.
    for (let i = 0; i < 150; i++) {
      const ready = await w.next();
      assert.ok(ready !== undefined);
      assert.equal(ready.url?.key, `http://a.test/p${i}`, 'in order');
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const alive = bodies.slice(0, 150).filter((b) => b.deref() !== undefined).length;
    assert.ok(bodies.length >= 150 && bodies.length <= 153, `${bodies.length} answered`);
    assert.ok(alive <= 1, `${alive} of the 150 bodies handed out still held`);
    w.close();
  });
}

test('one host at delay 0: the window takes no more than its size (8 x concurrency) ahead', async () => {
  const { window: w, taken } = window(entries(1000), { concurrency: 4 });
  let most = 0;
  for (let i = 0; i < 300; i++) {
    await w.next();
    most = Math.max(most, taken() - (i + 1));
  }
  w.close();
  assert.ok(most <= 32, `${most} entries taken ahead`);
  assert.ok(most >= 8, `${most} entries taken ahead: the window still works ahead`);
});

test('a host waiting for its turn: the window takes further at once, past its run of pages, to hosts whose turn has come', async () => {
  // a.test's next request is 10 s away once its first has started; the others' turn has come.
  const fetched: string[] = [];
  const list = entries(100, 8);
  const { window: w, taken } = window(list, {
    concurrency: 4,
    waitTime: (origin) => (origin === 'http://a.test' && fetched.length > 0 ? 10_000 : 0),
    onFetch: (url) => fetched.push(url.key),
  });
  try {
    assert.equal((await w.next())?.url?.key, 'http://a.test/p0');
    // a.test's first request has started and it waits for its turn: the window looks past its run of
    // pages then, while the crawl waits for p0 (a broad crawl's consumer waits for the head's host,
    // a second or more, and the hosts further on must not wait with it), not when it asks for p1.
    for (let i = 0; i < 3 && taken() <= 100; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(taken() > 100, `${taken()} entries taken: past a.test's 100 pages, before the crawl asked for the next`);
    assert.deepEqual(fetched.slice(1, 4), ['http://h0.test/', 'http://h1.test/', 'http://h2.test/'], 'the hosts whose turn has come asked at once, before a.test\'s next page');
    assert.equal((await w.next())?.url?.key, 'http://a.test/p1');
  } finally {
    w.close();
  }
});
