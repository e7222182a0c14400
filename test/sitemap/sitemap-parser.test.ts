/**
 * SitemapParser against the sitemaps.org protocol (0.9): the two document
 * kinds, namespaces, entities, the per-file limits, and what stops it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SitemapParser, type SitemapStop } from '../../src/sitemap/sitemap-parser.js';
import { SITEMAP_NS, sitemapIndex, urlset } from './sitemap-fixtures.js';

interface Parsed {
  locs: string[];
  kind: string | undefined;
  stop: SitemapStop | undefined;
  bytes: number;
}

const BIG = { maxUrls: 50_000, maxBytes: 52_428_800 };

/** Parses `doc` fed in `chunks` pieces (or at the given byte offsets). */
function parse(doc: string | Buffer, limits = BIG, cuts: number[] = []): Parsed {
  const bytes = typeof doc === 'string' ? Buffer.from(doc, 'utf8') : doc;
  const locs: string[] = [];
  const p = new SitemapParser((loc) => locs.push(loc), limits);
  let at = 0;
  let going = true;
  for (const cut of [...cuts, bytes.length]) {
    going = p.feed(bytes.subarray(at, cut));
    at = cut;
    if (!going) break;
  }
  if (going) p.end();
  return { locs, kind: p.kind, stop: p.stop, bytes: p.bytes };
}

describe('the two kinds of document', () => {
  // sitemaps.org: "<urlset> Encapsulates the file ... <url> Parent tag for each URL entry ... <loc> URL of the page."
  test('a urlset gives each <url><loc>, in file order, trimmed; other children are ignored', () => {
    const doc = urlset(['http://a/1', '\n   http://a/2\t ', 'http://a/3']).replace('<lastmod>', '<changefreq>daily</changefreq><priority>0.5</priority><lastmod>');
    const r = parse(doc);
    assert.equal(r.kind, 'urlset');
    assert.deepEqual(r.locs, ['http://a/1', 'http://a/2', 'http://a/3']);
    assert.equal(r.stop, undefined);
    assert.equal(r.bytes, Buffer.byteLength(doc));
  });

  test('a sitemapindex gives each <sitemap><loc>', () => {
    const r = parse(sitemapIndex(['http://a/s1.xml.gz', 'http://a/s2.xml']));
    assert.equal(r.kind, 'sitemapindex');
    assert.deepEqual(r.locs, ['http://a/s1.xml.gz', 'http://a/s2.xml']);
  });

  test('only an entry of the document\'s own kind counts, and only its first <loc>', () => {
    const doc = `<urlset xmlns="${SITEMAP_NS}"><sitemap><loc>http://a/wrong-kind</loc></sitemap><loc>http://a/bare</loc>`
      + '<url><lastmod>x</lastmod><loc>http://a/1</loc><loc>http://a/second</loc></url><url><nested><loc>http://a/deep</loc></nested></url></urlset>';
    assert.deepEqual(parse(doc).locs, ['http://a/1']);
  });

  test('every split of the document, at every byte offset, gives the same locs', () => {
    const doc = Buffer.from(urlset(['http://a/é?x=1&amp;y=2', '<![CDATA[http://a/c?d=1&e]]>', 'http://a/&#x20AC;']), 'utf8');
    const whole = parse(doc);
    assert.deepEqual(whole.locs, ['http://a/é?x=1&y=2', 'http://a/c?d=1&e', 'http://a/€']);
    for (let cut = 1; cut < doc.length; cut++) assert.deepEqual(parse(doc, BIG, [cut]).locs, whole.locs, `split at ${cut}`);
  });

  test('a byte order mark is dropped; an invalid UTF-8 byte becomes U+FFFD', () => {
    const doc = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(urlset(['http://a/x']).replace('x</loc>', 'x\xff</loc>'), 'latin1')]);
    const r = parse(doc);
    assert.equal(r.stop, undefined);
    assert.deepEqual(r.locs, ['http://a/x\ufffd']);
  });
});

describe('namespaces', () => {
  test('the standard namespace, none, and the root\'s own namespace are all accepted', () => {
    assert.deepEqual(parse(urlset(['http://a/1'], '')).locs, ['http://a/1']);
    assert.deepEqual(parse(urlset(['http://a/1'], 'https://www.sitemaps.org/schemas/sitemap/0.9')).locs, ['http://a/1']);
    const prefixed = `<sm:urlset xmlns:sm="${SITEMAP_NS}"><sm:url><sm:loc>http://a/p</sm:loc></sm:url></sm:urlset>`;
    assert.deepEqual(parse(prefixed).locs, ['http://a/p']);
  });

  test('extension elements (image, video, xhtml) never pass for a page\'s <loc>', () => {
    const doc = `<urlset xmlns="${SITEMAP_NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">`
      + '<url><image:image><image:loc>http://a/pic.jpg</image:loc></image:image><loc>http://a/page</loc></url>'
      + '<url><image:loc>http://a/only-an-image.jpg</image:loc></url>'
      + '<url><loc xmlns="http://other/ns">http://a/other-ns</loc></url></urlset>';
    assert.deepEqual(parse(doc).locs, ['http://a/page']);
  });

  test('an undeclared prefix is malformed XML (namespaces are checked)', () => {
    const r = parse(`<urlset xmlns="${SITEMAP_NS}">\n<url><loc>http://a/1</loc><image:x/></url></urlset>`);
    assert.equal(r.stop?.reason, 'malformed');
    assert.deepEqual(r.locs, ['http://a/1']);
  });
});

describe('entities (never expanded beyond XML\'s own)', () => {
  test('the five predefined entities and character references are decoded', () => {
    const r = parse(urlset(['http://a/?a=1&amp;b=&lt;&gt;&quot;&apos;&#38;&#x26;']));
    assert.deepEqual(r.locs, ['http://a/?a=1&b=<>"\'&&']);
  });

  test('an HTML entity is an error, not text', () => {
    const r = parse(urlset(['http://a/&nbsp;x']));
    assert.equal(r.stop?.reason === 'malformed' && `${r.stop.message} @${r.stop.line}`, 'undefined entity @3');
    assert.deepEqual(r.locs, []);
  });

  test('a "billion laughs" DOCTYPE expands nothing, in bounded time and memory', () => {
    const decls = ['<!ENTITY lol0 "lol">'];
    for (let i = 1; i <= 20; i++) decls.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
    // Fully expanded, lol20 would be 3 × 10^20 characters.
    const doc = `<?xml version="1.0"?>\n<!DOCTYPE urlset [\n${decls.join('\n')}\n]>\n<urlset xmlns="${SITEMAP_NS}">\n<url><loc>http://a/first</loc></url>\n<url><loc>http://a/&lol20;</loc></url>\n<url><loc>http://a/after</loc></url>\n</urlset>`;
    const heap = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    const r = parse(doc);
    const ms = performance.now() - t0;
    assert.deepEqual(r.stop, { reason: 'malformed', message: 'undefined entity', line: 27, column: 26 });
    assert.deepEqual(r.locs, ['http://a/first'], 'what came before is kept; the entity and what follows are not');
    assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms`);
    assert.ok(process.memoryUsage().heapUsed - heap < 50 * 1024 * 1024, 'heap grew by 50 MiB or more');
  });

  test('a DOCTYPE whose entities are not used changes nothing; an external entity is never fetched', () => {
    const ok = `<!DOCTYPE urlset [<!ENTITY x "y">]><urlset xmlns="${SITEMAP_NS}"><url><loc>http://a/1</loc></url></urlset>`;
    assert.deepEqual(parse(ok).locs, ['http://a/1']);
    // No server listens at 127.0.0.1:9; a fetch would be an error other than "undefined entity", or a hang.
    const ext = `<!DOCTYPE urlset [<!ENTITY e SYSTEM "http://127.0.0.1:9/e">]><urlset><url><loc>&e;</loc></url></urlset>`;
    const r = parse(ext);
    assert.equal(r.stop?.reason === 'malformed' && r.stop.message, 'undefined entity');
  });
});

describe('what stops the parser', () => {
  // sitemaps.org: "Sitemap files have a limit of 50,000 URLs and 50MB (52,428,800 bytes)."
  test('one <loc> past maxUrls stops it; exactly maxUrls does not', () => {
    const locs = ['http://a/1', 'http://a/2', 'http://a/3', 'http://a/4'];
    const exact = parse(urlset(locs.slice(0, 3)), { maxUrls: 3, maxBytes: 1e6 });
    assert.equal(exact.stop, undefined);
    assert.equal(exact.locs.length, 3);
    const over = parse(urlset(locs), { maxUrls: 3, maxBytes: 1e6 });
    assert.deepEqual(over.stop, { reason: 'max-urls', limit: 3 });
    assert.deepEqual(over.locs, locs.slice(0, 3));
  });

  test('a byte past maxBytes stops it; exactly maxBytes does not; a <loc> cut by the limit is not taken', () => {
    const doc = urlset(['http://a/1', 'http://a/2']);
    const size = Buffer.byteLength(doc);
    assert.equal(parse(doc, { maxUrls: 10, maxBytes: size }).stop, undefined);
    const cutInSecond = doc.indexOf('http://a/2') + 5;
    const r = parse(doc, { maxUrls: 10, maxBytes: cutInSecond }, [3, cutInSecond - 2, cutInSecond + 4]);
    assert.deepEqual(r.stop, { reason: 'max-bytes', limit: cutInSecond });
    assert.equal(r.bytes, cutInSecond);
    assert.deepEqual(r.locs, ['http://a/1']);
  });

  test('malformed XML: the first error, with its line and column; the locs before it are handed over', () => {
    const r = parse(`<urlset xmlns="${SITEMAP_NS}">\n<url><loc>http://a/1</loc></url>\n<url><loc>http://a/2</lo></url>\n<url><loc>http://a/3</loc></url></urlset>`);
    assert.deepEqual(r.stop, { reason: 'malformed', message: 'unexpected close tag', line: 3, column: 25 });
    assert.deepEqual(r.locs, ['http://a/1']);
    // saxes reports a mismatched close tag as the close of the open element, then the error: that <loc> is not taken.
    assert.deepEqual(parse(`<urlset><url><loc>http://a/1</loc></url><url><loc>http://a/2</url></urlset>`).locs, ['http://a/1']);
    // An error just after a whole <loc> leaves it whole.
    const after = parse(`<urlset><url><loc>http://a/1</loc>&bogus;</url></urlset>`);
    assert.equal(after.stop?.reason === 'malformed' && after.stop.message, 'undefined entity');
    assert.deepEqual(after.locs, ['http://a/1']);
  });

  test('a document cut short, or empty, is malformed at its end', () => {
    const doc = urlset(['http://a/1', 'http://a/2']);
    const cut = parse(doc.slice(0, doc.indexOf('http://a/2') + 4));
    assert.equal(cut.stop?.reason, 'malformed');
    assert.deepEqual(cut.locs, ['http://a/1']);
    const empty = parse('');
    assert.equal(empty.stop?.reason === 'malformed' && empty.stop.line, 1);
  });

  test('a root that is not <urlset> or <sitemapindex> (an HTML page, a feed) stops at once', () => {
    assert.deepEqual(parse('<?xml version="1.0"?><rss version="2.0"><channel><link>http://a/</link></channel></rss>').stop, { reason: 'not-a-sitemap', root: 'rss' });
    assert.deepEqual(parse('<html><body><loc>http://a/</loc></body></html>').stop, { reason: 'not-a-sitemap', root: 'html' });
  });

  test('after a stop, feed refuses more bytes and end does nothing', () => {
    const locs: string[] = [];
    const p = new SitemapParser((l) => locs.push(l), { maxUrls: 1, maxBytes: 1e6 });
    assert.equal(p.feed(Buffer.from(urlset(['http://a/1', 'http://a/2']))), false);
    assert.equal(p.feed(Buffer.from('<url><loc>http://a/3</loc></url>')), false);
    p.end();
    assert.deepEqual(locs, ['http://a/1']);
    assert.equal(p.stop?.reason, 'max-urls');
  });
});
