/**
 * `--compressed` end to end, both programs, against a site that compresses
 * as real servers do (only for a client that asks): the crawler's page
 * files hold the decoded HTML byte for byte, robots.txt is read decoded, a
 * bomb fails its page alone, and the archive keeps the compressed bytes
 * with their Content-Encoding (payload digest over them, WARC 1.1 §6.3.2)
 * while pages.jsonl has the decoded titles; KeywordHunter finds a keyword
 * only the decoded body holds. Without the flag, requests ask for identity.
 */
// run-tests: long (19 s: crawls with --compressed)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { waczPages } from '../archive/wacz-read.js';
import { assertStartsApart } from '../helpers/arrivals.js';
import { brotli, gzipZeros, negotiated, type Coding } from '../helpers/compressed-bodies.js';
import { parseLog } from '../helpers/cs50-log.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { assertOutput, FOUND, kh, PAGE } from '../helpers/kh-harness.js';
import { readPages } from '../helpers/page-files.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, fieldsOf, sha1b32 } from '../helpers/warc-check.js';

const { temp } = useTempDirs('compressed-');

const PAGES: Record<string, { coding: Coding; html: string }> = {
  '/': { coding: 'gzip', html: page('Home in gzip', ['/br.html', '/both.html', '/plain.html', '/secret.html', '/bomb.html'], '<p>GZIP-ZEBRA</p>') },
  '/br.html': { coding: 'br', html: page('Page in br', [], '<p>BROTLI-OKAPI</p>') },
  '/both.html': { coding: 'gzip, br', html: page('Page in gzip then br') },
  '/secret.html': { coding: 'gzip', html: page('Secret') },
};

/** The site, and what it sent for each path: the bytes and their coding (undefined: as is). */
async function site(t: import('node:test').TestContext): Promise<{ s: SiteServer; sent: Map<string, { bytes: Buffer; coding: Coding | undefined }> }> {
  const sent = new Map<string, { bytes: Buffer; coding: Coding | undefined }>();
  const routes: Record<string, Route> = {
    // robots.txt compressed too: only a decoded one keeps the crawler out of /secret.html.
    '/robots.txt': negotiated('User-agent: *\nDisallow: /secret.html\n', 'gzip', (bytes, coding) => sent.set('/robots.txt', { bytes, coding }), 'text/plain'),
    '/plain.html': { body: page('Plain page') },
    // 1 GiB of zeros in 1 MiB of gzip, sent to anyone (a server that ignores Accept-Encoding).
    '/bomb.html': { body: gzipZeros(1024), headers: { 'content-encoding': 'gzip' } },
  };
  for (const [path, p] of Object.entries(PAGES)) routes[path] = negotiated(p.html, p.coding, (bytes, coding) => sent.set(path, { bytes, coding }));
  const s = await startSite(routes);
  t.after(() => s.close());
  return { s, sent };
}

test('crawler --compressed: page files hold the decoded HTML, robots.txt is read decoded, a bomb fails alone; the archive keeps the bytes as sent', async (t) => {
  const { s, sent } = await site(t);
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const wacz = join(dir, 'crawl.wacz');
  const r = await crawl(['--delay', '0', '--compressed', '--wacz', wacz, `${s.origin}/`, pages, '1'], 60_000);
  assert.equal(r.code, 0, r.stderr);

  // Every request asked for gzip and br, and the site used both.
  assert.deepEqual(s.requests.map((q) => q.headers['accept-encoding']), s.requests.map(() => 'gzip, br'));
  assert.deepEqual([...sent.values()].map((v) => v.coding).sort(), ['br', 'gzip', 'gzip', 'gzip, br']);

  const saved = new Map(readPages(pages).map((p) => [p.url, p.body.toString('utf8')]));
  for (const path of ['/', '/br.html', '/both.html']) assert.equal(saved.get(`${s.origin}${path}`), PAGES[path]?.html, `${path}: the decoded HTML, byte for byte`);
  assert.equal(saved.get(`${s.origin}/plain.html`), page('Plain page'));
  assert.equal(saved.size, 4);

  assert.ok(!s.paths().includes('/secret.html'), 'robots.txt, sent gzipped, was obeyed');
  const log = parseLog(r.stdout);
  assert.ok(log.some((l) => l.word === 'IgnRobots' && l.url === `${s.origin}/secret.html`));
  const bomb = log.find((l) => l.word === 'Failed' && l.url === `${s.origin}/bomb.html`);
  assert.equal(bomb?.reason, '(body decoded from Content-Encoding gzip exceeds maxBodyBytes (10485760 bytes))');

  // The archive: each response as it came, compressed, with its Content-Encoding; the payload digest over those bytes.
  const records = await checkArchive([join(dir, 'crawl.warc.gz')]);
  for (const [path, { bytes, coding }] of sent) {
    const rec = records.find((x) => x.type === 'response' && x.headers.get('warc-target-uri') === `${s.origin}${path}`);
    assert.ok(rec !== undefined, `a response record for ${path}`);
    assert.deepEqual(rec.payload, bytes, `${path}: the payload as it was sent`);
    assert.equal(rec.headers.get('warc-payload-digest'), sha1b32(bytes));
    assert.deepEqual(fieldsOf(rec.block).filter(([n]) => n.toLowerCase() === 'content-encoding').map(([, v]) => v), [coding]);
  }
  // pages.jsonl: the saved pages with their titles, read from the decoded bodies.
  const listed = new Map((await waczPages(wacz)).map((p) => [p.url, p.title]));
  assert.deepEqual(listed, new Map([
    [`${s.origin}/`, 'Home in gzip'],
    [`${s.origin}/br.html`, 'Page in br'],
    [`${s.origin}/both.html`, 'Page in gzip then br'],
    [`${s.origin}/plain.html`, 'Plain page'],
  ]));
});

test('crawler without --compressed asks for identity, and the same site sends every page as is', async (t) => {
  const { s, sent } = await site(t);
  const pages = temp();
  const r = await crawl(['--delay', '0', `${s.origin}/`, pages, '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(s.requests.every((q) => q.headers['accept-encoding'] === 'identity'));
  assert.ok([...sent.values()].every((v) => v.coding === undefined));
  const saved = new Map(readPages(pages).map((p) => [p.url, p.body.toString('utf8')]));
  assert.equal(saved.get(`${s.origin}/br.html`), PAGES['/br.html']?.html);
});

test('crawler --compressed keeps its delay: request starts at least --delay apart at the server, robots.txt and the bomb included', async (t) => {
  const { s } = await site(t);
  const r = await crawl(['--delay', '0.25', '--compressed', `${s.origin}/`, temp(), '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(s.paths(), ['/robots.txt', '/', '/br.html', '/both.html', '/plain.html', '/bomb.html']);
  assertStartsApart(s.requests, 250, 'request starts', (i) => s.requests[i]?.path ?? '');
});

test('KeywordHunter --compressed finds a keyword that only the decoded br body holds, and saves the decoded page', async (t) => {
  const { s, sent } = await site(t);
  assert.ok(!brotli(PAGES['/br.html']?.html ?? '').includes('BROTLI-OKAPI'), 'the keyword is not in the bytes on the wire');
  const out = temp();
  const w = { host: s.host, port: s.port };
  assertOutput(await kh(['--compressed', `${s.origin}/br.html`, 'BROTLI-OKAPI', out]), [PAGE(w, '/br.html', 200), FOUND(w, '/br.html', '<p>BROTLI-OKAPI</p>')]);
  assert.equal(sent.get('/br.html')?.coding, 'br');
  assert.equal(readFileSync(join(out, 'br.html'), 'utf8'), PAGES['/br.html']?.html);
});

test('crawler --compressed --sitemaps: robots.txt (gzip) names a sitemap sent in br; the page only it names is saved, decoded', async (t) => {
  const table = new Map<string, Route>();
  const s = await startSite(table);
  t.after(() => s.close());
  const o = s.origin;
  const urlset = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/hidden.html</loc></url></urlset>`;
  table.set('/robots.txt', negotiated(`User-agent: *\nSitemap: ${o}/sitemap.xml\n`, 'gzip', undefined, 'text/plain'));
  table.set('/sitemap.xml', negotiated(urlset, 'br', undefined, 'application/xml'));
  table.set('/', negotiated(page('home'), 'gzip'));
  table.set('/hidden.html', negotiated(page('hidden', [], '<p>only the sitemap names me</p>'), 'br'));
  const dir = temp();
  const r = await crawl(['--delay', '0', '--compressed', '--sitemaps', `${o}/`, dir, '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readPages(dir).map((p) => [p.url, p.body.toString('utf8')]), [
    [`${o}/`, page('home')],
    [`${o}/hidden.html`, page('hidden', [], '<p>only the sitemap names me</p>')],
  ]);
  assert.match(r.stderr, new RegExp(`^crawler: sitemap ${o}/sitemap\\.xml: 1 URLs? listed, 1 queued$`, 'm'));
  assert.ok(s.requests.every((q) => q.headers['accept-encoding'] === 'gzip, br'));
});
