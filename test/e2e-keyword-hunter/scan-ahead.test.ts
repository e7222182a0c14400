/**
 * Scanning ahead (KeywordHunter --concurrency above 1): pages fetched ahead
 * are scanned as they arrive and the links the crawl will follow are fetched
 * early. Here each host's pages are linked only from that host's start page,
 * which is reached through another host, so without scanning ahead a host
 * waits until its start page is scanned in order. Checked at the servers and
 * on stdout: the same protocol lines as --concurrency 1, the same requests
 * (each URL once, robots.txt first), nothing robots.txt disallows, every
 * host's Crawl-delay kept, and no page requested after the one holding the
 * keyword when that page is the last one queued.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertStartsApart } from '../helpers/arrivals.js';
import { runProgram } from '../helpers/spawn.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';

const HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'];
const DELAY = 0.2;

async function startHosts(keywordAt?: string): Promise<SiteServer[]> {
  const sites: SiteServer[] = [];
  for (const host of HOSTS) sites.push(await startSite(new Map<string, Route>(), host));
  for (const [i, site] of sites.entries()) {
    const next = sites[(i + 1) % sites.length] as SiteServer;
    site.routes.set('/robots.txt', { headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nCrawl-delay: ${DELAY}\nDisallow: /secret\n` });
    const own = ['p1.html', 'p2.html', './p3.html', '/p4.html', 'sub/../p5.html', '/secret.html', 'p1.html#again'];
    // Another site's start page, written another way: the same key (a duplicate by then).
    const others = i === 0 ? sites.slice(1).map((s) => `${s.origin}/index.html`) : [`HTTP://${next.host}:${next.port}/./index.html`];
    site.routes.set('/index.html', { body: page(`host ${i} start`, [...own, ...others]) });
    for (let p = 1; p <= 5; p++) {
      const links = ['/index.html', `p${(p % 5) + 1}.html`, `${next.origin}/p${p}.html`];
      if (p === 2) links.push('/moved.html');
      const extra = keywordAt === `${i}/p${p}` ? 'here is the Needle line' : '';
      site.routes.set(`/p${p}.html`, { body: page(`host ${i} page ${p}`, links, extra) });
    }
    site.routes.set('/moved.html', { status: 301, headers: { location: '/p6.html' }, body: '' });
    site.routes.set('/p6.html', { body: page(`host ${i} page 6`, ['/secret-too.html', `${next.origin}/p6.html`]) });
  }
  return sites;
}

const norm = (out: string, sites: SiteServer[]): string => sites.reduce((o, s, i) => o.replaceAll(`port=${s.port};`, `port=P${i};`).replaceAll(`:${s.port}/`, `:P${i}/`), out);

function requested(sites: SiteServer[]): string[] {
  return sites.flatMap((s, i) => s.requests.map((r) => `${i}${r.path}`)).sort();
}

function assertPoliteAndOnce(sites: SiteServer[]): void {
  for (const site of sites) {
    const paths = site.paths();
    assert.equal(paths[0], '/robots.txt', `${site.host}: robots.txt first`);
    assert.equal(new Set(paths).size, paths.length, `${site.host}: a URL requested twice: ${paths.join(' ')}`);
    assert.ok(!paths.some((p) => p.startsWith('/secret')), `${site.host}: a disallowed page was requested`);
    assertStartsApart(site.requests, DELAY * 1000, `${site.host}, Crawl-delay`, (k) => site.requests[k]?.path ?? '');
  }
}

async function both(keywordAt?: string, keyword = 'NotThere'): Promise<{ fast: SiteServer[]; slow: SiteServer[]; parallel: string; sequential: string }> {
  const fast = await startHosts(keywordAt);
  const slow = await startHosts(keywordAt);
  const [p, s] = await Promise.all([
    runProgram('KeywordHunter', ['--concurrency', '4', `${(fast[0] as SiteServer).origin}/index.html`, keyword], { timeoutMs: 60_000 }),
    runProgram('KeywordHunter', ['--concurrency', '1', `${(slow[0] as SiteServer).origin}/index.html`, keyword], { timeoutMs: 60_000 }),
  ]);
  await Promise.all([...fast, ...slow].map((site) => site.close()));
  assert.equal(p.code, 0, p.stderr);
  assert.equal(s.code, 0, s.stderr);
  return { fast, slow, parallel: norm(p.stdout, fast), sequential: norm(s.stdout, slow) };
}

test('scanning ahead: the protocol lines of --concurrency 1, each URL requested once, nothing disallowed, delays kept', async () => {
  const { fast, slow, parallel, sequential } = await both();
  assert.equal(parallel, sequential);
  assert.match(parallel, /NOT_FOUND_KEYWORD:/);
  assert.match(parallel, /action=robots_ignore/);
  assert.match(parallel, /LINK:host=127\.0\.0\.3;port=P2;respath=\/index\.html;action=already_seen_ignore/);
  assert.equal(parallel.split('\n').filter((l) => l.startsWith('PAGE:')).length, 4 * 8); // index, p1-p5, moved (301), p6
  assert.deepEqual(requested(fast), requested(slow));
  // It did scan ahead: host 2's pages are linked only from its start page,
  // which comes after host 1's pages in order; they were fetched alongside them.
  const at = (site: SiteServer, path: string): number => site.requests.find((r) => r.path === path)?.at ?? NaN;
  assert.ok(at(fast[1] as SiteServer, '/p1.html') < at(fast[0] as SiteServer, '/p5.html'), 'host 2 waited for host 1: no scanning ahead');
  assert.ok(at(slow[1] as SiteServer, '/p1.html') > at(slow[0] as SiteServer, '/p5.html'), '--concurrency 1 is sequential');
  assertPoliteAndOnce(fast);
  assertPoliteAndOnce(slow);
});

test('scanning ahead stops with the keyword: same lines as --concurrency 1, nothing requested twice or disallowed', async () => {
  const { fast, parallel, sequential } = await both('2/p3', 'Needle');
  assert.equal(parallel, sequential);
  assert.match(parallel, /FOUND_KEYWORD:host=127\.0\.0\.3;port=P2;respath=\/p3\.html;line=here is the Needle line/);
  assertPoliteAndOnce(fast);
});
