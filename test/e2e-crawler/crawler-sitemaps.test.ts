/**
 * `crawler --sitemaps` end to end (spec-decisions.md, "Sitemaps"): the
 * seed's robots.txt names a gzip sitemap; its pages that no link reaches are
 * saved at depth 1, after the seed's own links; stderr says what each
 * sitemap gave. A malformed sitemap is one line on stderr and the crawl goes
 * on, exit 0. Without the flag, no sitemap is requested.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { crawl } from '../helpers/crawler-e2e.js';
import { parseLog } from '../helpers/cs50-log.js';
import { readPages } from '../helpers/page-files.js';
import { page, startSite, type Route } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('pc-sitemaps-');
const urlset = (locs: string[]): string => `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join('')}</urlset>`;

async function site(t: import('node:test').TestContext): Promise<{ origin: string; paths: () => string[] }> {
  const table = new Map<string, Route>();
  const s = await startSite(table);
  t.after(() => s.close());
  const o = s.origin;
  const routes: Record<string, Route> = {
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nSitemap: ${o}/pages.xml.gz\nSitemap: ${o}/broken.xml\n` },
    '/': { body: page('home', ['/a.html']) },
    '/a.html': { body: page('a') },
    '/hidden.html': { body: page('hidden', ['/deeper.html']) },
    '/deeper.html': { body: page('deeper') },
    '/pages.xml.gz': { headers: { 'content-type': 'application/gzip' }, body: gzipSync(urlset([`${o}/a.html`, `${o}/hidden.html`])) },
    '/broken.xml': { headers: { 'content-type': 'application/xml' }, body: '<urlset><url><loc>oops</urlset>' },
  };
  for (const [p, r] of Object.entries(routes)) table.set(p, r);
  return { origin: o, paths: () => s.paths() };
}

test('--sitemaps: a page only the sitemap names is saved at depth 1 after the seed\'s links; stderr tells each sitemap; a broken one fails alone', async (t) => {
  const s = await site(t);
  const dir = dirs.temp();
  const r = await crawl(['--delay', '0', '--sitemaps', `${s.origin}/`, dir, '2']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    readPages(dir).map((p) => `${p.id} ${p.depth} ${p.url.slice(s.origin.length)}`),
    ['1 0 /', '2 1 /a.html', '3 1 /hidden.html', '4 2 /deeper.html'],
  );
  const fetched = parseLog(r.stdout).filter((l) => l.word === 'Fetched').map((l) => l.url.slice(s.origin.length));
  assert.deepEqual(fetched, ['/', '/a.html', '/hidden.html', '/deeper.html']);
  assert.match(r.stderr, new RegExp(`^crawler: sitemap ${s.origin}/pages\\.xml\\.gz: 2 URLs listed, 1 queued; 1 already known$`, 'm'));
  assert.match(r.stderr, new RegExp(`^crawler: sitemap ${s.origin}/broken\\.xml: .*line`, 'm'));
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
});

test('without --sitemaps no sitemap is requested', async (t) => {
  const s = await site(t);
  const dir = dirs.temp();
  const r = await crawl(['--delay', '0', `${s.origin}/`, dir, '2']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readPages(dir).map((p) => p.url.slice(s.origin.length)), ['/', '/a.html']);
  assert.ok(!s.paths().some((p) => p.includes('.xml')), s.paths().join(' '));
});

test('--sitemaps at maxDepth 0: stderr says the sitemaps are not read, and none is requested', async (t) => {
  const s = await site(t);
  const dir = dirs.temp();
  const r = await crawl(['--delay', '0', '--sitemaps', `${s.origin}/`, dir, '0']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^crawler: --sitemaps: maxDepth 0 crawls the seeds only; sitemaps are not read$/m);
  assert.deepEqual(readPages(dir).map((p) => p.url.slice(s.origin.length)), ['/']);
  assert.ok(!s.paths().some((p) => p.includes('.xml')), s.paths().join(' '));
});
