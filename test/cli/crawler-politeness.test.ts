/**
 * ./crawler end to end, politeness (spec decisions "Politeness means request
 * starts", "crawler": robots.txt, Delay): measured at the server, which
 * records the arrival of every request. robots.txt Disallow, Crawl-delay,
 * 404 (allow all), 500 (disallow all), --ignore-robots, the default 1 s
 * delay and --delay.
 */
import { after, describe, test } from 'node:test';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import assert from 'node:assert/strict';
import { assertCleanError, crawl } from '../helpers/crawler-e2e.js';
import { cs50Line, parseLog, urlsWith } from '../helpers/cs50-log.js';
import { numberedFiles, pageList } from '../helpers/page-files.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('crawler-e2e-');

const sites: SiteServer[] = [];
after(async () => {
  await Promise.all(sites.map((s) => s.close()));
});

/** A site: /index.html linking to `links`, each a small page, and the given robots.txt route. */
async function siteWith(robots: Route | undefined, links: string[], extra: Record<string, Route> = {}): Promise<SiteServer> {
  const routes: Record<string, Route> = { '/index.html': { body: page('index', links) }, ...extra };
  for (const l of links) if (routes[l] === undefined) routes[l] = { body: page(l) };
  if (robots !== undefined) routes['/robots.txt'] = robots;
  const s = await startSite(routes);
  sites.push(s);
  return s;
}

const robotsTxt = (text: string): Route => ({ headers: { 'content-type': 'text/plain' }, body: text });

/** Seconds between consecutive request starts seen by the server. */
function gaps(s: SiteServer): number[] {
  const at = s.requests.map((r) => r.at);
  return at.slice(1).map((t, i) => (t - at[i]!) / 1000);
}

/**
 * Runs `fn` while watching this process's event loop. The server stamps a
 * request when its handler runs, so a stamp can be late by as much as the
 * loop was stalled (a loaded machine): a gap can look shorter by that much,
 * never longer than the crawler made it. Returns the worst stall in seconds.
 */
async function withLag<T>(fn: () => Promise<T>): Promise<{ result: T; lag: number }> {
  const h = monitorEventLoopDelay({ resolution: 2 });
  h.enable();
  try {
    const result = await fn();
    return { result, lag: h.max / 1e9 };
  } finally {
    h.disable();
  }
}

/**
 * Every gap at least `delay` less the larger of `tolerance` and the measured
 * stall (never less than half the delay, so a crawler without any delay
 * still fails), and below `upper`.
 */
function assertGaps(s: SiteServer, delay: number, lag: number, upper: number, tolerance = 0.02): void {
  const floor = Math.max(delay / 2, delay - Math.max(tolerance, lag + 0.005));
  for (const g of gaps(s)) {
    assert.ok(g >= floor, `request starts ${g.toFixed(3)} s apart, below the ${delay} s delay (event loop stall ${(lag * 1000).toFixed(0)} ms)`);
    assert.ok(g < upper, `request starts ${g.toFixed(3)} s apart, far above the ${delay} s delay`);
  }
}

describe('robots.txt', { concurrency: true }, () => {
  test('Disallow: the URL is IgnRobots (each time it is found, not IgnDupl) and never requested', async () => {
    const s = await siteWith(robotsTxt('User-agent: *\nDisallow: /private/\n'), ['/private/a.html', '/public.html', '/private/a.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    const log = parseLog(r.stdout);
    assert.deepEqual(urlsWith(log, 'IgnRobots'), [`${s.origin}/private/a.html`, `${s.origin}/private/a.html`]);
    assert.ok(r.stdout.includes(cs50Line(0, 'IgnRobots', `${s.origin}/private/a.html`)));
    assert.deepEqual(s.paths(), ['/robots.txt', '/index.html', '/public.html']);
    assert.deepEqual(pageList(dir), [`1 ${s.origin}/index.html 0`, `2 ${s.origin}/public.html 1`]);
  });

  test('the group naming our product token applies instead of *', async () => {
    const s = await siteWith(robotsTxt('User-agent: *\nDisallow: /\n\nUser-agent: polite-crawler\nDisallow: /mine/\n'), ['/mine/x.html', '/ok.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(urlsWith(parseLog(r.stdout), 'IgnRobots'), [`${s.origin}/mine/x.html`]);
    assert.deepEqual(s.paths(), ['/robots.txt', '/index.html', '/ok.html']);
  });

  test('robots.txt 404: allow all, fetched once, before the seed', async () => {
    const s = await siteWith({ status: 404, body: 'no robots here' }, ['/private/a.html', '/b.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.paths(), ['/robots.txt', '/index.html', '/private/a.html', '/b.html']);
    assert.equal(numberedFiles(dir).length, 3);
  });

  test('robots.txt 500: disallow all, so the seed cannot be crawled: PANIC naming the 500, exit 1, only robots.txt requested, no page file', async () => {
    const s = await siteWith({ status: 500, body: 'oops' }, ['/a.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assertCleanError(r, /^crawler: PANIC: cannot crawl .*robots\.txt.*500/, { usageHint: false });
    assert.deepEqual(s.paths(), ['/robots.txt']);
    assert.deepEqual(numberedFiles(dir), []);
  });

  test('robots.txt Disallow: / with the seed: PANIC: cannot crawl, exit 1, the seed never requested', async () => {
    const s = await siteWith(robotsTxt('User-agent: *\nDisallow: /\n'), ['/a.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assertCleanError(r, /^crawler: PANIC: cannot crawl .*robots\.txt disallows it/, { usageHint: false });
    assert.deepEqual(s.paths(), ['/robots.txt']);
    assert.deepEqual(numberedFiles(dir), []);
  });

  test('robots.txt redirected on the same server: followed, its rules apply', async () => {
    const s = await siteWith({ status: 301, headers: { location: '/rules.txt' } }, ['/private/a.html', '/b.html'], {
      '/rules.txt': robotsTxt('User-agent: *\nDisallow: /private/\n'),
    });
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.paths(), ['/robots.txt', '/rules.txt', '/index.html', '/b.html']);
    assert.deepEqual(urlsWith(parseLog(r.stdout), 'IgnRobots'), [`${s.origin}/private/a.html`]);
  });

  test('robots.txt redirected to another host: not followed (that host gets no request), treated as unavailable: allow all, stderr says so', async () => {
    const other = await startSite({ '/robots.txt': robotsTxt('User-agent: *\nDisallow: /\n') }, '127.0.0.2');
    sites.push(other);
    const s = await siteWith({ status: 302, headers: { location: `${other.origin}/robots.txt` } }, ['/a.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(other.paths(), []);
    assert.equal(other.connections, 0);
    assert.deepEqual(s.paths(), ['/robots.txt', '/index.html', '/a.html']);
    assert.match(r.stderr, /robots\.txt redirects to .*outside the crawl/);
  });

  test('--ignore-robots: robots.txt never requested, disallowed pages crawled', async () => {
    const s = await siteWith(robotsTxt('User-agent: *\nDisallow: /\n'), ['/a.html', '/b.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0', '--ignore-robots', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.paths(), ['/index.html', '/a.html', '/b.html']);
    assert.equal(urlsWith(parseLog(r.stdout), 'IgnRobots').length, 0);
    assert.equal(numberedFiles(dir).length, 3);
  });
});

describe('delays between request starts, at the server', { concurrency: true }, () => {
  test('Crawl-delay 0.3 with --delay 0: every request start (robots.txt included) at least 0.3 s after the previous one', async () => {
    const s = await siteWith(robotsTxt('User-agent: *\nCrawl-delay: 0.3\n'), ['/a.html', '/b.html', '/c.html']);
    const dir = tempDir();
    const { result: r, lag } = await withLag(() => crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.requests.length, 5);
    assertGaps(s, 0.3, lag, 1.5);
  });

  test('Crawl-delay below --delay does not lower it: --delay 0.4 with Crawl-delay 0.1 keeps 0.4 s', async () => {
    const s = await siteWith(robotsTxt('User-agent: *\nCrawl-delay: 0.1\n'), ['/a.html', '/b.html']);
    const dir = tempDir();
    const { result: r, lag } = await withLag(() => crawl(['--delay', '0.4', `${s.origin}/index.html`, dir, '1']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.requests.length, 4);
    assertGaps(s, 0.4, lag, 1.6);
  });

  test('default delay 1 s: robots.txt and 3 pages, request starts >= 0.95 s apart (and < 2 s)', async () => {
    const s = await siteWith({ status: 404 }, ['/a.html', '/b.html']);
    const dir = tempDir();
    const started = performance.now();
    const { result: r, lag } = await withLag(() => crawl([`${s.origin}/index.html`, dir, '1']));
    const took = (performance.now() - started) / 1000;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.paths(), ['/robots.txt', '/index.html', '/a.html', '/b.html']);
    assert.equal(gaps(s).length, 3);
    assertGaps(s, 1, lag, 2, 0.05);
    assert.ok(took < 8, `crawl took ${took.toFixed(2)} s`);
  });

  test('--delay 0.25: request starts >= 0.25 s apart', async () => {
    const s = await siteWith({ status: 404 }, ['/a.html', '/b.html', '/c.html']);
    const dir = tempDir();
    const { result: r, lag } = await withLag(() => crawl(['--delay', '0.25', `${s.origin}/index.html`, dir, '1']));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.requests.length, 5);
    assertGaps(s, 0.25, lag, 1.2);
  });

  test('a failing page (404) and a redirect hop each count as a request start', async () => {
    const s = await siteWith({ status: 404 }, ['/missing.html', '/moved.html'], {
      '/missing.html': { status: 404 },
      '/moved.html': { status: 302, headers: { location: '/target.html' } },
      '/target.html': { body: page('target') },
    });
    const dir = tempDir();
    const { result: r, lag } = await withLag(() => crawl(['--delay', '0.3', `${s.origin}/index.html`, dir, '1']));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.paths(), ['/robots.txt', '/index.html', '/missing.html', '/moved.html', '/target.html']);
    assertGaps(s, 0.3, lag, 1.5);
  });
});
