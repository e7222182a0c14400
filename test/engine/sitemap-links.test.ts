/**
 * spec-decisions.md, "Sitemaps (--sitemaps)": once the seed's page is in,
 * the sitemaps its robots.txt names (else /sitemap.xml) are read, index
 * files one level, gzip too; their URLs in scope and allowed by robots.txt
 * enter at depth 1, after the seed's own links, in file order. Sitemap
 * requests are polite requests like any other, robots.txt applies to them,
 * and a malformed sitemap fails alone. In process, through the private crawl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';

const urlset = (locs: string[]): string => `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${locs.map((l) => `<url><loc>${l}</loc></url>`).join('\n')}\n</urlset>\n`;
const index = (locs: string[]): string => `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${locs.map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join('\n')}\n</sitemapindex>\n`;
const xml = (body: string | Buffer, type = 'application/xml'): Route => ({ headers: { 'content-type': type }, body });

/** A site whose routes name its own origin (known once it listens). */
async function site(t: import('node:test').TestContext, routes: (origin: string) => Record<string, Route>): Promise<SiteServer> {
  const table = new Map<string, Route>();
  const s = await startSite(table);
  for (const [path, route] of Object.entries(routes(s.origin))) table.set(path, route);
  t.after(() => s.close());
  return s;
}

test('an index with a plain and a gzip sitemap: its URLs in scope, not seen and allowed are queued at depth 1 after the seed\'s links, in file order', async (t) => {
  const s = await site(t, (o) => ({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nDisallow: /private\nSitemap: ${o}/sm-index.xml\n` },
    '/': { body: page('home', ['/a.html']) },
    '/sm-index.xml': xml(index([`${o}/sm-1.xml`, `${o}/sm-2.xml.gz`])),
    '/sm-1.xml': xml(urlset([`${o}/a.html`, `${o}/b.html`, `${o}/private/p.html`, 'http://elsewhere.example/x.html', `${o}/c.html`])),
    '/sm-2.xml.gz': xml(gzipSync(urlset([`${o}/d.html`, `${o}/b.html`])), 'application/gzip'),
    '/a.html': { body: page('a') },
    '/b.html': { body: page('b') },
    '/c.html': { body: page('c') },
    '/d.html': { body: page('d', ['/e.html']) },
    '/e.html': { body: page('e') },
  }));
  const r = await runCrawl({ seed: `${s.origin}/`, sitemaps: true, maxDepth: 2 });
  const local = (x: string): string => x.replaceAll(s.origin, '');
  assert.deepEqual(r.pages.map((p) => local(p.split(' => ')[1] as string)), ['/', '/a.html', '/b.html', '/c.html', '/d.html', '/e.html'], 'the seed\'s link, then the sitemaps\' URLs in order, then depth 2');
  assert.deepEqual(r.events.filter((e) => e.startsWith('sitemap ')).map(local), [
    'sitemap /sm-index.xml read found=0 queued=0',
    'sitemap /sm-1.xml read found=5 queued=2',
    'sitemap /sm-2.xml.gz read found=2 queued=1',
  ]);
  assert.ok(!s.paths().includes('/private/p.html'), 'robots.txt applies to sitemap URLs');
  assert.deepEqual(s.paths().filter((p) => p.startsWith('/sm')), ['/sm-index.xml', '/sm-1.xml', '/sm-2.xml.gz'], 'each sitemap requested once');
});

test('no Sitemap line: /sitemap.xml is read; none there (404): a note, and the crawl goes on', async (t) => {
  const s = await site(t, () => ({
    '/robots.txt': { status: 404 },
    '/': { body: page('home', ['/a.html']) },
    '/a.html': { body: page('a') },
  }));
  const r = await runCrawl({ seed: `${s.origin}/`, sitemaps: true, maxDepth: 1 });
  assert.equal(r.pages.length, 2);
  const sm = r.events.filter((e) => e.startsWith('sitemap '));
  assert.equal(sm.length, 1);
  assert.match(sm[0] as string, /^sitemap .*\/sitemap\.xml failed found=0 queued=0 \| sitemap .*\/sitemap\.xml: .*404/);
  assert.ok(s.paths().includes('/sitemap.xml'));
});

test('a malformed sitemap fails alone, with one line naming the reason; the URLs before the error are kept, the next file is read', async (t) => {
  const s = await site(t, (o) => ({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: `Sitemap: ${o}/bad.xml\nSitemap: ${o}/good.xml\n` },
    '/': { body: page('home') },
    '/bad.xml': xml(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/x.html</loc></url><url><loc>${o}/y.html</lo></url></urlset>`),
    '/good.xml': xml(urlset([`${o}/z.html`])),
    '/x.html': { body: page('x') },
    '/z.html': { body: page('z') },
  }));
  const r = await runCrawl({ seed: `${s.origin}/`, sitemaps: true, maxDepth: 1 });
  assert.deepEqual(r.pages.map((p) => (p.split(' => ')[1] as string).replace(s.origin, '')), ['/', '/x.html', '/z.html']);
  const bad = r.events.find((e) => e.startsWith(`sitemap ${s.origin}/bad.xml`));
  assert.match(bad ?? '', /^sitemap \S+ failed found=1 queued=1 \| sitemap \S+: .*line 1/);
});

test('an XML bomb does nothing: its entities are never expanded', async (t) => {
  const lol = '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>';
  const s = await site(t, (o) => ({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: `Sitemap: ${o}/bomb.xml\n` },
    '/': { body: page('home') },
    '/bomb.xml': xml(`<?xml version="1.0"?>\n${lol}\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/&lol3;</loc></url></urlset>`),
  }));
  const r = await runCrawl({ seed: `${s.origin}/`, sitemaps: true, maxDepth: 1 });
  assert.equal(r.pages.length, 1);
  assert.match(r.events.find((e) => e.startsWith('sitemap ')) ?? '', / failed found=0 queued=0 \| /);
});

test('without --sitemaps no sitemap is requested', async (t) => {
  const s = await site(t, (o) => ({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: `Sitemap: ${o}/sm.xml\n` },
    '/': { body: page('home') },
    '/sm.xml': xml(urlset([`${o}/b.html`])),
  }));
  const r = await runCrawl({ seed: `${s.origin}/`, maxDepth: 1 });
  assert.deepEqual(s.paths(), ['/robots.txt', '/']);
  assert.equal(r.pages.length, 1);
});
