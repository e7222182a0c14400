/**
 * Issue 44's replay: `crawler --page-requisites --wacz` over a small site
 * whose page has a stylesheet that @imports another, a url() background, an
 * image with srcset and an image on another host; both servers stopped,
 * the page replayed in ReplayWeb.page in headless chromium looks as it did
 * live: the stylesheets' rules applied, every image loaded, every resource
 * the frame asked for answered from the archive. The page directory and the
 * CS50 log are those of the same crawl without the flag.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { browserSkipReason, withBrowser } from '../helpers/browser.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { startSite, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { replayFrame } from './replay-check.js';
import { replaySkipReason, startReplayServer } from './replay-server.js';

const { temp } = useTempDirs('replay-requisites-');

/** A 2x2 PNG (green and blue pixels). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEUlEQVR4nGP4z8DwnwGMgRQAH+4D/dJQfRoAAAAASUVORK5CYII=', 'base64');
const png = { headers: { 'content-type': 'image/png' }, body: PNG };
const css = (body: string) => ({ headers: { 'content-type': 'text/css' }, body });

/** What the page looks like in a frame: computed colours, each image's natural width, each resource's status. */
const LOOK = `(() => {
  const style = (sel, prop) => getComputedStyle(document.querySelector(sel)).getPropertyValue(prop);
  return {
    body: style('body', 'background-color'),
    h1: style('h1', 'color'),
    hero: style('.hero', 'border-top-color'),
    images: [...document.images].map((i) => i.complete ? i.naturalWidth : -1),
    resources: performance.getEntriesByType('resource').map((r) => [r.name.replace(/^.*\\/(?=[^/]+$)/, ''), r.responseStatus]).sort(),
  };
})()`;

interface Look {
  body: string;
  h1: string;
  hero: string;
  images: number[];
  resources: Array<[string, number]>;
}

async function siteWithRequisites(): Promise<{ site: SiteServer; cdn: SiteServer }> {
  const cdn = await startSite({ '/logo.png': png }, '127.0.0.2');
  const site = await startSite({
    '/': {
      headers: { 'content-type': 'text/html' },
      body: `<!DOCTYPE html><html><head><title>Styled</title><link rel="stylesheet" href="/css/style.css"></head>
<body><h1>Styled page</h1><div class="hero">hero</div>
<img src="/img/a.png" srcset="/img/a.png 1x, /img/a-2x.png 2x" alt="a"><img src="${cdn.origin}/logo.png" alt="logo">
<a href="/two.html">two</a></body></html>`,
    },
    '/two.html': { headers: { 'content-type': 'text/html' }, body: '<!DOCTYPE html><title>Two</title><p>two</p>' },
    '/css/style.css': css('@import url("base.css");\nh1 { color: rgb(200, 0, 0) }\n.hero { border-top: 3px solid rgb(0, 0, 150); background: url(../img/bg.png) }'),
    '/css/base.css': css('body { background-color: rgb(1, 2, 3) }'),
    '/img/a.png': png,
    '/img/a-2x.png': png,
    '/img/bg.png': png,
  });
  return { site, cdn };
}

test('--page-requisites --wacz: the page replays styled, every image loaded, every resource from the archive; pages and log as without the flag', { skip: browserSkipReason ?? replaySkipReason, timeout: 900_000 }, async (t) => {
  const { site, cdn } = await siteWithRequisites();
  let open = true;
  const close = async (): Promise<void> => {
    if (!open) return;
    open = false;
    await site.close();
    await cdn.close();
  };
  t.after(close);
  const dir = temp();
  const [plain, withFlag] = [join(dir, 'plain'), join(dir, 'with')];
  mkdirSync(plain);
  mkdirSync(withFlag);
  const seed = `${site.origin}/`;
  const without = await crawl(['--delay', '0', seed, plain, '1'], 60_000);
  assert.equal(without.code, 0, without.stderr);
  const wacz = join(dir, 'styled.wacz');
  const r = await crawl(['--delay', '0', '--page-requisites', '--wacz', wacz, seed, withFlag, '1'], 60_000);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, without.stdout, 'the CS50 log is unchanged by the flag');
  assert.deepEqual(readdirSync(withFlag).filter((f) => /^\d+$/.test(f)).sort(), readdirSync(plain).filter((f) => /^\d+$/.test(f)).sort(), 'the same page files');
  for (const f of ['1', '2']) assert.deepEqual(readFileSync(join(withFlag, f)), readFileSync(join(plain, f)), `page ${f} byte for byte`);
  assert.match(r.stderr, /page requisites: 6 fetched/);

  await withBrowser(async (page) => {
    await page.goto(seed);
    await page.waitForLoadState('load');
    const live = (await page.evaluate(LOOK)) as Look;
    assert.deepEqual(live.images, [2, 2], 'live: both images load');
    await close();
    const replay = await startReplayServer(wacz);
    try {
      await page.goto(replay.embedUrl(seed));
      const frame = await replayFrame(page, seed, 180_000);
      // A CSS background is asked for once styles are computed, and may come after the load event: wait for it (bounded).
      await frame.waitForFunction("performance.getEntriesByType('resource').some((r) => r.name.endsWith('/bg.png'))", undefined, { timeout: 60_000 }).catch(() => undefined);
      const replayed = (await frame.evaluate(LOOK)) as Look;
      assert.equal(replayed.body, live.body, 'the @imported stylesheet applies');
      assert.equal(replayed.h1, live.h1, 'the stylesheet applies');
      assert.equal(replayed.hero, live.hero);
      assert.deepEqual(replayed.images, live.images, 'every image loads, the other host\'s too');
      const failed = replayed.resources.filter(([, status]) => status !== 200);
      assert.deepEqual(failed, [], 'every resource the replayed page asked for came from the archive');
      assert.ok(replayed.resources.some(([name]) => name === 'bg.png'), `the url() background was asked for: ${JSON.stringify(replayed.resources)}`);
    } finally {
      await replay.close();
    }
  });
});
