/**
 * ./KeywordHunter end to end, robots.txt (the spec's section 3.3, spec
 * decisions "KeywordHunter": robots.txt, Actions): when it is fetched, which
 * group applies, what a failed fetch means, a forbidden StartURL, and
 * Crawl-delay measured at the server between request starts.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertStartsApart, longestGap, shortestGap } from '../helpers/arrivals.js';
import { assertOutput, FOUND, kh, LINK, NOT_FOUND, PAGE } from '../helpers/kh-harness.js';
import { ok, startRawSite } from '../helpers/kh-raw.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';

const servers: Array<{ close(): Promise<void> }> = [];
async function site(routes: Record<string, Route> | Map<string, Route>, host?: string): Promise<SiteServer> {
  const s = await startSite(routes, host);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const robots = (text: string): Route => ({ headers: { 'content-type': 'text/plain' }, body: text });

/** The shortest time, in ms, each gap between consecutive request starts can have been (arrivals.ts). */
const shortestGaps = (s: SiteServer): number[] => s.requests.slice(1).map((r, i) => shortestGap(s.requests[i] as SiteServer['requests'][number], r));

/**
 * Request starts at least `ms` apart, measured at the server, and each gap
 * below `below` ms. Arrival times are noted by this test process, whose
 * event loop also serves the other tests' servers, so a note can be late;
 * each arrival is a window (arrivals.ts), and a gap fails only when it was
 * certainly shorter than `ms` (or certainly longer than `below`).
 */
function assertSpacing(s: SiteServer, ms: number, below: number): void {
  assertStartsApart(s.requests, ms, s.origin, (i) => s.requests[i]?.path ?? '');
  const first = s.requests[0];
  const last = s.requests.at(-1);
  const n = s.requests.length - 1;
  if (first !== undefined && last !== undefined) assert.ok(longestGap(first, last) >= n * ms, `${n} gaps span >= ${n * ms} ms: ${longestGap(first, last).toFixed(0)} at most`);
  const g = shortestGaps(s);
  for (const x of g) assert.ok(x < below, `each gap < ${below} ms (generous): ${g.map((y) => y.toFixed(0)).join(', ')} at least`);
}

describe('KeywordHunter robots.txt', { concurrency: true }, () => {
  test('fetched once per host:port, with our User-Agent: before the StartURL, and for another site when a link to it is first met', async () => {
    const A = await site(new Map());
    const B = await site({ '/x': { body: 'x\n' }, '/y': { body: 'y\n' }, '/x2': { body: 'x2\n' } }, '127.0.0.2');
    const A2 = await site({ '/z': { body: 'z\n' } }); // same address as A, another port: another site
    A.routes.set('/', { body: page('A', [`http://127.0.0.2:${B.port}/x`, '/a2', `http://127.0.0.2:${B.port}/y`, `${A2.origin}/z`]) });
    A.routes.set('/a2', { body: page('a2', [`http://127.0.0.2:${B.port}/x2`]) });
    const r = await kh([`${A.origin}/`, 'NoSuchKeyword']);
    assertOutput(r, [
      PAGE(A, '/', 200),
      LINK(B, '/x', 'follow'),
      LINK(A, '/a2', 'follow'),
      LINK(B, '/y', 'follow'),
      LINK(A2, '/z', 'follow'),
      PAGE(B, '/x', 200),
      PAGE(A, '/a2', 200),
      LINK(B, '/x2', 'follow'),
      PAGE(B, '/y', 200),
      PAGE(A2, '/z', 200),
      PAGE(B, '/x2', 200),
      NOT_FOUND,
    ]);
    assert.deepEqual(A.paths(), ['/robots.txt', '/', '/a2']);
    assert.deepEqual(B.paths(), ['/robots.txt', '/x', '/y', '/x2']);
    assert.deepEqual(A2.paths(), ['/robots.txt', '/z']);
    const bRobots = B.requests[0] as { at: number; headers: Record<string, unknown> };
    assert.ok(bRobots.at < (A.requests[2] as { at: number }).at, "B's robots.txt was fetched while A's first page was scanned");
    for (const s of [A, B, A2]) assert.equal(s.requests[0]?.headers['user-agent'], 'ee122-KeywordHunter');
  });

  test('the ee122-KeywordHunter group is preferred over *; other agents\' groups do not apply; agent names compare case-insensitively', async () => {
    const S = await site({
      '/robots.txt': robots('User-agent: *\nDisallow: /\n\nUser-agent: OtherBot\nDisallow: /public\n\nUser-agent: EE122-keywordhunter\nDisallow: /private\n'),
      '/': { body: page('s', ['/public.html', '/private/a.html', '/privateer.html', '/other.html']) },
    });
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), [
      PAGE(S, '/', 200),
      LINK(S, '/public.html', 'follow'),
      LINK(S, '/private/a.html', 'robots_ignore'),
      LINK(S, '/privateer.html', 'robots_ignore'),
      LINK(S, '/other.html', 'follow'),
      PAGE(S, '/public.html', 404),
      PAGE(S, '/other.html', 404),
      NOT_FOUND,
    ]);
  });

  test('Allow and Disallow: the longest match wins, * and $ patterns, the query takes part', async () => {
    const S = await site({
      '/robots.txt': robots('User-agent: *\nDisallow: /dir/\nAllow: /dir/ok.html\nDisallow: /*.cgi$\nDisallow: /search?q=\n'),
      '/': { body: page('s', ['/dir/ok.html', '/dir/no.html', '/dir', '/run.cgi', '/run.cgi?x=1', '/search?q=a', '/search?page=2']) },
    });
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), [
      PAGE(S, '/', 200),
      LINK(S, '/dir/ok.html', 'follow'),
      LINK(S, '/dir/no.html', 'robots_ignore'),
      LINK(S, '/dir', 'follow'),
      LINK(S, '/run.cgi', 'robots_ignore'),
      LINK(S, '/run.cgi?x=1', 'follow'),
      LINK(S, '/search?q=a', 'robots_ignore'),
      LINK(S, '/search?page=2', 'follow'),
      PAGE(S, '/dir/ok.html', 404),
      PAGE(S, '/dir', 404),
      PAGE(S, '/run.cgi?x=1', 404),
      PAGE(S, '/search?page=2', 404),
      NOT_FOUND,
    ]);
  });

  test('a robots.txt answered 404 or 500, or whose connection fails, allows all (a dead host is followed: status=0)', async () => {
    const H404 = await site({ '/': { body: page('404', ['/x']) }, '/x': { body: 'x\n' } });
    const H500 = await site({ '/robots.txt': { status: 500, body: 'User-agent: *\nDisallow: /\n' }, '/': { body: page('500', ['/x']) }, '/x': { body: 'x\n' } });
    const dead = { host: '127.0.0.1', port: await refusedPort() };
    const Hcut = await startRawSite({
      '/robots.txt': (conn) => {
        conn.socket.destroy();
        return 'close';
      },
      '/': ok(page('cut', ['/x', `http://127.0.0.1:${dead.port}/gone.html`])),
      '/x': ok('x\n'),
    });
    servers.push(Hcut);
    for (const H of [H404, H500]) assertOutput(await kh([`${H.origin}/`, 'NoSuchKeyword']), [PAGE(H, '/', 200), LINK(H, '/x', 'follow'), PAGE(H, '/x', 200), NOT_FOUND]);
    assertOutput(await kh([`${Hcut.origin}/`, 'NoSuchKeyword']), [
      PAGE(Hcut, '/', 200),
      LINK(Hcut, '/x', 'follow'),
      LINK(dead, '/gone.html', 'follow'),
      PAGE(Hcut, '/x', 200),
      PAGE(dead, '/gone.html', 0),
      NOT_FOUND,
    ]);
    assert.deepEqual(Hcut.paths(), ['/robots.txt', '/', '/x']);
  });

  test('a redirected robots.txt is followed and obeyed', async () => {
    const S = await site({
      '/robots.txt': { status: 301, headers: { location: '/real-robots.txt' }, body: '' },
      '/real-robots.txt': robots('User-agent: *\nDisallow: /x\n'),
      '/': { body: page('s', ['/x', '/y']) },
    });
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), [PAGE(S, '/', 200), LINK(S, '/x', 'robots_ignore'), LINK(S, '/y', 'follow'), PAGE(S, '/y', 404), NOT_FOUND]);
  });

  test('a robots_ignore URL is not remembered as seen: every encounter says robots_ignore, it is never requested', async () => {
    const S = await site({
      '/robots.txt': robots('User-agent: ee122-KeywordHunter\nDisallow: /secret\n'),
      '/': { body: page('s', ['/secret.html', '/b.html', '/secret.html']) },
      '/b.html': { body: page('b', ['/secret.html', '/secret.html#frag']) },
    });
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), [
      PAGE(S, '/', 200),
      LINK(S, '/secret.html', 'robots_ignore'),
      LINK(S, '/b.html', 'follow'),
      LINK(S, '/secret.html', 'robots_ignore'),
      PAGE(S, '/b.html', 200),
      LINK(S, '/secret.html', 'robots_ignore'),
      LINK(S, '/secret.html', 'robots_ignore'),
      NOT_FOUND,
    ]);
    assert.deepEqual(S.paths(), ['/robots.txt', '/', '/b.html']);
  });

  test('a redirect to a disallowed URL: its PAGE line, then a robots_ignore LINK line, and no request for it', async () => {
    const S = await site({
      '/robots.txt': robots('User-agent: *\nDisallow: /no/\n'),
      '/': { body: page('s', ['/moved.html']) },
      '/moved.html': { status: 302, headers: { location: '/no/target.html' }, body: '' },
    });
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), [
      PAGE(S, '/', 200),
      LINK(S, '/moved.html', 'follow'),
      PAGE(S, '/moved.html', 302),
      LINK(S, '/no/target.html', 'robots_ignore'),
      NOT_FOUND,
    ]);
    assert.deepEqual(S.paths(), ['/robots.txt', '/', '/moved.html']);
  });

  test('a StartURL that robots.txt forbids is not fetched: a note on stderr, then NOT_FOUND_KEYWORD:, exit 0', async () => {
    const S = await site({ '/robots.txt': robots('User-agent: *\nAllow: /open/\n\nUser-agent: ee122-KeywordHunter\nDisallow: /\n'), '/open/start.html': { body: 'FORBIDDENKEY\n' } });
    const r = await kh([`${S.origin}/open/start.html`, 'FORBIDDENKEY']);
    assertOutput(r, [NOT_FOUND]);
    assert.match(r.stderr, /robots\.txt/);
    assert.deepEqual(S.paths(), ['/robots.txt']);
  });

  test('robots.txt is not a page: no PAGE line, not searched', async () => {
    const S = await site({ '/robots.txt': robots('# ROBOTSKEY\nUser-agent: *\nAllow: /\n'), '/': { body: 'nothing\n' } });
    assertOutput(await kh([`${S.origin}/`, 'ROBOTSKEY']), [PAGE(S, '/', 200), NOT_FOUND]);
  });
});

describe('KeywordHunter Crawl-delay (least time between request starts, robots.txt request included)', { concurrency: true }, () => {
  async function delayed(robotsTxt: string | undefined): Promise<SiteServer> {
    const routes: Record<string, Route> = { '/': { body: page('s', ['/a', '/b', '/c', '/d']) } };
    for (const p of ['/a', '/b', '/c', '/d']) routes[p] = { body: `${p}\n` };
    if (robotsTxt !== undefined) routes['/robots.txt'] = robots(robotsTxt);
    return site(routes);
  }
  const crawlOf = (S: SiteServer): string[] => [
    PAGE(S, '/', 200),
    ...['/a', '/b', '/c', '/d'].map((p) => LINK(S, p, 'follow')),
    ...['/a', '/b', '/c', '/d'].map((p) => PAGE(S, p, 200)),
    NOT_FOUND,
  ];

  test('Crawl-delay: 0.3 keeps 300 ms between request starts at the server', async () => {
    const S = await delayed('User-agent: *\nCrawl-delay: 0.3\n');
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), crawlOf(S));
    assert.equal(S.requests.length, 6, 'robots.txt and 5 pages');
    assertSpacing(S, 300, 1000);
  });

  test('a fractional Crawl-delay of our own group (0.25) applies, not the * group\'s', async () => {
    const S = await delayed('User-agent: *\nCrawl-delay: 7\n\nUser-agent: ee122-KeywordHunter\nCrawl-delay: 0.25\nAllow: /\n');
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), crawlOf(S));
    assertSpacing(S, 250, 950);
  });

  test('without a Crawl-delay KeywordHunter does not wait; --delay sets a floor', async () => {
    const S = await delayed(undefined);
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), crawlOf(S));
    const g = shortestGaps(S);
    assert.ok(Math.max(...g) < 500, `no waiting between requests: ${g.map((x) => x.toFixed(0))} ms at least`);
    const F = await delayed(undefined);
    assertOutput(await kh(['--delay', '0.2', `${F.origin}/`, 'NoSuchKeyword']), crawlOf(F));
    assertSpacing(F, 200, 900);
  });

  test('the Crawl-delay of one host does not slow another', async () => {
    const slow = await site({ '/robots.txt': robots('User-agent: *\nCrawl-delay: 2\n'), '/s1': { body: 's1\n' } });
    const fast = await site({ '/f1': { body: 'f1\n' }, '/f2': { body: 'f2\n' }, '/f3': { body: 'FASTKEY\n' } }, '127.0.0.2');
    const start = await site({ '/': { body: page('s', [`${slow.origin}/s1`, `http://127.0.0.2:${fast.port}/f1`, `http://127.0.0.2:${fast.port}/f2`, `http://127.0.0.2:${fast.port}/f3`]) } });
    const r = await kh([`${start.origin}/`, 'FASTKEY']);
    const f = { host: '127.0.0.2', port: fast.port };
    assertOutput(r, [
      PAGE(start, '/', 200),
      LINK(slow, '/s1', 'follow'),
      LINK(f, '/f1', 'follow'),
      LINK(f, '/f2', 'follow'),
      LINK(f, '/f3', 'follow'),
      PAGE(slow, '/s1', 200),
      PAGE(f, '/f1', 200),
      PAGE(f, '/f2', 200),
      PAGE(f, '/f3', 200),
      FOUND(f, '/f3', 'FASTKEY'),
    ]);
    // /s1 waits 2 s after the slow host's robots.txt; the fast host's pages do not wait after that.
    const g = shortestGaps(fast).slice(1); // robots.txt -> /f1 includes the wait for /s1, which comes first in order
    assert.ok(Math.max(...g) < 500, `fast host not slowed: ${g.map((x) => x.toFixed(0))} ms at least`);
    assertSpacing(slow, 2000, 3500);
  });
});
