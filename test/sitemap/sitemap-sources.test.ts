/**
 * sitemapSources: which sitemaps a crawl reads, from robots.txt's
 * `Sitemap:` lines (RobotsRules.sitemaps), else `/sitemap.xml`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RobotsRules } from '../../src/robots/rules.js';
import { sitemapSources } from '../../src/sitemap/sitemap-sources.js';

const hrefsOf = (sitemaps: readonly string[], origin = 'http://h.test:8080') => {
  const s = sitemapSources(sitemaps, origin);
  return { urls: s.urls.map((u) => u.href), notes: s.notes };
};

test('the Sitemap: lines of robots.txt, in its order, duplicates (as URLs) dropped', () => {
  const rules = RobotsRules.parse('Sitemap: http://h.test:8080/b.xml\nUser-agent: *\nDisallow: /x\nSitemap: https://cdn.test/a.xml.gz\nSitemap: HTTP://H.TEST:8080/b.xml#frag\n', 'FooBot');
  assert.deepEqual(hrefsOf(rules.sitemaps), { urls: ['http://h.test:8080/b.xml', 'https://cdn.test/a.xml.gz'], notes: [] });
});

test('no Sitemap: line (or no robots.txt): /sitemap.xml at the seed\'s origin', () => {
  assert.deepEqual(hrefsOf(RobotsRules.parse('User-agent: *\nDisallow:\n', 'FooBot').sitemaps), { urls: ['http://h.test:8080/sitemap.xml'], notes: [] });
  assert.deepEqual(hrefsOf(RobotsRules.allowAll().sitemaps, 'https://h.test/'), { urls: ['https://h.test/sitemap.xml'], notes: [] });
});

test('a value that is no http(s) URL is left out with a note; a relative one is read against robots.txt', () => {
  assert.deepEqual(hrefsOf(['ftp://h.test/s.xml', 'sitemap-1.xml', 'http://bad host/s.xml']), {
    urls: ['http://h.test:8080/sitemap-1.xml'],
    notes: [
      'robots.txt of http://h.test:8080: Sitemap "ftp://h.test/s.xml" is left out: unsupported scheme "ftp:" in ftp://h.test/s.xml (only http and https)',
      'robots.txt of http://h.test:8080: Sitemap "http://bad host/s.xml" is left out: invalid host "bad host" in http://bad host/s.xml',
    ],
  });
});

test('when every value is left out, /sitemap.xml is read after all', () => {
  const s = hrefsOf(['mailto:webmaster@h.test']);
  assert.deepEqual(s.urls, ['http://h.test:8080/sitemap.xml']);
  assert.equal(s.notes.length, 1);
});
