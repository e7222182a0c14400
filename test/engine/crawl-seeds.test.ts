/**
 * A private crawl from several seeds (`Crawl` with `moreSeeds`, crawler
 * --seeds), in process over loopback sites: every seed at depth 0 after the
 * first, in order; each seed's robots.txt applies (one it disallows is told
 * and not queued, the others are crawled); the robots.txt of every seed's
 * host is fetched at once, not one after another; a seed given twice is
 * queued once; a resumed crawl does not queue its seeds again.
 */
// run-tests: serial (the seeds' robots.txt requests within 500 ms of each other, an upper bound that a stall of this process behind other test files could break)
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFrontier } from '../../src/frontier/private-memory.js';
import type { HttpUrl } from '../../src/url/http-url.js';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';

async function site(t: TestContext, routes: Record<string, Route>, host: string): Promise<SiteServer> {
  const s = await startSite(routes, host);
  t.after(() => s.close());
  return s;
}

const robotsTxt = (text: string): Route => ({ headers: { 'content-type': 'text/plain' }, body: text });

/** Answers `route` after `ms`. */
function late(route: Route, ms: number): Route {
  return {
    handle(_req, res) {
      setTimeout(() => {
        res.writeHead(route.status ?? 200, { 'content-type': 'text/html', ...route.headers });
        res.end(route.body ?? '');
      }, ms);
    },
  };
}

test('several seeds: all at depth 0, in order, after the first; one robots.txt disallows is told and not requested; their links follow at depth 1', async (t) => {
  const a = await site(t, { '/robots.txt': robotsTxt('User-agent: *\nDisallow:\n'), '/': { body: page('a', ['/a1.html']) }, '/a1.html': { body: page('a1') } }, '127.0.0.1');
  const b = await site(t, { '/robots.txt': robotsTxt('User-agent: *\nDisallow: /\n'), '/': { body: page('b') } }, '127.0.0.2');
  const c = await site(t, { '/x.html': { body: page('c', ['/c1.html']) }, '/c1.html': { body: page('c1') } }, '127.0.0.3');
  const origins = new Set([a.origin, b.origin, c.origin]);
  const inScope = (url: HttpUrl): boolean => origins.has(url.origin);
  const r = await runCrawl({ seed: `${a.origin}/`, moreSeeds: [`${b.origin}/`, `${c.origin}/x.html`, `${a.origin}/`], inScope, maxDepth: 1 });
  assert.deepEqual(r.seedDisallowed, [`${b.origin}/`]);
  assert.deepEqual(r.events, [
    `robots ${a.origin}/robots.txt file group=* rules=0 delay=-`,
    `robots ${b.origin}/robots.txt file group=* rules=1 delay=-`,
    `robots ${c.origin}/robots.txt allow-all group= rules=0 delay=-`,
    `response 0 ${a.origin}/ 200`,
    `scanning 0 ${a.origin}/`,
    `link 0 ${a.origin}/a1.html follow`,
    `response 0 ${c.origin}/x.html 200`,
    `scanning 0 ${c.origin}/x.html`,
    `link 0 ${c.origin}/c1.html follow`,
    `response 1 ${a.origin}/a1.html 200`,
    `response 1 ${c.origin}/c1.html 200`,
  ]);
  assert.deepEqual(a.paths(), ['/robots.txt', '/', '/a1.html'], 'the seed given twice is requested once');
  assert.deepEqual(b.paths(), ['/robots.txt'], 'the disallowed seed is never requested');
  assert.deepEqual(c.paths(), ['/robots.txt', '/x.html', '/c1.html']);
  assert.deepEqual(r.summary, { pages: 4, stoppedBy: 'done' });
});

test('every seed disallowed: nothing queued, stoppedBy seed-disallowed, each told', async (t) => {
  const a = await site(t, { '/robots.txt': robotsTxt('User-agent: *\nDisallow: /\n') }, '127.0.0.1');
  const b = await site(t, { '/robots.txt': robotsTxt('User-agent: *\nDisallow: /\n') }, '127.0.0.2');
  const r = await runCrawl({ seed: `${a.origin}/`, moreSeeds: [`${b.origin}/`], inScope: () => true });
  assert.deepEqual(r.summary, { pages: 0, stoppedBy: 'seed-disallowed' });
  assert.deepEqual(r.seedDisallowed, [`${a.origin}/`, `${b.origin}/`]);
  assert.deepEqual([...a.paths(), ...b.paths()], ['/robots.txt', '/robots.txt']);
});

test('the robots.txt of every seed\'s host is fetched at once (--concurrency at a time), not one after another', async (t) => {
  const ROBOTS_MS = 500;
  const sites = await Promise.all([1, 2, 3, 4].map((i) => site(t, { '/robots.txt': late(robotsTxt('User-agent: *\nDisallow:\n'), ROBOTS_MS), '/': { body: page(`s${i}`) } }, `127.0.0.${i}`)));
  const [first, ...rest] = sites.map((s) => `${s.origin}/`) as [string, ...string[]];
  const r = await runCrawl({ seed: first, moreSeeds: rest, inScope: () => true, concurrency: 4 });
  assert.deepEqual(r.summary, { pages: 4, stoppedBy: 'done' });
  const arrivals = sites.map((s) => s.requests.find((q) => q.path === '/robots.txt')?.at as number);
  // One after another, each would arrive at least ROBOTS_MS after the one before (measured at the servers).
  assert.ok(Math.max(...arrivals) - Math.min(...arrivals) < ROBOTS_MS, `robots.txt requests arrived over ${(Math.max(...arrivals) - Math.min(...arrivals)).toFixed(0)} ms`);
  // And the pages still come in seed order.
  assert.deepEqual(r.pages, sites.map((s) => `${s.origin}/ => ${s.origin}/`));
});

test('a seed whose host answers robots.txt late holds back only itself: the later seeds\' pages are asked meanwhile, and come in seed order', async (t) => {
  const SLOW_MS = 2000;
  let slowAnsweredAt = Infinity;
  const slowRobots: Route = {
    handle(_req, res) {
      setTimeout(() => {
        slowAnsweredAt = performance.now();
        res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow:\n');
      }, SLOW_MS);
    },
  };
  const slow = await site(t, { '/robots.txt': slowRobots, '/': { body: page('slow') } }, '127.0.0.1');
  const fast = await Promise.all([2, 3].map((i) => site(t, { '/robots.txt': robotsTxt('User-agent: *\nDisallow: /no/\n'), '/': { body: page(`f${i}`) }, '/no/': { body: page('never') } }, `127.0.0.${i}`)));
  const seeds = [`${slow.origin}/`, ...fast.flatMap((s) => [`${s.origin}/`, `${s.origin}/no/`])];
  const r = await runCrawl({ seed: seeds[0] as string, moreSeeds: seeds.slice(1), inScope: () => true, concurrency: 4, delayMs: 200 });
  for (const s of fast) {
    const root = s.requests.find((q) => q.path === '/');
    assert.ok(root !== undefined && root.at < slowAnsweredAt, `${s.origin}/ asked before the slow robots.txt answered`);
    assert.deepEqual(s.paths(), ['/robots.txt', '/'], 'each page once, the disallowed seed never');
  }
  assert.deepEqual(slow.paths(), ['/robots.txt', '/']);
  assert.deepEqual(r.pages, [slow, ...fast].map((s) => `${s.origin}/ => ${s.origin}/`));
  assert.deepEqual(r.seedDisallowed, fast.map((s) => `${s.origin}/no/`));
});

test('a resumed crawl whose seeds were queued (one of them is seen) does not queue or check them again', async (t) => {
  const a = await site(t, { '/': { body: page('a') }, '/later.html': { body: page('later') } }, '127.0.0.1');
  const b = await site(t, { '/': { body: page('b') } }, '127.0.0.2');
  const frontier = new MemoryFrontier();
  // What an earlier run left: the second seed done, a page of depth 1 waiting.
  frontier.add({ key: `${b.origin}/`, url: `${b.origin}/`, depth: 0 });
  frontier.complete(frontier.take()!, { links: [{ key: `${a.origin}/later.html`, url: `${a.origin}/later.html`, depth: 1 }] });
  const r = await runCrawl({ seed: `${a.origin}/`, moreSeeds: [`${b.origin}/`], inScope: () => true, robots: false, frontier });
  assert.deepEqual(r.pages, [`${a.origin}/later.html => ${a.origin}/later.html`]);
  assert.deepEqual(a.paths(), ['/later.html'], 'the first seed (not seen: disallowed or failed before) is not queued now, after depth 1');
  assert.deepEqual(b.paths(), []);
});
