/**
 * --page-requisites and --resume (issue 44): a crawl stopped by SIGINT
 * while its pages' requisites are still being fetched, then resumed, ends
 * with every requisite of every page in its archive, and none fetched twice:
 * those the first run fetched are not asked again, those it queued and did
 * not fetch are.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { crawl } from '../helpers/crawler-e2e.js';
import { crawlKilledAfter } from '../helpers/killed-crawl.js';
import { page, startSite, type Route } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, responseUris } from '../helpers/warc-check.js';

const { temp } = useTempDirs('requisites-resume-');
const PAGES = 12;

test('SIGINT while requisites are fetched, then --resume: every requisite archived once, none asked twice', async (t) => {
  const routes = new Map<string, Route>();
  const slow = (body: string, type: string): Route => ({
    handle: (_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': type });
        res.end(body);
      }, 20);
    },
  });
  const links = Array.from({ length: PAGES }, (_, i) => `/p${i}.html`);
  for (let i = 0; i < PAGES; i++) {
    routes.set(`/p${i}.html`, slow(page(`Page ${i}`, i === 0 ? links : [], `<img src="/img/${i}a.png"><img src="/img/${i}b.png"><link rel="stylesheet" href="/shared.css">`), 'text/html'));
    routes.set(`/img/${i}a.png`, slow(`png ${i}a`, 'image/png'));
    routes.set(`/img/${i}b.png`, slow(`png ${i}b`, 'image/png'));
  }
  routes.set('/shared.css', slow('p { color: red }', 'text/css'));
  const site = await startSite(routes);
  t.after(() => site.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const warc = join(dir, 'a.warc.gz');
  const args = ['--delay', '0', '--page-requisites', '--warc', warc, `${site.origin}/p0.html`, pages, '1'];
  await crawlKilledAfter(args, 4, 'SIGINT');
  const asked = site.paths().filter((p) => p.startsWith('/img/'));
  assert.ok(asked.length > 0 && asked.length < 2 * PAGES, `the first run fetched some of the requisites (${asked.length})`);
  const r = await crawl(['--resume', ...args]);
  assert.equal(r.code, 0, r.stderr);
  const all = site.paths();
  // Requisites only: pages the window fetched ahead and did not save before the stop are asked again, as without the flag.
  for (const p of new Set(all.filter((x) => x.startsWith('/img/') || x === '/shared.css'))) assert.equal(all.filter((x) => x === p).length, 1, `${p} asked once over both runs`);
  const archived = responseUris(await checkArchive([warc])).map((u) => u.slice(site.origin.length));
  for (let i = 0; i < PAGES; i++) for (const s of ['a', 'b']) assert.equal(archived.filter((u) => u === `/img/${i}${s}.png`).length, 1, `/img/${i}${s}.png archived once`);
  assert.equal(archived.filter((u) => u === '/shared.css').length, 1);
});
