/**
 * readSitemaps and collectSitemaps (spec decision "Sitemaps"): what a crawl
 * gets from its sitemaps, in which order, and the one line a broken or
 * oversized sitemap costs. The fetcher is injected, as the crawl's polite
 * fetcher will be; the last test runs it over the real one against a
 * loopback server.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { CrawlerError } from '../../src/errors.js';
import { PoliteFetcher } from '../../src/engine/polite-fetch.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { HttpClient } from '../../src/http/client.js';
import { collectSitemaps, readSitemaps, type SitemapFetcher, type SitemapReaderOptions } from '../../src/sitemap/sitemap-reader.js';
import { SITEMAP_MAX_BYTES, SITEMAP_MAX_URLS } from '../../src/sitemap/sitemap-limits.js';
import { parseHttpUrl, type HttpUrl } from '../../src/url/http-url.js';
import { assertStartsApart } from '../helpers/arrivals.js';
import { startSite, type SiteServer } from '../helpers/site-server.js';
import { countedChunks, fakeSite, gzip, sitemapIndex, urlset, type Answer } from './sitemap-fixtures.js';

const H = 'http://site.test';
const url = (path: string): HttpUrl => parseHttpUrl(`${H}${path}`);
const hrefs = (urls: readonly HttpUrl[]): string[] => urls.map((u) => u.href);
const pages = (prefix: string, n: number, from = 1): string[] => Array.from({ length: n }, (_, i) => `${H}/${prefix}${i + from}`);

async function read(answers: Record<string, Answer>, sources: string[] = ['/sitemap.xml'], options: Omit<SitemapReaderOptions, 'fetch'> = {}) {
  const site = fakeSite(answers);
  const got = await collectSitemaps(sources.map(url), { ...options, fetch: site.fetch });
  return { ...got, asked: site.asked, pageHrefs: hrefs(got.pages) };
}

describe('reading', () => {
  test('a urlset: its page URLs in file order, the one request, no note', async () => {
    const r = await read({ [`${H}/sitemap.xml`]: { body: urlset(pages('p', 3)) } });
    assert.deepEqual(r.pageHrefs, pages('p', 3));
    assert.deepEqual(hrefs(r.requested), [`${H}/sitemap.xml`]);
    assert.deepEqual(r.notes, []);
    assert.equal(r.files[0]?.outcome, 'read');
    assert.equal(r.files[0]?.kind, 'urlset');
  });

  // sitemaps.org: "You can provide multiple Sitemap files, but each Sitemap file that you provide must have no more than 50,000 URLs".
  test('an index with two gzip children (a .xml.gz file, and one sent with Content-Encoding: gzip): index order, then file order', async () => {
    const r = await read({
      [`${H}/sitemap.xml`]: { body: sitemapIndex([`${H}/a.xml.gz`, `${H}/b.xml`]) },
      [`${H}/a.xml.gz`]: { body: gzip(urlset(pages('a', 3))), headers: [['Content-Type', 'application/gzip']] },
      [`${H}/b.xml`]: { body: gzip(urlset(pages('b', 2))), headers: [['Content-Type', 'application/xml'], ['Content-Encoding', 'gzip']] },
    });
    assert.deepEqual(r.asked, [`${H}/sitemap.xml`, `${H}/a.xml.gz`, `${H}/b.xml`]);
    assert.deepEqual(r.pageHrefs, [...pages('a', 3), ...pages('b', 2)]);
    assert.deepEqual(r.notes, []);
    assert.deepEqual(r.files.map((f) => [f.kind, f.index?.href]), [['sitemapindex', undefined], ['urlset', `${H}/sitemap.xml`], ['urlset', `${H}/sitemap.xml`]]);
  });

  test('a .xml.gz served with Content-Encoding: gzip (gzip twice) is read', async () => {
    const r = await read({ [`${H}/s.xml.gz`]: { body: gzip(gzip(urlset(pages('p', 2)))), headers: [['Content-Encoding', 'gzip']] } }, ['/s.xml.gz']);
    assert.deepEqual(r.pageHrefs, pages('p', 2));
  });

  test('several sources are read in order; a sitemap named twice is requested once; a page listed twice is given once', async () => {
    const r = await read(
      {
        [`${H}/one.xml`]: { body: urlset([`${H}/x`, `${H}/y`, `${H}/x`]) },
        [`${H}/index.xml`]: { body: sitemapIndex([`${H}/one.xml`, `${H}/two.xml`]) },
        [`${H}/two.xml`]: { body: urlset([`${H}/z`, `${H}/y`]) },
      },
      ['/one.xml', '/index.xml', '/one.xml'],
    );
    assert.deepEqual(r.asked, [`${H}/one.xml`, `${H}/index.xml`, `${H}/two.xml`]);
    assert.deepEqual(r.pageHrefs, [`${H}/x`, `${H}/y`, `${H}/z`]);
    assert.deepEqual(hrefs(r.files[0]?.pages ?? []), [`${H}/x`, `${H}/y`], 'a file gives a page once');
    assert.deepEqual(hrefs(r.files[2]?.pages ?? []), [`${H}/z`, `${H}/y`], 'each file keeps its own order');
  });

  test('the reader is lazy: a caller that stops after the first file requests nothing more', async () => {
    const site = fakeSite({
      [`${H}/sitemap.xml`]: { body: sitemapIndex([`${H}/a.xml`, `${H}/b.xml`]) },
      [`${H}/a.xml`]: { body: urlset(pages('a', 1)) },
    });
    for await (const file of readSitemaps([url('/sitemap.xml')], { fetch: site.fetch })) {
      assert.equal(file.kind, 'sitemapindex');
      break;
    }
    assert.deepEqual(site.asked, [`${H}/sitemap.xml`]);
  });
});

describe('one level of index', () => {
  // sitemaps.org: "A Sitemap index file can only specify Sitemaps that are found on the same site" (and no nested index).
  test('an index named by an index is requested, but what it names is not', async () => {
    const r = await read({
      [`${H}/sitemap.xml`]: { body: sitemapIndex([`${H}/inner-index.xml`, `${H}/a.xml`]) },
      [`${H}/inner-index.xml`]: { body: sitemapIndex([`${H}/deep.xml`]) },
      [`${H}/a.xml`]: { body: urlset(pages('a', 1)) },
      [`${H}/deep.xml`]: { body: urlset(pages('deep', 1)) },
    });
    assert.deepEqual(r.asked, [`${H}/sitemap.xml`, `${H}/inner-index.xml`, `${H}/a.xml`]);
    assert.deepEqual(r.pageHrefs, pages('a', 1));
    assert.deepEqual(r.notes, [`sitemap ${H}/inner-index.xml: a sitemap index named by the index ${H}/sitemap.xml: the 1 sitemap(s) it names are not read (indexes are followed one level)`]);
    assert.equal(r.files[1]?.outcome, 'not-followed');
    assert.deepEqual(hrefs(r.files[1]?.sitemaps ?? []), [`${H}/deep.xml`]);
  });

  test('at most maxFiles sitemap files are requested, and the user is told which were left', async () => {
    const children = Array.from({ length: 5 }, (_, i) => `${H}/c${i + 1}.xml`);
    const answers: Record<string, Answer> = { [`${H}/sitemap.xml`]: { body: sitemapIndex(children) } };
    for (const [i, c] of children.entries()) answers[c] = { body: urlset(pages(`c${i + 1}-`, 1)) };
    const r = await read(answers, ['/sitemap.xml', '/other.xml', '/third.xml'], { limits: { maxFiles: 3 } });
    assert.deepEqual(r.asked, [`${H}/sitemap.xml`, `${H}/c1.xml`, `${H}/c2.xml`]);
    assert.deepEqual(r.notes, [
      `sitemap ${H}/sitemap.xml: names 5 new sitemaps; reading the first 2 (at most 3 sitemap files a crawl)`,
      `sitemap ${H}/other.xml: not requested, nor the 1 sitemap(s) after it: at most 3 sitemap files a crawl`,
    ]);
  });
});

describe('failures stay with their file', () => {
  test('an HTTP 404 sitemap: one note, nothing else; the next source is read', async () => {
    const r = await read({ [`${H}/b.xml`]: { body: urlset(pages('b', 1)) } }, ['/sitemap.xml', '/b.xml']);
    assert.deepEqual(r.notes, [`sitemap ${H}/sitemap.xml: HTTP 404, nothing read`]);
    assert.deepEqual(r.pageHrefs, pages('b', 1));
    assert.deepEqual(r.files.map((f) => [f.status, f.outcome, f.pages.length]), [[404, 'failed', 0], [200, 'read', 1]]);
  });

  test('a fetch the crawl refuses (robots.txt) or that fails: one note with its reason', async () => {
    const r = await read({
      [`${H}/sitemap.xml`]: { error: new CrawlerError('ERR_HOST_REFUSED', `not requested: /sitemap.xml is disallowed by robots.txt (line 2: Disallow: /)`) },
      [`${H}/b.xml`]: { error: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) },
    }, ['/sitemap.xml', '/b.xml']);
    assert.deepEqual(r.notes, [
      `sitemap ${H}/sitemap.xml: not requested: /sitemap.xml is disallowed by robots.txt (line 2: Disallow: /)`,
      `sitemap ${H}/b.xml: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9`,
    ]);
    assert.deepEqual(r.files.map((f) => f.status), [undefined, undefined]);
  });

  test('bad XML: one line naming the URL, the line and the parser\'s reason; the URLs before it and the other files are kept', async () => {
    const bad = `<?xml version="1.0"?>\n<urlset>\n<url><loc>${H}/ok1</loc></url>\n<url><loc>${H}/ok2</loc></url>\n<url><loc>${H}/broken</lo></url>\n<url><loc>${H}/never</loc></url></urlset>`;
    const r = await read({
      [`${H}/sitemap.xml`]: { body: sitemapIndex([`${H}/bad.xml`, `${H}/good.xml`]) },
      [`${H}/bad.xml`]: { body: bad },
      [`${H}/good.xml`]: { body: urlset(pages('g', 2)) },
    });
    assert.deepEqual(r.notes, [`sitemap ${H}/bad.xml: malformed XML at line 5, column 38: unexpected close tag; kept the 2 URL(s) read before it`]);
    assert.deepEqual(r.pageHrefs, [`${H}/ok1`, `${H}/ok2`, ...pages('g', 2)]);
    assert.equal(r.files[1]?.outcome, 'failed');
  });

  test('an XML bomb ("billion laughs") expands nothing: the file fails alone, at once', async () => {
    const decls = ['<!ENTITY a0 "ha">', ...Array.from({ length: 30 }, (_, i) => `<!ENTITY a${i + 1} "${`&a${i};`.repeat(10)}">`)];
    const bomb = `<?xml version="1.0"?>\n<!DOCTYPE urlset [${decls.join('')}]>\n<urlset><url><loc>${H}/&a30;</loc></url></urlset>`;
    const t0 = performance.now();
    const r = await read({ [`${H}/sitemap.xml`]: { body: bomb } });
    assert.ok(performance.now() - t0 < 2000, 'read in bounded time');
    assert.equal(r.notes.length, 1);
    assert.match(r.notes[0] as string, /^sitemap http:\/\/site\.test\/sitemap\.xml: malformed XML at line 3, column \d+: undefined entity; kept the 0 URL\(s\) read before it$/);
    assert.deepEqual(r.pages, []);
  });

  test('a page that is not a sitemap (an HTML soft 404 at /sitemap.xml): one note', async () => {
    const r = await read({ [`${H}/sitemap.xml`]: { body: '<html><head><title>Oops</title></head><body><a href="/x">x</a></body></html>', headers: [['Content-Type', 'text/html']] } });
    assert.deepEqual(r.notes, [`sitemap ${H}/sitemap.xml: not a sitemap: its root element is <html>, not <urlset> or <sitemapindex>`]);
    assert.deepEqual(r.pages, []);
  });

  test('a truncated gzip stream: one note; the URLs decoded before the cut are kept', async () => {
    const zipped = gzip(urlset(pages('p', 3000)));
    const r = await read({ [`${H}/sitemap.xml.gz`]: { body: zipped.subarray(0, Math.floor(zipped.length / 2)) } }, ['/sitemap.xml.gz']);
    assert.equal(r.notes.length, 1);
    const m = /^sitemap http:\/\/site\.test\/sitemap\.xml\.gz: gzip data cut short: unexpected end of file; kept the ([\d,]+) URL\(s\) read before it$/.exec(r.notes[0] as string);
    assert.ok(m !== null, r.notes[0]);
    const kept = Number((m[1] as string).replace(/,/g, ''));
    assert.ok(kept > 0 && kept < 3000, `kept ${kept}`);
    assert.deepEqual(r.pageHrefs, pages('p', kept));
  });

  test('an unknown Content-Encoding: one note naming it', async () => {
    const r = await read({ [`${H}/sitemap.xml`]: { body: urlset(pages('p', 1)), headers: [['Content-Encoding', 'compress']] } });
    assert.deepEqual(r.notes, [`sitemap ${H}/sitemap.xml: Content-Encoding "compress" is not one we can decode (gzip, br)`]);
    assert.deepEqual(r.pages, []);
  });

  test('<loc>s that are not http(s) URLs, or no URLs at all, are skipped with one note; the others are kept', async () => {
    const r = await read({
      [`${H}/sitemap.xml`]: { body: urlset([`${H}/a`, 'ftp://site.test/file', 'not a url', `${H}/b`, '/relative/path', '', 'javascript:alert(1)', 'http://bad host/', `${H}/c?x=1&amp;y=2`]) },
    });
    assert.deepEqual(r.pageHrefs, [`${H}/a`, `${H}/b`, `${H}/c?x=1&y=2`]);
    assert.deepEqual(r.notes, [`sitemap ${H}/sitemap.xml: skipped 6 <loc>(s) that are no http(s) URL; the first: unsupported scheme "ftp:" in ftp://site.test/file (only http and https)`]);
  });

  test('a <loc> longer than maxUrlLength is skipped', async () => {
    const long = `${H}/${'x'.repeat(100)}`;
    const r = await read({ [`${H}/sitemap.xml`]: { body: urlset([long, `${H}/short`]) } }, undefined, { maxUrlLength: 60 });
    assert.deepEqual(r.pageHrefs, [`${H}/short`]);
    assert.match(r.notes[0] as string, /skipped 1 <loc>\(s\) that are no http\(s\) URL; the first: URL longer than 60 characters/);
  });
});

describe('the protocol\'s limits (sitemaps.org: 50,000 URLs, 50 MB uncompressed)', () => {
  test(`past ${SITEMAP_MAX_URLS.toLocaleString('en-US')} URLs the rest of the file is skipped, with a note; the next file is read`, async () => {
    const many = pages('p', SITEMAP_MAX_URLS + 5);
    const r = await read({
      [`${H}/sitemap.xml`]: { body: sitemapIndex([`${H}/big.xml`, `${H}/next.xml`]) },
      [`${H}/big.xml`]: { body: urlset(many) },
      [`${H}/next.xml`]: { body: urlset([`${H}/next`]) },
    });
    assert.equal(r.pages.length, SITEMAP_MAX_URLS + 1);
    assert.deepEqual(r.pageHrefs.slice(-2), [many[SITEMAP_MAX_URLS - 1], `${H}/next`]);
    assert.deepEqual(r.notes, [`sitemap ${H}/big.xml: more than 50,000 <loc> entries (the sitemaps.org limit): the rest of the file is skipped, 50,000 URL(s) kept`]);
    assert.equal(r.files[1]?.outcome, 'cut');
  });

  test('past 52,428,800 uncompressed bytes the rest of the file is skipped, with a note, and the body is read no further', async () => {
    const head = Buffer.from(`<?xml version="1.0"?>\n<urlset>\n<url><loc>${H}/first</loc></url>\n`);
    const blanks = Buffer.alloc(1 << 20, 0x20);
    const tail = Buffer.from(`<url><loc>${H}/beyond</loc></url>\n</urlset>\n`);
    // 60 MiB of blanks between the first URL and the last: a body of 63 chunks, pulled one by one.
    const body = countedChunks(blanks, 60, head);
    const bodyThenTail = (async function* () {
      yield* body.body;
      yield tail;
    })();
    const t0 = performance.now();
    const r = await read({ [`${H}/sitemap.xml`]: { body: bodyThenTail } });
    const ms = performance.now() - t0;
    assert.deepEqual(r.pageHrefs, [`${H}/first`]);
    assert.deepEqual(r.notes, [`sitemap ${H}/sitemap.xml: larger than 52,428,800 bytes uncompressed (the sitemaps.org limit): the rest of the file is skipped, 1 URL(s) kept`]);
    assert.equal(r.files[0]?.bytes, SITEMAP_MAX_BYTES);
    assert.equal(body.pulled(), Math.ceil((SITEMAP_MAX_BYTES - head.length) / blanks.length), 'not one chunk more than the limit needed');
    assert.equal(body.closed(), true, 'the body was let go');
    assert.ok(ms < 20_000, `took ${ms.toFixed(0)} ms`);
  });

  test('a gzip bomb (1 GiB of blanks in about 1 MB) stops at the 50 MB limit, quickly and in bounded memory', async () => {
    const head = gzipSync(Buffer.from(`<?xml version="1.0"?>\n<urlset>\n<url><loc>${H}/first</loc></url>\n`));
    const member = gzipSync(Buffer.alloc(1 << 20, 0x20));
    // One Buffer, as the HTTP client hands a body over: gzip members concatenated form one gzip file.
    const bomb = Buffer.concat([head, ...Array.from({ length: 1024 }, () => member), gzipSync(`<url><loc>${H}/beyond</loc></url></urlset>`)]);
    assert.ok(bomb.length < 2 * 1024 * 1024, `the bomb is ${bomb.length} bytes`);
    const rss = process.memoryUsage().rss;
    const t0 = performance.now();
    const r = await read({ [`${H}/sitemap.xml.gz`]: { body: bomb } }, ['/sitemap.xml.gz']);
    const ms = performance.now() - t0;
    assert.deepEqual(r.pageHrefs, [`${H}/first`]);
    assert.deepEqual(r.notes, [`sitemap ${H}/sitemap.xml.gz: larger than 52,428,800 bytes uncompressed (the sitemaps.org limit): the rest of the file is skipped, 1 URL(s) kept`]);
    assert.equal(r.files[0]?.bytes, SITEMAP_MAX_BYTES);
    // Parsing all of it would take some 20 s on an idle machine, and hold 1 GiB if it were gathered.
    assert.ok(ms < 20_000, `took ${ms.toFixed(0)} ms`);
    assert.ok(process.memoryUsage().rss - rss < 400 * 1024 * 1024, `the process grew by ${((process.memoryUsage().rss - rss) / 2 ** 20).toFixed(0)} MiB`);
  });
});

describe('through the crawl\'s own fetcher', () => {
  const servers: SiteServer[] = [];
  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  test('requests go through PoliteFetcher: the host\'s interval holds between sitemap requests, at the server', async () => {
    const DELAY = 150;
    let origin = '';
    const site = await startSite({
      '/sitemap.xml': { handle: (_req, res) => res.writeHead(200, { 'content-type': 'application/xml' }).end(sitemapIndex([`${origin}/a.xml.gz`, `${origin}/b.xml`])) },
      '/a.xml.gz': { handle: (_req, res) => res.writeHead(200, { 'content-type': 'application/x-gzip' }).end(gzip(urlset([`${origin}/a1`, `${origin}/a2`]))) },
      '/b.xml': { handle: (_req, res) => res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(gzip(urlset([`${origin}/b1`]))) },
    });
    servers.push(site);
    origin = site.origin;
    const client = new HttpClient({ userAgent: 'sitemap-test' });
    try {
      const polite = new PoliteFetcher(client, new Politeness({ delayMs: DELAY }));
      // The crawl's fetcher answers with a FetchResponse, which is a SitemapResponse.
      const fetch: SitemapFetcher = (u) => polite.fetch(u);
      const r = await collectSitemaps([parseHttpUrl(`${origin}/sitemap.xml`)], { fetch });
      assert.deepEqual(hrefs(r.pages), [`${origin}/a1`, `${origin}/a2`, `${origin}/b1`]);
      assert.deepEqual(r.notes, []);
    } finally {
      client.close();
    }
    assert.deepEqual(site.paths(), ['/sitemap.xml', '/a.xml.gz', '/b.xml']);
    assertStartsApart(site.requests, DELAY, 'sitemap requests', (i) => site.requests[i]?.path ?? '');
  });

  test('with a compressed client (--compressed), a body it decoded is not decoded again: br, gzip, and a .xml.gz sent with Content-Encoding: gzip', async () => {
    let origin = '';
    const site = await startSite({
      '/sitemap.xml': { handle: (_req, res) => res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'br' }).end(brotliCompressSync(sitemapIndex([`${origin}/a.xml`, `${origin}/b.xml.gz`]))) },
      '/a.xml': { handle: (_req, res) => res.writeHead(200, { 'content-type': 'application/xml', 'content-encoding': 'gzip' }).end(gzip(urlset([`${origin}/a1`]))) },
      // A gzip file, gzipped again on the way: the client removes the coding, the reader unpacks the file.
      '/b.xml.gz': { handle: (_req, res) => res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-encoding': 'gzip' }).end(gzip(gzip(urlset([`${origin}/b1`])))) },
    });
    servers.push(site);
    origin = site.origin;
    const client = new HttpClient({ userAgent: 'sitemap-test', compressed: true });
    try {
      const r = await collectSitemaps([parseHttpUrl(`${origin}/sitemap.xml`)], { fetch: (u) => client.fetch(u) });
      assert.deepEqual(r.notes, []);
      assert.deepEqual(hrefs(r.pages), [`${origin}/a1`, `${origin}/b1`]);
    } finally {
      client.close();
    }
    assert.match(String(site.requests[0]?.headers['accept-encoding']), /^gzip, br$/);
  });
});
