/**
 * Page requisites through the one crawl (engine/requisites.ts), in process,
 * against loopback sites: what a kept page names is fetched after it, once
 * per crawl whichever page names it, never as a page; stylesheets' @import
 * and url() followed; a cross-host image fetched; robots.txt of each
 * requisite's host obeyed; the delay held per host between request starts
 * (measured at the server), pages and requisites together; push-back
 * pauses the host; the per-page caps told once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlEvent } from '../../src/engine/events.js';
import { DEFAULT_REQUISITES } from '../../src/engine/requisites.js';
import { assertStartsApart } from '../helpers/arrivals.js';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';

const CSS = { headers: { 'content-type': 'text/css' } };
const PNG = { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) };

async function sites(t: import('node:test').TestContext, cdnRobots = 'User-agent: *\nDisallow: /private/\n'): Promise<{ a: SiteServer; cdn: SiteServer }> {
  const cdn = await startSite(
    {
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: cdnRobots },
      '/logo.png': PNG,
      '/private/secret.png': PNG,
    },
    '127.0.0.2',
  );
  const head = `<link rel="stylesheet" href="/style.css"><link rel="icon" href="/favicon.ico"><script src="/app.js"></script>`;
  const body = `<img src="/a.png" srcset="/a-2x.png 2x, /a-3x.png 3x"><img src="${cdn.origin}/logo.png"><img src="${cdn.origin}/private/secret.png"><img src="data:image/png;base64,AAAA">`;
  const a = await startSite({
    '/': { body: `<html><head>${head}</head><body>${body}<a href="/two.html">two</a></body></html>` },
    '/two.html': { body: `<html><head><link rel="stylesheet" href="/style.css"></head><body><img src="/a.png"></body></html>` },
    '/style.css': { ...CSS, body: '@import "base.css";\nbody { background: url(img/bg.png) }' },
    '/base.css': { ...CSS, body: '@font-face { src: url("/font.woff2") format("woff2") }' },
    '/img/bg.png': PNG,
    '/font.woff2': { body: 'wOF2' },
    '/favicon.ico': PNG,
    '/app.js': { headers: { 'content-type': 'text/javascript' }, body: 'void 0;' },
    '/a.png': PNG,
    '/a-2x.png': PNG,
    '/a-3x.png': PNG,
  });
  t.after(async () => {
    await a.close();
    await cdn.close();
  });
  return { a, cdn };
}

function requisites(events: CrawlEvent[]): Array<Extract<CrawlEvent, { type: 'requisite' }>> {
  return events.filter((e): e is Extract<CrawlEvent, { type: 'requisite' }> => e.type === 'requisite');
}

test('a page\'s requisites are fetched once each, after it, never as pages; stylesheets\' @import and url() followed, a cross-host image too', async (t) => {
  const { a, cdn } = await sites(t);
  const events: CrawlEvent[] = [];
  const r = await runCrawl({ seed: `${a.origin}/`, maxDepth: 1, requisites: DEFAULT_REQUISITES, onEvent: (e) => events.push(e) });
  const fetched = requisites(events).filter((e) => e.outcome === 'fetched').map((e) => e.url.key.replace(a.origin, 'A').replace(cdn.origin, 'CDN')).sort();
  assert.deepEqual(fetched, ['A/a-2x.png', 'A/a-3x.png', 'A/a.png', 'A/app.js', 'A/base.css', 'A/favicon.ico', 'A/font.woff2', 'A/img/bg.png', 'A/style.css', 'CDN/logo.png'].sort());
  assert.deepEqual(r.pages, [`${a.origin}/ => ${a.origin}/`, `${a.origin}/two.html => ${a.origin}/two.html`], 'the pages are the crawl\'s, as without the flag');
  for (const path of ['/style.css', '/a.png']) assert.equal(a.paths().filter((p) => p === path).length, 1, `${path} asked once though both pages name it`);
  assert.equal(a.paths().filter((p) => p !== '/robots.txt')[0], '/', 'the page first');
  assert.deepEqual(cdn.paths().filter((p) => p.startsWith('/private/')), [], 'robots.txt of the requisite\'s host is obeyed');
  assert.deepEqual(
    requisites(events).filter((e) => e.outcome === 'robots').map((e) => e.url.key),
    [`${cdn.origin}/private/secret.png`],
  );
  assert.ok(!a.paths().some((p) => p.startsWith('data:')), 'a data: URL is never fetched');
});

test('without the flag nothing but pages is asked', async (t) => {
  const { a, cdn } = await sites(t);
  await runCrawl({ seed: `${a.origin}/`, maxDepth: 1 });
  assert.deepEqual(a.paths().filter((p) => p !== '/robots.txt').sort(), ['/', '/two.html']);
  assert.deepEqual(cdn.paths(), []);
});

test('politeness holds per host for pages and requisites together: request starts at least the delay apart, measured at the server', async (t) => {
  const { a, cdn } = await sites(t);
  await runCrawl({ seed: `${a.origin}/`, maxDepth: 1, delayMs: 150, concurrency: 2, requisites: DEFAULT_REQUISITES });
  assert.ok(a.requests.length >= 12, `every page and requisite asked (${a.requests.length})`);
  assertStartsApart(a.requests, 150, 'the site', (i) => a.requests[i]?.path ?? '');
  assertStartsApart(cdn.requests, 150, 'the CDN', (i) => cdn.requests[i]?.path ?? '');
});

test('a requisite answered 429 with Retry-After pauses its host: the next request there waits out the pause', async (t) => {
  const { a } = await sites(t);
  a.routes.set('/app.js', { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' });
  const events: CrawlEvent[] = [];
  await runCrawl({ seed: `${a.origin}/`, maxDepth: 0, requisites: DEFAULT_REQUISITES, onEvent: (e) => events.push(e) });
  const at = a.requests.findIndex((r) => r.path === '/app.js');
  assert.ok(at >= 0 && at < a.requests.length - 1, 'more was asked after it');
  const next = a.requests[at + 1]!;
  assert.ok(next.after - a.requests[at]!.at >= 1000 - 20, `the host was paused: ${Math.round(next.after - a.requests[at]!.at)} ms`);
  assert.ok(requisites(events).some((e) => e.url.key === `${a.origin}/app.js` && e.outcome === 'failed' && e.status === 429));
});

test('a page\'s cap on requisites: those past it are not asked, and the page\'s cap is told once', async (t) => {
  const { a } = await sites(t);
  const events: CrawlEvent[] = [];
  await runCrawl({ seed: `${a.origin}/`, maxDepth: 0, requisites: { ...DEFAULT_REQUISITES, maxPerPage: 3 }, onEvent: (e) => events.push(e) });
  const asked = a.paths().filter((p) => p !== '/' && p !== '/robots.txt');
  assert.equal(asked.length, 3, `three requisites asked: ${asked.join(' ')}`);
  const capped = requisites(events).filter((e) => e.outcome === 'capped');
  assert.equal(capped.length, 1, 'told once');
  assert.match(capped[0]?.reason ?? '', /more than 3 requisites/);
});
