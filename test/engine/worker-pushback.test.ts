/**
 * A shared crawl listens to a server that pushes back (spec decision "When
 * the server pushes back"), in process over the in-memory ClaimStore: a
 * page answered 503 is tried again later and saved; a Retry-After pause and
 * a back-off streak live on the host's row, so a worker that never saw the
 * push-back still obeys it.
 */
// run-tests: serial (after a success the next request within 2 x 120 + 150 ms, an upper bound that a stall of this process behind other test files could break)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlEvent } from '../../src/engine/events.js';
import { isPushback } from '../../src/engine/pushback.js';
import { MemoryClaimStore } from '../../src/frontier/claim-memory.js';
import type { ClaimStore, Completion } from '../../src/frontier/claim-store.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { longestGap } from '../helpers/arrivals.js';
import { readPages } from '../helpers/page-files.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { makeWorker } from '../helpers/worker-run.js';

const dirs = useTempDirs();
const retryTwice = (attempts: number, outcome: Parameters<typeof isPushback>[0]): boolean => attempts < 2 && isPushback(outcome);

/** A site whose /a.html answers `first` for its first `times` requests, then a page. */
async function site(t: import('node:test').TestContext, first: { status: number; headers?: Record<string, string> }, times = 1, links = ['/a.html', '/b.html']): Promise<SiteServer> {
  let served = 0;
  const s = await startSite({
    '/': { body: page('home', links) },
    '/a.html': {
      handle: (_req, res) => {
        if (served++ < times) {
          res.writeHead(first.status, { 'content-type': 'text/html', ...first.headers });
          res.end('busy');
        } else {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(page('a', ['/c.html']));
        }
      },
    },
    '/b.html': { body: page('b') },
    '/c.html': { body: page('c') },
  });
  t.after(() => s.close());
  return s;
}

/** `inner`, whose completions are watched: `stop` aborts once one says `when`. */
function watching(inner: ClaimStore, when: (c: Completion) => boolean, stop: AbortController): ClaimStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'complete') {
        return async (claim: Parameters<ClaimStore['complete']>[0], c: Completion) => {
          const r = await target.complete(claim, c);
          if (when(c)) stop.abort();
          return r;
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

test('a shared crawl tries a page answered 503 again later and saves it; nothing but its response is told of the try', async (t) => {
  const s = await site(t, { status: 503 });
  const seed = parseHttpUrl(`${s.origin}/`);
  const store = new MemoryClaimStore();
  const events: CrawlEvent[] = [];
  const [d1, d2] = [dirs.temp('wp-a-'), dirs.temp('wp-b-')];
  await Promise.all([
    makeWorker(store, seed, d1, events, { retry: retryTwice }).run(),
    makeWorker(store, seed, d2, events, { retry: retryTwice }).run(),
  ]);
  const pages = [...readPages(d1), ...readPages(d2)];
  assert.deepEqual(pages.map((p) => p.url.slice(s.origin.length)).sort(), ['/', '/a.html', '/b.html', '/c.html']);
  assert.deepEqual(s.paths().filter((p) => p === '/a.html').length, 2, 'tried twice');
  assert.equal(events.filter((e) => e.type === 'failed').length, 0, JSON.stringify(events.filter((e) => e.type === 'failed')));
  const statuses = events.filter((e): e is CrawlEvent & { type: 'response' } => e.type === 'response' && e.url.path === '/a.html').map((e) => e.status);
  assert.deepEqual(statuses, [503, 200]);
  // Its links were scanned once, from the try that succeeded.
  assert.equal(events.filter((e) => e.type === 'saved' && e.url.path === '/a.html').length, 1);
});

test('a shared crawl gives up after its retries: Failed with the last answer', async (t) => {
  const s = await site(t, { status: 502 }, 99);
  const seed = parseHttpUrl(`${s.origin}/`);
  const events: CrawlEvent[] = [];
  await makeWorker(new MemoryClaimStore(), seed, dirs.temp('wp-'), events, { retry: retryTwice }).run();
  assert.equal(s.paths().filter((p) => p === '/a.html').length, 3, 'one try and two retries');
  const failed = events.filter((e) => e.type === 'failed');
  assert.deepEqual(failed.map((e) => e.type === 'failed' && [e.url.slice(s.origin.length), e.reason]), [['/a.html', '(HTTP 502)']]);
});

test("a Retry-After pause lives on the host's row: a worker that never saw the 429 waits it out", async (t) => {
  const s = await site(t, { status: 429, headers: { 'retry-after': '1' } });
  const seed = parseHttpUrl(`${s.origin}/`);
  const store = new MemoryClaimStore();
  const stopA = new AbortController();
  const events: CrawlEvent[] = [];
  // Worker A stops as soon as it has recorded the pause; worker B, with politeness of its own, does the rest.
  const a = makeWorker(watching(store, (c) => c.host?.pausedUntil !== undefined, stopA), seed, dirs.temp('wp-a-'), events, { retry: retryTwice, signal: stopA.signal, lanes: 1, delayMs: 20 });
  assert.equal((await a.run()).stoppedBy, 'signal');
  const b = dirs.temp('wp-b-');
  await makeWorker(store, seed, b, events, { retry: retryTwice, lanes: 1, delayMs: 20 }).run();
  const at429 = s.requests.findIndex((r) => r.path === '/a.html');
  const after = s.requests[at429 + 1];
  assert.ok(after !== undefined, `nothing after the 429: ${s.paths().join(' ')}`);
  const gap = longestGap(s.requests[at429]!, after);
  assert.ok(gap >= 1000, `the next request to the host came at most ${gap.toFixed(1)} ms after the 429 with Retry-After: 1`);
  assert.ok(readPages(b).some((p) => p.url.endsWith('/a.html')), 'worker B tried /a.html again and saved it');
});

test("the back-off streak lives on the host's row: a worker that never saw the first 503 doubles the gap again after the second, and a success restores it", async (t) => {
  const s = await site(t, { status: 503 }, 2, ['/a.html']);
  const seed = parseHttpUrl(`${s.origin}/`);
  const store = new MemoryClaimStore();
  const stopA = new AbortController();
  const events: CrawlEvent[] = [];
  const delayMs = 120;
  const a = makeWorker(watching(store, (c) => (c.host?.streak ?? 0) > 0, stopA), seed, dirs.temp('wp-a-'), events, { retry: retryTwice, signal: stopA.signal, lanes: 1, delayMs, backOff: true });
  await a.run();
  await makeWorker(store, seed, dirs.temp('wp-b-'), events, { retry: retryTwice, lanes: 1, delayMs, backOff: true }).run();
  // /, /a.html 503 (worker A, then it stops), /a.html 503 (worker B), /a.html 200, /c.html.
  assert.deepEqual(s.paths(), ['/', '/a.html', '/a.html', '/a.html', '/c.html']);
  const [, busy1, busy2, ok, next] = s.requests as [unknown, ...Array<(typeof s.requests)[number]>];
  assert.ok(longestGap(busy1!, busy2!) >= 2 * delayMs, `after the first 503: ${longestGap(busy1!, busy2!).toFixed(1)} ms, below twice the delay`);
  assert.ok(longestGap(busy2!, ok!) >= 4 * delayMs, `after the second 503 (streak 2, from the row): ${longestGap(busy2!, ok!).toFixed(1)} ms, below four times the delay`);
  // After a success the interval is the delay again (an upper bound, with slack).
  assert.ok(next!.after - ok!.at < 2 * delayMs + 150, `after a success the gap stayed long: ${(next!.after - ok!.at).toFixed(1)} ms`);
});
