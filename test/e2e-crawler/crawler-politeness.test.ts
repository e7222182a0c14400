/**
 * ./crawler end to end, politeness (spec decisions "Politeness means request
 * starts", "crawler": robots.txt, Delay): measured at the server, which
 * records the arrival of every request. robots.txt Disallow, Crawl-delay,
 * 404 (allow all), 500 (disallow all), --ignore-robots, the default 1 s
 * delay and --delay.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertStartsApart, shortestGap } from '../helpers/arrivals.js';
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

/**
 * Every gap between request starts at least `delay` and below `upper`, in
 * seconds. The server notes a request when this process gets to it, late by
 * as much as its event loop was stalled (a loaded machine), so each arrival
 * is a window (arrivals.ts): a gap fails the delay only when it was
 * certainly shorter, and the upper bound only when it was certainly longer.
 */
function assertGaps(s: SiteServer, delay: number, upper: number): void {
  assertStartsApart(s.requests, delay * 1000, s.origin, (i) => s.requests[i]?.path ?? '');
  for (let i = 1; i < s.requests.length; i++) {
    const shortest = shortestGap(s.requests[i - 1]!, s.requests[i]!) / 1000;
    assert.ok(shortest < upper, `request starts at least ${shortest.toFixed(3)} s apart, far above the ${delay} s delay`);
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
    assertCleanError(r, /^crawler: PANIC: cannot crawl .*: .*\/robots\.txt answered HTTP 500, which means disallow all \(RFC 9309\)$/, { hint: /^Use --ignore-robots to crawl it anyway\.$/ });
    assert.deepEqual(s.paths(), ['/robots.txt']);
    assert.deepEqual(numberedFiles(dir), []);
  });

  test('robots.txt Disallow: / with the seed: PANIC: cannot crawl, exit 1, the seed never requested', async () => {
    const s = await siteWith(robotsTxt('User-agent: *\nDisallow: /\n'), ['/a.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assertCleanError(r, /^crawler: PANIC: cannot crawl .*: robots\.txt disallows it$/, { hint: /^Use --ignore-robots to crawl it anyway\.$/ });
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
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.requests.length, 5);
    assertGaps(s, 0.3, 1.5);
    // Said once for the host, as wget and Heritrix log it (spec decision "What the programs say").
    assert.deepEqual(r.stderr.split('\n').filter((l) => l.includes('Crawl-delay')), [`crawler: ${s.origin}: Crawl-delay 0.3 s from robots.txt, above --delay 0`]);
  });

  test('Crawl-delay below --delay does not lower it: --delay 0.4 with Crawl-delay 0.1 keeps 0.4 s', async () => {
    const s = await siteWith(robotsTxt('User-agent: *\nCrawl-delay: 0.1\n'), ['/a.html', '/b.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0.4', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.requests.length, 4);
    assertGaps(s, 0.4, 1.6);
    assert.doesNotMatch(r.stderr, /Crawl-delay/, 'a Crawl-delay below --delay changes nothing: nothing to say');
  });

  test('default delay 1 s: robots.txt and 3 pages, request starts >= 1 s apart (and < 2 s)', async () => {
    const s = await siteWith({ status: 404 }, ['/a.html', '/b.html']);
    const dir = tempDir();
    const started = performance.now();
    const r = await crawl([`${s.origin}/index.html`, dir, '1']);
    const took = (performance.now() - started) / 1000;
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.paths(), ['/robots.txt', '/index.html', '/a.html', '/b.html']);
    assertGaps(s, 1, 2);
    assert.ok(took < 8, `crawl took ${took.toFixed(2)} s`);
  });

  test('--delay 0.25: request starts >= 0.25 s apart', async () => {
    const s = await siteWith({ status: 404 }, ['/a.html', '/b.html', '/c.html']);
    const dir = tempDir();
    const r = await crawl(['--delay', '0.25', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(s.requests.length, 5);
    assertGaps(s, 0.25, 1.2);
  });

  test('a failing page (404) and a redirect hop each count as a request start', async () => {
    const s = await siteWith({ status: 404 }, ['/missing.html', '/moved.html'], {
      '/missing.html': { status: 404 },
      '/moved.html': { status: 302, headers: { location: '/target.html' } },
      '/target.html': { body: page('target') },
    });
    const dir = tempDir();
    const r = await crawl(['--delay', '0.3', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(s.paths(), ['/robots.txt', '/index.html', '/missing.html', '/moved.html', '/target.html']);
    assertGaps(s, 0.3, 1.5);
  });
});
