/**
 * The package entry (package.json "main"): a program can be built from the
 * public API alone. A crawl assembled only from src/index.ts's exports (the
 * HTTP client, politeness, robots.txt, the HTML extractor, the memory
 * frontier, the TSE page directory and a page policy of its own) crawls a
 * loopback site and saves its pages in breadth-first order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../src/index.js';
import { readPages } from './helpers/page-files.js';
import { page, startSite } from './helpers/site-server.js';
import { useTempDirs } from './helpers/temp-dirs.js';

const dirs = useTempDirs('pc-api-');

test('a crawl built from the public API alone saves a site breadth first, obeying robots.txt', async (t) => {
  const s = await startSite({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' },
    '/': { body: page('home', ['/a.html', '/private/x.html', '/b.html']) },
    '/a.html': { body: page('a', ['/c.html']) },
    '/b.html': { body: page('b') },
    '/c.html': { body: page('c') },
  });
  t.after(() => s.close());
  const dir = dirs.temp();
  const seed = api.parseHttpUrl(`${s.origin}/`);
  const client = new api.HttpClient({ userAgent: 'api-test' });
  t.after(() => client.close());
  const politeness = new api.Politeness({ delayMs: 0 });
  const fetcher = new api.PoliteFetcher(client, politeness);
  const resolve = (href: string, base: api.HttpUrl): api.HttpUrl => api.resolveHttpUrl(href, base);
  const robots = new api.RobotsPolicy({ userAgent: 'api-test', onFailure: api.CRAWLER_FAILURE_POLICY, fetch: fetcher.robotsFetcher(api.parseHttpUrl, resolve, 5) });
  const policy: api.PagePolicy = {
    resolveLink: resolve,
    inScope: api.sameOriginScope(seed),
    verdict: ({ response }) => (response.status === 200 ? { keep: true, scan: true } : { keep: false, reason: `HTTP ${response.status}` }),
    failureReason: (e) => e.message,
  };
  const events: string[] = [];
  const summary = await new api.Crawl({
    seed,
    seedDepth: 0,
    maxDepth: 2,
    maxRedirects: 5,
    maxPages: undefined,
    extractor: new api.HtmlLinkExtractor(),
    fetcher,
    politeness,
    loadRobots: (origin) => robots.rulesFor(origin),
    frontier: new api.MemoryFrontier(),
    policy,
    sink: new api.TsePageDirectory(dir),
    onEvent: (e) => void (e.type === 'saved' && events.push(`${e.id} ${e.url.path}`)),
  }).run();
  assert.deepEqual(summary, { pages: 4, stoppedBy: 'done' });
  assert.deepEqual(events, ['1 /', '2 /a.html', '3 /b.html', '4 /c.html']);
  assert.deepEqual(readPages(dir).map((p) => `${p.id} ${p.url.slice(s.origin.length)} ${p.depth}`), ['1 / 0', '2 /a.html 1', '3 /b.html 1', '4 /c.html 2']);
  assert.ok(!s.paths().includes('/private/x.html'), 'robots.txt obeyed');
});
