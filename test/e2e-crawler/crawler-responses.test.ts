/**
 * ./crawler end to end, what it does with each kind of response (spec
 * decisions "crawler": Non-HTML, Redirects, Order "a page that fails gets no
 * ID"): non-HTML links never requested, non-HTML responses not saved,
 * 404/500 logged as Failed while the crawl goes on, redirects followed up to
 * 5 hops while internal and saved under the final URL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl } from '../helpers/crawler-e2e.js';
import { cs50Line, parseLog, urlsWith } from '../helpers/cs50-log.js';
import { pageList, readPages } from '../helpers/page-files.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('crawler-e2e-');

let site: SiteServer;
let ext: SiteServer;
let O: string;

const redirect = (status: number, location: string): Route => ({ status, headers: { location }, body: '' });

/** The seed's links, in order. */
const SEED_LINKS = [
  'img.png',
  'doc.pdf',
  'files/a.ZIP',
  'files/b.zip?download=1',
  'png-typed.html',
  'plain.html',
  'notype.html',
  'missing.html',
  'error.html',
  'xhtml.html',
  'charset.html',
  'r301.html',
  'r302.html',
  'r307.html',
  'r308.html',
  'r-ext.html',
  'loop-a.html',
  'hop0.html',
  'five0.html',
  'later.html',
];

before(async () => {
  ext = await startSite({ '/x.html': { body: page('external') } }, '127.0.0.2');
  const routes = new Map<string, Route>();
  site = await startSite(routes);
  O = site.origin;
  routes.set('/r/index.html', { body: page('responses', SEED_LINKS) });
  routes.set('/r/img.png', { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47]) });
  routes.set('/r/doc.pdf', { headers: { 'content-type': 'application/pdf' }, body: '%PDF-1.4' });
  routes.set('/r/files/a.ZIP', { headers: { 'content-type': 'application/zip' }, body: 'PK' });
  routes.set('/r/files/b.zip?download=1', { headers: { 'content-type': 'application/zip' }, body: 'PK' });
  routes.set('/r/png-typed.html', { headers: { 'content-type': 'image/png' }, body: '<html><a href="from-png.html">x</a></html>' });
  routes.set('/r/plain.html', { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: '<a href="from-plain.html">x</a>' });
  routes.set('/r/notype.html', { handle: (_req, res) => res.writeHead(200).end(page('no content-type')) });
  routes.set('/r/missing.html', { status: 404, body: page('not found', ['from-404.html']) });
  routes.set('/r/error.html', { status: 500, body: page('server error', ['from-500.html']) });
  routes.set('/r/xhtml.html', { headers: { 'content-type': 'application/xhtml+xml' }, body: page('xhtml') });
  routes.set('/r/charset.html', { headers: { 'content-type': 'Text/HTML; charset=ISO-8859-1' }, body: page('charset') });
  for (const s of [301, 302, 307, 308]) {
    routes.set(`/r/r${s}.html`, redirect(s, s % 2 === 0 ? `${O}/r/t/${s}.html` : `t/${s}.html`));
    routes.set(`/r/t/${s}.html`, { body: page(`target of ${s}`) });
  }
  routes.set('/r/r-ext.html', redirect(302, `${ext.origin}/x.html`));
  routes.set('/r/loop-a.html', redirect(302, 'loop-b.html'));
  routes.set('/r/loop-b.html', redirect(302, 'loop-a.html'));
  for (let i = 0; i < 6; i++) routes.set(`/r/hop${i}.html`, redirect(302, `hop${i + 1}.html`));
  routes.set('/r/hop6.html', { body: page('six hops away') });
  for (let i = 0; i < 5; i++) routes.set(`/r/five${i}.html`, redirect(301, `five${i + 1}.html`));
  routes.set('/r/five5.html', { body: page('five hops away') });
  routes.set('/r/later.html', { body: page('later', ['r302.html', 't/307.html', 'five3.html', 'notype.html', 'missing.html']) });
});

after(async () => {
  await Promise.all([site.close(), ext.close()]);
});

describe('responses and redirects (one crawl at maxDepth 2)', () => {
  let stdout = '';
  let stderr = '';
  let code: number | null = null;
  let dir = '';
  const seed = (): string => `${O}/r/index.html`;
  const u = (p: string): string => `${O}/r/${p}`;

  before(async () => {
    dir = tempDir();
    const r = await crawl(['--delay', '0', seed(), dir, '2']);
    ({ stdout, stderr, code } = r);
  });

  test('the crawl runs to its end with exit 0 although some pages fail', () => {
    assert.equal(code, 0, stderr);
    parseLog(stdout); // every line in CS50 format
  });

  test('the exact pages saved: HTML (also without Content-Type, xhtml, with parameters), redirects under their final URL', () => {
    assert.deepEqual(pageList(dir), [
      `1 ${seed()} 0`,
      `2 ${u('notype.html')} 1`,
      `3 ${u('xhtml.html')} 1`,
      `4 ${u('charset.html')} 1`,
      `5 ${u('t/301.html')} 1`,
      `6 ${u('t/302.html')} 1`,
      `7 ${u('t/307.html')} 1`,
      `8 ${u('t/308.html')} 1`,
      `9 ${u('five5.html')} 1`,
      `10 ${u('later.html')} 1`,
    ]);
  });

  test('links ending in .png, .pdf, .ZIP, .zip?query are IgnExtrn and never requested', () => {
    const log = parseLog(stdout);
    for (const p of ['img.png', 'doc.pdf', 'files/a.ZIP', 'files/b.zip?download=1']) {
      assert.ok(log.some((l) => l.depth === 0 && l.word === 'IgnExtrn' && l.url === u(p)), `${p} IgnExtrn`);
      assert.ok(!site.paths().includes(`/r/${p}`), `${p} not requested`);
    }
  });

  test('Content-Type image/png and text/plain: Failed with the type, no ID, links not followed', () => {
    const lines = stdout.split('\n');
    assert.ok(lines.includes(cs50Line(1, 'Failed', u('png-typed.html'), '(not HTML: image/png)')), stdout);
    assert.ok(lines.includes(cs50Line(1, 'Failed', u('plain.html'), '(not HTML: text/plain; charset=utf-8)')), stdout);
    assert.ok(!site.paths().includes('/r/from-png.html') && !site.paths().includes('/r/from-plain.html'));
  });

  test('404 and 500: Failed with the status, no ID, their links not followed, the crawl goes on', () => {
    const lines = stdout.split('\n');
    assert.ok(lines.includes(cs50Line(1, 'Failed', u('missing.html'), '(HTTP 404)')), stdout);
    assert.ok(lines.includes(cs50Line(1, 'Failed', u('error.html'), '(HTTP 500)')), stdout);
    const failedUrls = urlsWith(parseLog(stdout), 'Failed');
    assert.ok(!readPages(dir).some((p) => failedUrls.includes(p.url)), 'no failed page has a file');
    assert.ok(!site.paths().includes('/r/from-404.html') && !site.paths().includes('/r/from-500.html'));
  });

  test('301/302/307/308 (relative and absolute Location): each hop requested once, page logged Fetched under the final URL', () => {
    const log = parseLog(stdout);
    for (const s of [301, 302, 307, 308]) {
      assert.equal(site.paths().filter((p) => p === `/r/r${s}.html`).length, 1, `r${s} requested once`);
      assert.equal(site.paths().filter((p) => p === `/r/t/${s}.html`).length, 1, `t/${s} requested once`);
      assert.ok(log.some((l) => l.word === 'Fetched' && l.depth === 1 && l.url === u(`t/${s}.html`)));
    }
  });

  test('both the redirecting and the final URL count as seen: later links to either are IgnDupl', () => {
    const lines = stdout.split('\n');
    for (const p of ['r302.html', 't/307.html', 'five3.html', 'notype.html', 'missing.html']) {
      assert.ok(lines.includes(cs50Line(1, 'IgnDupl', u(p))), `${p} IgnDupl on later.html`);
    }
  });

  test('a redirect to another host is not followed: Failed, the external server gets no request', () => {
    const line = parseLog(stdout).find((l) => l.word === 'Failed' && l.url === u('r-ext.html'));
    assert.ok(line !== undefined, stdout);
    assert.match(line.reason ?? '', new RegExp(`${ext.origin.replace(/\./g, '\\.')}/x\\.html`));
    assert.deepEqual(ext.paths(), []);
    assert.equal(ext.connections, 0);
  });

  test('a redirect loop ends: each URL of the loop requested once, logged Failed', () => {
    assert.equal(site.paths().filter((p) => p === '/r/loop-a.html').length, 1);
    assert.equal(site.paths().filter((p) => p === '/r/loop-b.html').length, 1);
    const failed = parseLog(stdout).filter((l) => l.word === 'Failed' && l.url.includes('/loop-'));
    assert.deepEqual(failed.map((l) => l.line), [cs50Line(1, 'Failed', u('loop-b.html'), `(redirects to ${u('loop-a.html')}: already seen)`)]);
  });

  test('5 hops are followed; a 6th redirect ends with Failed (more than 5 redirects) and its target is not requested', () => {
    for (let i = 0; i <= 5; i++) assert.ok(site.paths().includes(`/r/hop${i}.html`), `hop${i} requested`);
    assert.ok(!site.paths().includes('/r/hop6.html'), 'the 6th redirect target is not requested');
    const failed = parseLog(stdout).filter((l) => l.word === 'Failed' && /hop[0-9]\.html/.test(l.url));
    // One link, one outcome: the URL that redirected once too often, not the target never requested.
    assert.deepEqual(
      failed.map((l) => l.line),
      [cs50Line(1, 'Failed', u('hop5.html'), `(redirects to ${u('hop6.html')}: more than 5 redirects)`)],
    );
  });

  test('the log shows each page once: one outcome (Fetched or Failed) per requested link', () => {
    const log = parseLog(stdout).filter((l) => l.depth === 1 && (l.word === 'Fetched' || l.word === 'Failed'));
    const seen = new Set<string>();
    for (const l of log) {
      assert.ok(!seen.has(l.url), `one Fetched or Failed line for ${l.url}`);
      seen.add(l.url);
    }
    // 10 pages saved at depth 1..: 9 Fetched at depth 1; Failed: png, plain, 404, 500, external, loop, 6 hops.
    assert.equal(log.filter((l) => l.word === 'Fetched').length, 9);
    assert.equal(log.filter((l) => l.word === 'Failed').length, 7);
  });
});
