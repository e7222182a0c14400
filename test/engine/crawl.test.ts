/**
 * The private crawl loop (`Crawl`) in process, over the memory frontier, with
 * the real HTTP client, politeness and polite fetcher against loopback sites
 * (test/helpers/site-server.ts): the events of a small site in order,
 * redirects, robots.txt, the page cap, the stop signal, and the same events
 * whatever the concurrency. No program is spawned.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpUrl } from '../../src/url/http-url.js';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';

async function site(t: import('node:test').TestContext, routes: Record<string, Route>, host?: string): Promise<SiteServer> {
  const s = await startSite(routes, host);
  t.after(() => s.close());
  return s;
}

const robotsTxt = (text: string): Route => ({ headers: { 'content-type': 'text/plain' }, body: text });
const redirect = (location: string, status = 302): Route => ({ status, headers: { location } });
/** Lines with the site's origin taken out. */
const local = (s: SiteServer, lines: string[]): string[] => lines.map((l) => l.replaceAll(s.origin, ''));

test('a small site: pages breadth first, each answer then its scan, every link classified in document order', async (t) => {
  const s = await site(t, {
    '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\n'),
    '/': { body: page('home', ['/a.html', '/b.html', 'http://elsewhere.example/x.html', '/private/p.html', 'mailto:someone@example.com', 'a.html#again']) },
    '/a.html': { body: page('a', ['/c.html', '/']) },
    '/b.html': { body: page('b', ['/c.html']) },
    '/c.html': { body: page('c', ['/d.html']) },
  });
  const r = await runCrawl({ seed: `${s.origin}/`, maxDepth: 2 });
  assert.deepEqual(local(s, r.events), [
    'robots /robots.txt file group=* rules=1 delay=-',
    'response 0 / 200',
    'scanning 0 /',
    'link 0 /a.html follow',
    'link 0 /b.html follow',
    'link 0 http://elsewhere.example/x.html external',
    'link 0 /private/p.html robots',
    'link 0 raw:mailto:someone@example.com invalid ERR_UNSUPPORTED_SCHEME',
    'link 0 /a.html duplicate',
    'response 1 /a.html 200',
    'scanning 1 /a.html',
    'link 1 /c.html follow',
    'link 1 / duplicate',
    'response 1 /b.html 200',
    'scanning 1 /b.html',
    'link 1 /c.html duplicate',
    'response 2 /c.html 200', // at the depth limit: fetched, not scanned
  ]);
  assert.deepEqual(s.paths(), ['/robots.txt', '/', '/a.html', '/b.html', '/c.html'], 'nothing disallowed, external or past the depth limit is requested');
  assert.deepEqual(r.summary, { pages: 4, stoppedBy: 'done' });
  assert.deepEqual(r.failures, []);
});

test('redirects are followed in the same step, each hop a request; loops, long chains and unusable Locations end the visit', async (t) => {
  const s = await site(t, {
    '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\n'),
    '/': { body: page('home', ['/moved', '/loop1', '/chain0', '/bad', '/away', '/to-private']) },
    '/moved': redirect('/target.html', 301),
    '/target.html': { body: page('target', ['/moved', '/target.html']) },
    '/loop1': redirect('/loop2'),
    '/loop2': redirect('/loop1', 307),
    '/chain0': redirect('/chain1'),
    '/chain1': redirect('/chain2'),
    '/chain2': redirect('/chain3'),
    '/chain3': { body: page('never') },
    '/bad': redirect('ftp://127.0.0.1/file', 301),
    '/away': redirect('http://elsewhere.example/'),
    '/to-private': redirect('/private/x'),
  });
  const r = await runCrawl({ seed: `${s.origin}/`, maxDepth: 2, maxRedirects: 2 });
  assert.deepEqual(local(s, r.events).slice(9), [
    'response 1 /moved 301',
    'redirect 1 /moved -> /target.html follow',
    'response 1 /target.html 200',
    'scanning 1 /target.html',
    'link 1 /moved duplicate',
    'link 1 /target.html duplicate', // a followed target is seen
    'response 1 /loop1 302',
    'redirect 1 /loop1 -> /loop2 follow',
    'response 1 /loop2 307',
    'redirect 1 /loop2 -> /loop1 duplicate',
    'response 1 /chain0 302',
    'redirect 1 /chain0 -> /chain1 follow',
    'response 1 /chain1 302',
    'redirect 1 /chain1 -> /chain2 follow',
    'response 1 /chain2 302',
    'redirect 1 /chain2 -> /chain3 invalid ERR_REDIRECT_LIMIT',
    'response 1 /bad 301',
    'redirect 1 /bad -> raw:ftp://127.0.0.1/file invalid ERR_UNSUPPORTED_SCHEME',
    'response 1 /away 302',
    'redirect 1 /away -> http://elsewhere.example/ external',
    'response 1 /to-private 302',
    'redirect 1 /to-private -> /private/x robots',
  ]);
  assert.deepEqual(local(s, r.pages), ['/ => /', '/moved => /target.html'], 'the program sees the answered URL under the entry that redirected');
  // A chain too long is told once, by its redirect event above (the CS50 log's Failed line comes from it): no failure besides.
  assert.deepEqual(r.failures, []);
  const requested = s.paths();
  assert.equal(requested.filter((p) => p === '/target.html').length, 1);
  for (const never of ['/chain3', '/private/x']) assert.ok(!requested.includes(never), `${never} is not requested`);
  assert.deepEqual(r.summary, { pages: 2, stoppedBy: 'done' }, 'only final answers count as pages');
});

test('robots.txt Crawl-delay raises the interval: each request reaches the server at least the delay after the previous one was sent', async (t) => {
  const s = await site(t, {
    '/robots.txt': robotsTxt('User-agent: *\nCrawl-delay: 0.08\n'),
    '/': { body: page('home', ['/a.html', '/b.html']) },
    '/a.html': { body: page('a') },
    '/b.html': { body: page('b') },
  });
  const r = await runCrawl({ seed: `${s.origin}/`, delayMs: 20 });
  assert.deepEqual(s.paths(), ['/robots.txt', '/', '/a.html', '/b.html']);
  assert.equal(r.politeness.intervalFor(s.origin), 80);
  // The server stamps a request when its handler runs, later than the write
  // by however long the shared event loop took: compared with the previous
  // request's arrival, a gap could look shorter than the crawler made it.
  // Compared with the previous request's send, it cannot.
  const sent = r.politeness.sent;
  const at = s.requests.map((q) => q.at);
  assert.equal(sent.length, at.length, 'one request start stamped per request');
  for (let i = 1; i < at.length; i++) {
    const after = (at[i] as number) - (sent[i - 1] as number);
    assert.ok(after >= 80, `request ${i} reached the server ${after.toFixed(1)} ms after request ${i - 1} was sent, under the 80 ms Crawl-delay`);
    const gap = (at[i] as number) - (at[i - 1] as number);
    assert.ok(gap < 1000, `requests ${i - 1} and ${i} reached the server ${gap.toFixed(1)} ms apart, far over the Crawl-delay`);
  }
});

test('a seed robots.txt disallows: onSeedDisallowed, no event but the rules learnt, nothing requested but robots.txt', async (t) => {
  const s = await site(t, { '/robots.txt': robotsTxt('User-agent: *\nDisallow: /\n'), '/': { body: page('home', ['/a.html']) } });
  const r = await runCrawl({ seed: `${s.origin}/` });
  assert.deepEqual(r.summary, { pages: 0, stoppedBy: 'seed-disallowed' });
  assert.deepEqual(r.seedDisallowed, [`${s.origin}/`]);
  assert.deepEqual(local(s, r.events), ['robots /robots.txt file group=* rules=1 delay=-']);
  assert.deepEqual(s.paths(), ['/robots.txt']);
});

test('maxPages stops the crawl after that many answers, and nothing past them is requested (concurrency 1 and 4)', async (t) => {
  for (const concurrency of [1, 4]) {
    const s = await site(t, {
      '/': { body: page('home', ['/a.html', '/b.html', '/c.html']) },
      '/a.html': { body: page('a', ['/d.html']) },
      '/b.html': { body: page('b') },
      '/c.html': { body: page('c') },
    });
    const r = await runCrawl({ seed: `${s.origin}/`, maxPages: 2, concurrency });
    assert.deepEqual(r.summary, { pages: 2, stoppedBy: 'max-pages' }, `concurrency ${concurrency}`);
    assert.deepEqual(s.paths(), ['/robots.txt', '/', '/a.html'], `concurrency ${concurrency}`);
    assert.deepEqual(local(s, r.pages), ['/ => /', '/a.html => /a.html']);
  }
});

test('the stop signal: aborted while a page is handled, the crawl stops with stoppedBy signal and requests nothing more', async (t) => {
  const s = await site(t, { '/': { body: page('home', ['/a.html']) }, '/a.html': { body: page('a') } });
  const stop = new AbortController();
  const r = await runCrawl({ seed: `${s.origin}/`, signal: stop.signal, onPage: () => stop.abort() });
  assert.equal(r.summary.stoppedBy, 'signal');
  assert.deepEqual(s.paths(), ['/robots.txt', '/']);
  assert.ok(!r.events.some((e) => e.startsWith('link ')), 'no link is classified after the signal');
});

test('the stop signal ends a politeness wait at once: the next request is never sent', async (t) => {
  const s = await site(t, { '/': { body: page('home', ['/a.html']) }, '/a.html': { body: page('a') } });
  const stop = new AbortController();
  let abortedAt = 0;
  const r = await runCrawl({
    seed: `${s.origin}/`,
    robots: false,
    delayMs: 3000,
    signal: stop.signal,
    onPage: () => void setTimeout(() => ((abortedAt = performance.now()), stop.abort()), 20),
  });
  const took = performance.now() - abortedAt;
  assert.equal(r.summary.stoppedBy, 'signal');
  assert.deepEqual(s.paths(), ['/']);
  assert.ok(abortedAt > 0 && took < 1000, `the crawl ended ${took.toFixed(0)} ms after the signal, waiting out the 3 s delay`);
});

/** Counts the requests in flight over the routes it makes, and their peak; `late` answers a route after `ms`. */
function inFlightCounter(): { late: (route: Route, ms: number) => Route; peak: () => number; reset: () => void } {
  let inFlight = 0;
  let peak = 0;
  const late = (route: Route, ms: number): Route => ({
    handle: (_req, res) => {
      peak = Math.max(peak, ++inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(route.status ?? 200, { 'content-type': 'text/html', ...route.headers });
        res.end(route.body ?? '');
      }, ms);
    },
  });
  return { late, peak: () => peak, reset: () => void (peak = 0) };
}

/** Four loopback hosts linking to each other; each answers after its own delay, so answers arrive out of order. */
async function fourHosts(t: import('node:test').TestContext): Promise<{ sites: SiteServer[]; peak: () => number; reset: () => void }> {
  const delays = [30, 0, 15, 5];
  const counter = inFlightCounter();
  const sites: SiteServer[] = [];
  for (let i = 1; i <= 4; i++) sites.push(await site(t, {}, `127.0.0.${i}`));
  const o = (n: number): string => (sites[n % 4] as SiteServer).origin;
  sites.forEach((s, i) => {
    const routes: Record<string, Route> = {
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\n'),
      '/': { body: page('home', [`${o(i + 1)}/`, `${o(i + 2)}/p1`, '/p2', `${o(i + 3)}/private/x`, '/r']) },
      '/p1': { body: page('p1', [`${o(i + 1)}/p2`, `${o(i)}/`]) },
      '/p2': { body: page('p2', [`${o(i + 2)}/p1`, `${o(i + 3)}/p2`]) },
      '/r': redirect(`${o(i + 1)}/p3`),
      '/p3': { body: page('p3', [`${o(i + 2)}/`]) },
    };
    for (const [path, route] of Object.entries(routes)) s.routes.set(path, counter.late(route, delays[i] as number));
  });
  return { sites, peak: counter.peak, reset: () => (counter.reset(), sites.forEach((s) => s.requests.splice(0))) };
}

test('concurrency 4 over four hosts gives the very events of concurrency 1, each URL requested once', async (t) => {
  const { sites, peak, reset } = await fourHosts(t);
  const origins = new Set(sites.map((s) => s.origin));
  const seed = `${sites[0]?.origin}/`;
  const inScope = (url: HttpUrl): boolean => origins.has(url.origin);
  const runs: Array<{ name: string; events: string[]; peak: number; requests: string[] }> = [];
  for (const [name, concurrency, scanAhead] of [['concurrency 1', 1, false], ['concurrency 4', 4, false], ['concurrency 4, scanning ahead', 4, true]] as const) {
    reset();
    const r = await runCrawl({ seed, inScope, maxDepth: 3, concurrency, scanAhead });
    assert.equal(r.summary.stoppedBy, 'done', name);
    runs.push({ name, events: r.events, peak: peak(), requests: sites.flatMap((s) => s.requests.map((q) => `${s.origin}${q.path}`)) });
  }
  const [one, ...others] = runs as [(typeof runs)[0], ...typeof runs];
  assert.equal(one.peak, 1, 'concurrency 1: one request at a time');
  assert.ok(one.events.filter((e) => e.startsWith('response ')).length >= 20, 'every host crawled');
  assert.ok(one.events.some((e) => e.endsWith(' robots')) && one.events.some((e) => e.startsWith('redirect ')));
  for (const run of others) {
    assert.ok(run.peak > 1, `${run.name}: requests overlapped (peak ${run.peak})`);
    assert.deepEqual(run.events, one.events, run.name);
    assert.equal(new Set(run.requests).size, run.requests.length, `${run.name}: no URL requested twice`);
    assert.deepEqual([...run.requests].sort(), [...one.requests].sort(), `${run.name}: the same requests`);
  }
});

test('fetchNext: the next queued page is requested while the page before it is handled, never past a redirect, one request at a time', async (t) => {
  const counter = inFlightCounter();
  const routes: Record<string, Route> = {
    '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\n'),
    '/': { body: page('home', ['/a.html', '/r', '/b.html', '/private/x']) },
    '/a.html': { body: page('a', ['/c.html']) },
    '/r': redirect('/t.html'),
    '/t.html': { body: page('t') },
    '/b.html': { body: page('b') },
    '/c.html': { body: page('c') },
  };
  const s = await site(t, Object.fromEntries(Object.entries(routes).map(([path, route]) => [path, counter.late(route, 5)])));
  const runs = [];
  for (const fetchNext of [false, true]) {
    s.requests.splice(0);
    counter.reset();
    // Each page as it reaches the program, with the requests written by then.
    const sentAt: string[] = [];
    const r = await runCrawl({ seed: `${s.origin}/`, maxDepth: 2, fetchNext, onPage: (p, politeness) => sentAt.push(`${p.url.key.replace(s.origin, '')} ${politeness.sent.length}`) });
    runs.push({ fetchNext, r, sentAt, paths: s.paths(), peak: counter.peak() });
  }
  const [before, after] = runs as [(typeof runs)[0], (typeof runs)[0]];
  assert.deepEqual(after.r.events, before.r.events, 'the same events');
  assert.deepEqual(after.paths, before.paths, 'the same requests in the same order');
  assert.deepEqual(after.paths, ['/robots.txt', '/', '/a.html', '/r', '/t.html', '/b.html', '/c.html']);
  // Requests: robots.txt, /, /a.html, /r, /t.html, /b.html, /c.html.
  assert.deepEqual(before.sentAt, ['/ 2', '/a.html 3', '/t.html 5', '/b.html 6', '/c.html 7'], 'without fetchNext each page is handled before the next request');
  // With it: /r is asked for while /a.html is handled; nothing while /r's redirect is followed; /c.html while /b.html is handled.
  assert.deepEqual(after.sentAt, ['/ 2', '/a.html 4', '/t.html 5', '/b.html 7', '/c.html 7']);
  assert.equal(before.peak, 1);
  assert.equal(after.peak, 1, 'one request at a time with fetchNext too');
});
