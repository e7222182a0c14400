/**
 * The private crawl's window across hosts (lookahead.ts): in breadth-first
 * order one host's pages often come one after another, each waiting its
 * interval; the window reaches past that run to the other hosts, starts a
 * host's request only when its turn has come, and hands pages out in order.
 * Pages answered ahead of their turn wait in the spill beyond the memory
 * budget, and come back byte for byte. Measured at the servers.
 */
// run-tests: serial (each other host asked within 4 x 150 ms of A's first page, an upper bound that a stall of this process behind other test files could break)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { FileBodySpill, type BodySpill } from '../../src/sink/body-spill.js';
import { assertStartsApart } from '../helpers/arrivals.js';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('pc-window-');
const DELAY = 150;
const RUN = 30;
const OTHERS = 6;

/**
 * Host A: a seed page whose links are RUN pages of A in a row, then one page
 * on each of OTHERS hosts. A's pages answer `latencyMs` late; `busiest()`
 * is the most requests A had open at once.
 */
async function longRunSite(t: import('node:test').TestContext, latencyMs = 20): Promise<{ a: SiteServer; others: SiteServer[]; busiest: () => number }> {
  const others: SiteServer[] = [];
  for (let i = 0; i < OTHERS; i++) {
    const s = await startSite({ '/robots.txt': { status: 404 }, '/o.html': { body: page(`other ${i}`, [], 'x'.repeat(2000)) } });
    t.after(() => s.close());
    others.push(s);
  }
  const routes: Record<string, Route> = { '/robots.txt': { status: 404 } };
  const run = Array.from({ length: RUN }, (_, i) => `/a${i}.html`);
  routes['/'] = { body: page('seed', [...run, ...others.map((o) => `${o.origin}/o.html`)]) };
  let open = 0;
  let most = 0;
  for (const p of run) {
    routes[p] = {
      handle: (_req, res) => {
        most = Math.max(most, ++open);
        setTimeout(() => {
          open--;
          res.writeHead(200, { 'content-type': 'text/html' }).end(page(p, [], 'y'.repeat(2000)));
        }, latencyMs);
      },
    };
  }
  const a = await startSite(routes);
  t.after(() => a.close());
  return { a, others, busiest: () => most };
}

test('the window reaches past one host\'s run of pages: every other host is asked within its first turn, the output stays in order', async (t) => {
  const { a, others } = await longRunSite(t);
  const r = await runCrawl({ seed: `${a.origin}/`, inScope: () => true, maxDepth: 1, delayMs: DELAY, concurrency: 2 });
  const order = r.pages.map((p) => p.split(' => ')[1]);
  assert.deepEqual(order, [`${a.origin}/`, ...Array.from({ length: RUN }, (_, i) => `${a.origin}/a${i}.html`), ...others.map((o) => `${o.origin}/o.html`)], 'handed out in breadth-first order');
  // The others' pages come after 30 pages of A (30 x 150 ms = 4.5 s in A's turns): a window of the next
  // 16 entries would ask them only once A's run is nearly done. Across hosts, each is asked early on.
  const firstOfA = a.requests.find((q) => q.path === '/a0.html')?.at as number;
  for (const o of others) {
    const asked = o.requests.find((q) => q.path === '/o.html')?.at as number;
    assert.ok(asked - firstOfA < 4 * DELAY, `${o.origin}/o.html asked ${(asked - firstOfA).toFixed(0)} ms after A's first page`);
  }
});

test('a host is asked only when its turn has come, one request at a time: no two starts closer than the delay', async (t) => {
  // Answers slower than the delay: a second request started before the first ended would overlap it at the server.
  const delay = 60;
  const { a, busiest } = await longRunSite(t, 100);
  await runCrawl({ seed: `${a.origin}/`, inScope: () => true, maxDepth: 1, delayMs: delay, concurrency: 4 });
  assert.equal(busiest(), 1, 'one request at a time to A (--connections-per-host 1)');
  assertStartsApart(a.requests, delay, 'requests to A', (i) => a.requests[i]?.path ?? `#${i}`);
  assert.equal(a.requests.length, 2 + RUN, 'robots.txt, the seed and its run, each once');
});

test('pages answered ahead wait in the spill beyond the memory budget, and come back byte for byte', async (t) => {
  const { a, others } = await longRunSite(t);
  const dir = dirs.temp();
  const file = new FileBodySpill(dir);
  let puts = 0;
  let takes = 0;
  const spill: BodySpill = {
    put: (body) => (puts++, file.put(body)),
    take: (s) => (takes++, file.take(s)),
    close: () => file.close(),
  };
  const bodies = new Map<string, string>();
  const types: Array<string | undefined> = [];
  const r = await runCrawl({
    seed: `${a.origin}/`,
    inScope: () => true,
    maxDepth: 1,
    delayMs: 30,
    concurrency: 4,
    spill,
    aheadMemory: 4096,
    onPage: (p) => {
      bodies.set(p.url.key, p.response.body.toString('utf8'));
      types.push(p.response.headers.find((f) => f[0].toLowerCase() === 'content-type')?.[1]);
    },
  });
  assert.equal(r.pages.length, 1 + RUN + OTHERS);
  assert.ok(puts > 0, 'some pages waited in the spill');
  assert.equal(takes, puts, 'every page put away came back');
  assert.deepEqual(types, r.pages.map(() => 'text/html'), 'every page came back with its header fields');
  for (let i = 0; i < RUN; i++) assert.equal(bodies.get(`${a.origin}/a${i}.html`), page(`/a${i}.html`, [], 'y'.repeat(2000)));
  for (const [i, o] of others.entries()) assert.equal(bodies.get(`${o.origin}/o.html`), page(`other ${i}`, [], 'x'.repeat(2000)));
  assert.deepEqual(readdirSync(dir), [], 'the spill leaves no file');
});

test('FileBodySpill: bodies back byte for byte, each once; the file is unlinked at once and reused from its start', () => {
  const dir = dirs.temp();
  const spill = new FileBodySpill(dir);
  const one = spill.put(Buffer.from('first body'));
  const two = spill.put(Buffer.alloc(100_000, 7));
  assert.deepEqual(readdirSync(dir), [], 'no name left in the directory');
  assert.equal(spill.take(two).equals(Buffer.alloc(100_000, 7)), true);
  assert.equal(spill.take(one).toString(), 'first body');
  const three = spill.put(Buffer.from('again'));
  assert.equal(three.offset, 0, 'nothing waited: written from the start again');
  assert.equal(spill.take(three).toString(), 'again');
  spill.close();
});
