/**
 * A refresh through the one page path (src/engine/page-path.ts), in
 * process: the private crawl over a memory frontier, an earlier crawl given
 * as an EarlierPages of its own, a loopback site that answers conditional
 * requests. Which validators each request carries (at the server), what a
 * 304 to them makes of the page (its earlier copy staged, its links scanned
 * from that copy, the saved event and the state's record), and each way it
 * can go otherwise: a 304 that no conditional request asked for (heritrix3
 * issue #229), a 200 that answers a conditional request, an earlier copy
 * that cannot be read, a redirect to a page saved before, and the window
 * that fetches ahead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CrawlerError } from '../../src/errors.js';
import type { EarlierPage, EarlierPages } from '../../src/frontier/earlier-pages.js';
import type { CrawlEvent } from '../../src/engine/events.js';
import type { AnsweredPage } from '../../src/engine/page-policy.js';
import { MemoryFrontier } from '../../src/frontier/private-memory.js';
import type { FrontierEntry, PageCompletion, SavedPage } from '../../src/frontier/private-store.js';
import type { PageSink, PageToKeep } from '../../src/sink/page-sink.js';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { gzip, negotiated } from '../helpers/compressed-bodies.js';

const LM_OLD = 'Mon, 01 Jun 2026 10:00:00 GMT';
const LM_NEW = 'Tue, 02 Jun 2026 10:00:00 GMT';
const CAPTURE = { uri: 'x', date: '2026-06-01T10:00:00.000000Z', id: '<urn:uuid:1>', digest: 'sha1:EARLIER' };

/** A route that answers 304 (with `validators`) when the request's If-None-Match or If-Modified-Since still holds, else 200 with `body`. */
function conditional(body: string, validators: { etag?: string; lastModified?: string }): Route {
  const headers: Record<string, string> = {};
  if (validators.etag !== undefined) headers['etag'] = validators.etag;
  if (validators.lastModified !== undefined) headers['last-modified'] = validators.lastModified;
  return {
    handle(req: IncomingMessage, res: ServerResponse) {
      const inm = req.headers['if-none-match'];
      const ims = req.headers['if-modified-since'];
      const fresh = inm !== undefined ? inm === validators.etag : ims !== undefined && ims === validators.lastModified;
      if (fresh) {
        res.writeHead(304, headers);
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/html', ...headers });
        res.end(body);
      }
    },
  };
}

/** An earlier crawl: its pages by URL key, each with its copy's body (or why it cannot be read). */
function earlierCrawl(pages: Array<{ key: string; etag?: string; lastModified?: string; body: string | CrawlerError; capture?: boolean; wireBytes?: number }>): EarlierPages & { read: string[] } {
  const byKey = new Map<string, { page: EarlierPage; body: string | CrawlerError }>();
  pages.forEach((p, i) => {
    const wire = p.wireBytes === undefined ? {} : { wireBytes: p.wireBytes };
    byKey.set(p.key, { page: { id: i + 1, key: p.key, etag: p.etag, lastModified: p.lastModified, capture: p.capture === true ? { ...CAPTURE, uri: p.key } : undefined, ...wire }, body: p.body });
  });
  const read: string[] = [];
  return {
    read,
    page: (key) => byKey.get(key)?.page,
    body: async (p) => {
      read.push(p.key);
      const b = byKey.get(p.key)?.body;
      if (b === undefined) throw new Error(`no page ${p.key}`);
      if (b instanceof CrawlerError) throw b;
      return Buffer.from(b);
    },
  };
}

/** A sink that keeps each staged page's URL and body, once published. */
function keepingSink(): PageSink & { saved: Map<string, string> } {
  const saved = new Map<string, string>();
  return {
    saved,
    stage: (p: PageToKeep) => ({ publish: () => void saved.set(p.url.key, p.body.toString()), discard: () => undefined }),
  };
}

/** A memory frontier that keeps what each completion asks the state to keep of its page. */
class RecordingFrontier extends MemoryFrontier {
  readonly saved: SavedPage[] = [];
  override complete(entry: FrontierEntry, c: PageCompletion): boolean[] {
    if (c.saved !== undefined) this.saved.push(c.saved);
    return super.complete(entry, c);
  }
}

async function site(t: import('node:test').TestContext, routes: Record<string, Route>): Promise<SiteServer> {
  const s = await startSite(routes);
  t.after(() => s.close());
  return s;
}

/** The conditional header fields a request for `path` carried, as `name: value` lines (each request). */
function asked(s: SiteServer, path: string): string[][] {
  return s.requests.filter((r) => r.path === path).map((r) => ['if-none-match', 'if-modified-since'].flatMap((h) => (r.headers[h] === undefined ? [] : [`${h}: ${String(r.headers[h])}`])));
}

/** The refresh of each saved page, by path. */
function refreshOf(events: CrawlEvent[], origin: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of events) if (e.type === 'saved') out[e.url.key.slice(origin.length)] = e.refresh;
  return out;
}

const EARLIER_A = page('a, as it was', ['/from-earlier.html']);

async function refreshOne(t: import('node:test').TestContext, validators: { etag?: string; lastModified?: string }, concurrency = 1) {
  const s = await site(t, {
    '/': { body: page('home', ['/a.html']) },
    // Today's /a.html links elsewhere: the links that are followed show which copy was scanned.
    '/a.html': conditional(page('a, as it is', ['/from-today.html']), validators),
    '/from-earlier.html': { body: page('linked from the earlier copy') },
    '/from-today.html': { body: page('linked from today\'s copy') },
  });
  const earlier = earlierCrawl([{ key: `${s.origin}/a.html`, ...validators, body: EARLIER_A, capture: true }]);
  const sink = keepingSink();
  const frontier = new RecordingFrontier();
  const events: CrawlEvent[] = [];
  const policyAsked: AnsweredPage[] = [];
  const r = await runCrawl({ seed: `${s.origin}/`, robots: false, maxDepth: 2, earlier, sink, frontier, concurrency, fetchNext: true, scanAhead: true, onEvent: (e) => events.push(e), onPage: (p) => policyAsked.push(p) });
  return { s, r, sink, frontier, events, earlier, policyAsked };
}

test('a page saved with an ETag only is asked for with If-None-Match alone; its 304 saves the earlier copy, whose links are followed', async (t) => {
  const { s, sink, frontier, events, policyAsked } = await refreshOne(t, { etag: '"a1"' });
  assert.deepEqual(asked(s, '/a.html'), [['if-none-match: "a1"']]);
  assert.deepEqual(asked(s, '/'), [[]], 'a page the earlier crawl did not save is asked for plainly');
  assert.equal(sink.saved.get(`${s.origin}/a.html`), EARLIER_A, 'the page saved is the earlier copy, byte for byte');
  assert.ok(s.paths().includes('/from-earlier.html') && !s.paths().includes('/from-today.html'), `links are scanned from the earlier copy: ${s.paths().join(' ')}`);
  assert.deepEqual(refreshOf(events, s.origin), {
    '/': { state: 'new' },
    '/a.html': { state: 'unchanged', earlierId: 1, sparedBytes: Buffer.byteLength(EARLIER_A) },
    '/from-earlier.html': { state: 'new' },
  });
  const a = policyAsked.find((p) => p.url.path === '/a.html');
  assert.equal(a?.response.status, 304, 'the policy sees the 304');
  assert.equal(a?.unchanged?.id, 1, 'and is told the page is the earlier one, unchanged');
  assert.deepEqual(
    frontier.saved.find((p) => p.key === `${s.origin}/a.html`),
    { key: `${s.origin}/a.html`, etag: '"a1"', lastModified: undefined, capture: { ...CAPTURE, uri: `${s.origin}/a.html` }, earlierId: 1, sparedBytes: Buffer.byteLength(EARLIER_A) },
    'the state keeps its validators and its earlier capture, which holds the payload',
  );
});

test('a page saved with a Last-Modified only is asked for with If-Modified-Since alone, and its 304 saves the earlier copy', async (t) => {
  const { s, sink, events } = await refreshOne(t, { lastModified: LM_OLD });
  assert.deepEqual(asked(s, '/a.html'), [[`if-modified-since: ${LM_OLD}`]]);
  assert.equal(sink.saved.get(`${s.origin}/a.html`), EARLIER_A);
  assert.equal((refreshOf(events, s.origin)['/a.html'] as { state: string }).state, 'unchanged');
});

test('a page saved with both is asked for with both; the state keeps what the 304 sends (RFC 9110 §15.4.5), the rest from before', async (t) => {
  const s = await site(t, {
    '/': { body: page('home', ['/a.html']) },
    '/a.html': {
      handle: (req, res) => {
        // A 304 that names a fresher ETag (it may: the validators a 200 would carry) and no Last-Modified.
        res.writeHead(req.headers['if-none-match'] === '"a1"' ? 304 : 200, { etag: '"a2"' });
        res.end();
      },
    },
  });
  const earlier = earlierCrawl([{ key: `${s.origin}/a.html`, etag: '"a1"', lastModified: LM_OLD, body: EARLIER_A }]);
  const sink = keepingSink();
  const frontier = new RecordingFrontier();
  await runCrawl({ seed: `${s.origin}/`, robots: false, maxDepth: 1, earlier, sink, frontier });
  assert.deepEqual(asked(s, '/a.html'), [['if-none-match: "a1"', `if-modified-since: ${LM_OLD}`]]);
  assert.equal(sink.saved.get(`${s.origin}/a.html`), EARLIER_A);
  const a = frontier.saved.find((p) => p.key === `${s.origin}/a.html`);
  assert.equal(a?.etag, '"a2"');
  assert.equal(a?.lastModified, LM_OLD);
  assert.equal(a?.capture, undefined, 'an earlier crawl without an archive leaves the capture to the program');
});

test('the window that fetches ahead sends the same validators as the page path: the same pages and records at concurrency 4', async (t) => {
  const one = await refreshOne(t, { etag: '"a1"', lastModified: LM_OLD }, 1);
  const four = await refreshOne(t, { etag: '"a1"', lastModified: LM_OLD }, 4);
  for (const run of [one, four]) assert.deepEqual(asked(run.s, '/a.html'), [['if-none-match: "a1"', `if-modified-since: ${LM_OLD}`]]);
  assert.deepEqual(refreshOf(four.events, four.s.origin), refreshOf(one.events, one.s.origin));
  assert.deepEqual([...four.sink.saved.values()], [...one.sink.saved.values()]);
});

test('a 304 to a request that carried no validator is not the earlier page: the policy gets it as the 304 it is (heritrix3 #229)', async (t) => {
  const unasked: Route = { status: 304, headers: { etag: '"x"' } };
  const s = await site(t, {
    '/': { body: page('home', ['/never-saved.html', '/saved-without-validators.html']) },
    '/never-saved.html': unasked,
    '/saved-without-validators.html': unasked,
  });
  // The second was saved by the earlier crawl, but its answer had no ETag and no Last-Modified: nothing to ask with.
  const earlier = earlierCrawl([{ key: `${s.origin}/saved-without-validators.html`, body: page('earlier') }]);
  const sink = keepingSink();
  const policyAsked: AnsweredPage[] = [];
  const events: CrawlEvent[] = [];
  await runCrawl({ seed: `${s.origin}/`, robots: false, maxDepth: 1, earlier, sink, onPage: (p) => policyAsked.push(p), onEvent: (e) => events.push(e) });
  assert.deepEqual(asked(s, '/never-saved.html'), [[]]);
  assert.deepEqual(asked(s, '/saved-without-validators.html'), [[]]);
  for (const path of ['/never-saved.html', '/saved-without-validators.html']) {
    const p = policyAsked.find((a) => a.url.path === path);
    assert.equal(p?.response.status, 304, path);
    assert.equal(p?.unchanged, undefined, `${path}: not an unchanged page`);
    assert.equal(sink.saved.has(`${s.origin}${path}`), false, `${path}: nothing saved`);
  }
  assert.deepEqual(earlier.read, [], 'no earlier copy was read');
  assert.deepEqual(Object.keys(refreshOf(events, s.origin)), ['/']);
});

test('a 200 that answers a conditional request is the page as it is now: saved from the network, changed, its new validators kept', async (t) => {
  const s = await site(t, {
    '/': { body: page('home', ['/a.html']) },
    '/a.html': conditional(page('a, as it is', ['/from-today.html']), { etag: '"a2"', lastModified: LM_NEW }),
    '/from-today.html': { body: page('today') },
  });
  const earlier = earlierCrawl([{ key: `${s.origin}/a.html`, etag: '"a1"', lastModified: LM_OLD, body: EARLIER_A, capture: true }]);
  const sink = keepingSink();
  const frontier = new RecordingFrontier();
  const events: CrawlEvent[] = [];
  await runCrawl({ seed: `${s.origin}/`, robots: false, maxDepth: 2, earlier, sink, frontier, onEvent: (e) => events.push(e) });
  assert.deepEqual(asked(s, '/a.html'), [['if-none-match: "a1"', `if-modified-since: ${LM_OLD}`]]);
  assert.equal(sink.saved.get(`${s.origin}/a.html`), page('a, as it is', ['/from-today.html']));
  assert.ok(s.paths().includes('/from-today.html'));
  assert.deepEqual(refreshOf(events, s.origin)['/a.html'], { state: 'changed', earlierId: 1 });
  assert.deepEqual(earlier.read, [], 'no earlier copy was read');
  assert.deepEqual(frontier.saved.find((p) => p.key === `${s.origin}/a.html`), { key: `${s.origin}/a.html`, etag: '"a2"', lastModified: LM_NEW, capture: undefined, earlierId: 1, wireBytes: Buffer.byteLength(page('a, as it is', ['/from-today.html'])) });
});

test('a 304 whose earlier copy cannot be read fails that page with the reason, and the crawl goes on', async (t) => {
  const s = await site(t, {
    '/': { body: page('home', ['/a.html', '/b.html']) },
    '/a.html': conditional(page('a'), { etag: '"a1"' }),
    '/b.html': { body: page('b') },
  });
  const gone = new CrawlerError('ERR_EARLIER_CRAWL', 'the earlier copy OLD/1 cannot be read: ENOENT');
  const earlier = earlierCrawl([{ key: `${s.origin}/a.html`, etag: '"a1"', body: gone }]);
  const sink = keepingSink();
  const r = await runCrawl({ seed: `${s.origin}/`, robots: false, maxDepth: 1, earlier, sink });
  assert.deepEqual(r.failures, [{ entry: `${s.origin}/a.html`, url: `${s.origin}/a.html`, code: 'ERR_EARLIER_CRAWL' }]);
  assert.equal(sink.saved.has(`${s.origin}/a.html`), false);
  assert.ok(sink.saved.has(`${s.origin}/b.html`), 'the next page is saved');
});

test('a redirect to a page the earlier crawl saved: the target is asked for with its validators and saved from its copy under its URL', async (t) => {
  const s = await site(t, {
    '/': { body: page('home', ['/old.html']) },
    '/old.html': { status: 301, headers: { location: '/new.html' } },
    '/new.html': conditional(page('new, today'), { etag: '"n1"' }),
  });
  const earlier = earlierCrawl([{ key: `${s.origin}/new.html`, etag: '"n1"', body: page('new, as it was') }]);
  const sink = keepingSink();
  await runCrawl({ seed: `${s.origin}/`, robots: false, maxDepth: 1, earlier, sink });
  assert.deepEqual(asked(s, '/old.html'), [[]]);
  assert.deepEqual(asked(s, '/new.html'), [['if-none-match: "n1"']]);
  assert.equal(sink.saved.get(`${s.origin}/new.html`), page('new, as it was'));
});

test('without an earlier crawl nothing is conditional: every saved page is recorded with its validators, no refresh is told', async (t) => {
  const s = await site(t, {
    '/': { body: page('home', ['/a.html']) },
    '/a.html': conditional(page('a'), { etag: '"a1"', lastModified: LM_OLD }),
  });
  const frontier = new RecordingFrontier();
  const events: CrawlEvent[] = [];
  await runCrawl({ seed: `${s.origin}/`, robots: false, maxDepth: 1, frontier, onEvent: (e) => events.push(e) });
  assert.deepEqual(asked(s, '/a.html'), [[]]);
  assert.deepEqual(refreshOf(events, s.origin), { '/': undefined, '/a.html': undefined });
  assert.deepEqual(frontier.saved.find((p) => p.key === `${s.origin}/a.html`), { key: `${s.origin}/a.html`, etag: '"a1"', lastModified: LM_OLD, capture: undefined, wireBytes: Buffer.byteLength(page('a')) });
});

test('--compressed: a page is recorded with its body as it travelled, and a 304 spares the earlier answer as it travelled, not its decoded copy', async (t) => {
  const today = page('a, as it is', ['/from-today.html']);
  const s = await site(t, {
    '/': { body: page('home', ['/a.html', '/b.html']) },
    '/a.html': conditional(today, { etag: '"a1"' }),
    '/b.html': negotiated(page('b, compressed'), 'gzip'),
  });
  // The earlier crawl got a.html gzipped: 40 bytes travelled for its decoded copy of EARLIER_A.
  const earlier = earlierCrawl([{ key: `${s.origin}/a.html`, etag: '"a1"', body: EARLIER_A, capture: true, wireBytes: 40 }]);
  const frontier = new RecordingFrontier();
  const events: CrawlEvent[] = [];
  await runCrawl({ seed: `${s.origin}/`, robots: false, maxDepth: 1, earlier, frontier, compressed: true, onEvent: (e) => events.push(e) });
  assert.deepEqual(refreshOf(events, s.origin)['/a.html'], { state: 'unchanged', earlierId: 1, sparedBytes: 40 });
  const saved = (path: string): SavedPage | undefined => frontier.saved.find((p) => p.key === `${s.origin}${path}`);
  assert.equal(saved('/a.html')?.wireBytes, 40, 'an unchanged page keeps the earlier answer\'s wire size, for the next refresh');
  assert.equal(saved('/b.html')?.wireBytes, gzip(page('b, compressed')).length, 'a gzipped answer is recorded at its gzip size');
  assert.equal(saved('/')?.wireBytes, Buffer.byteLength(page('home', ['/a.html', '/b.html'])), 'a plain answer at its own size');
});
