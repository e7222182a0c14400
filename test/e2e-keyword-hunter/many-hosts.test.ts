/**
 * Many hosts at once: with --concurrency, requests to different hosts run
 * concurrently while each host keeps its Crawl-delay, and KeywordHunter's
 * protocol lines come out exactly as a sequential run prints them.
 * 4 loopback hosts (127.0.0.1 to 127.0.0.4), Crawl-delay 0.5 s, 10 pages
 * each: the ideal is 5 s (11 request starts a host, robots.txt included),
 * measured at the servers from the first request start to the last. The
 * sequential run that gives the expected lines crawls a copy of the hosts
 * whose Crawl-delay is 0.1 s: the lines do not depend on the delay, and its
 * 44 requests one after another then take 4 s, not 22.
 */
// run-tests: serial (an upper bound on the crawl's span, 1.3 x the ideal, that CPU taken by other test files could break)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertStartsApart } from '../helpers/arrivals.js';
import { refusedPort } from '../helpers/refused-port.js';
import { runProgram } from '../helpers/spawn.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';

const HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3', '127.0.0.4'];
const DELAY = 0.5;
/** The Crawl-delay of the sequential run's hosts. */
const REFERENCE_DELAY = 0.1;

async function startHosts(delay: number): Promise<SiteServer[]> {
  const sites: SiteServer[] = [];
  for (const host of HOSTS) sites.push(await startSite(new Map<string, Route>(), host));
  for (const [i, site] of sites.entries()) {
    site.routes.set('/robots.txt', { headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nCrawl-delay: ${delay}\n` });
    for (let p = 0; p < 10; p++) site.routes.set(`/p${p}.html`, { body: page(`host ${i} page ${p}`) });
  }
  // The start page lists each host's pages together, so a sequential crawl waits on one host at a time.
  const links: string[] = [];
  for (const [i, site] of sites.entries()) for (let p = i === 0 ? 1 : 0; p < 10; p++) links.push(`${site.origin}/p${p}.html`);
  (sites[0] as SiteServer).routes.set('/p0.html', { body: page('start', links) });
  return sites;
}

function assertPolite(sites: SiteServer[], delay: number): void {
  for (const site of sites) {
    assert.equal(site.requests.length, 11, `${site.host}: robots.txt and 10 pages`);
    assertStartsApart(site.requests, delay * 1000, `${site.host}, Crawl-delay ${delay}`, (i) => site.requests[i]?.path ?? '');
  }
}

test('4 hosts with Crawl-delay 0.5 s: --concurrency 4 takes at most 1.3x the ideal 5 s, output identical to --concurrency 1', async (t) => {
  const fast = await startHosts(DELAY);
  const slow = await startHosts(REFERENCE_DELAY);
  t.after(() => Promise.all([...fast, ...slow].map((s) => s.close())));
  // One run after the other: run together, each one's servers note arrivals
  // late while the other works, and a gap looks shorter than it was.
  const started = performance.now();
  const parallel = await runProgram('KeywordHunter', ['--concurrency', '4', `${(fast[0] as SiteServer).origin}/p0.html`, 'NotThere'], { timeoutMs: 60_000 }).then((r) => ({
    r,
    s: (performance.now() - started) / 1000,
  }));
  const sequential = await runProgram('KeywordHunter', ['--concurrency', '1', `${(slow[0] as SiteServer).origin}/p0.html`, 'NotThere'], { timeoutMs: 60_000 });
  assert.equal(parallel.r.code, 0, parallel.r.stderr);
  assert.equal(sequential.code, 0, sequential.stderr);
  // The crawl's span at the servers, first request start to last: process
  // start-up is not the crawl. The shortest the arrival windows allow
  // (arrivals.ts): a stall of this process makes a late note, not a slow crawl.
  const arrivals = fast.flatMap((s) => s.requests);
  const span = (Math.max(...arrivals.map((r) => r.after)) - Math.min(...arrivals.map((r) => r.at))) / 1000;
  t.diagnostic(`span at the servers ${span.toFixed(2)} s, wall ${parallel.s.toFixed(2)} s`);
  assert.ok(span <= 5 * 1.3, `the crawl spanned ${span.toFixed(2)} s at the servers, more than 1.3 x 5 s`);
  // Same protocol lines; only the ports differ between the two sets of servers.
  const norm = (out: string, sites: SiteServer[]): string => sites.reduce((o, s, i) => o.replaceAll(`port=${s.port};`, `port=P${i};`), out);
  assert.equal(norm(parallel.r.stdout, fast), norm(sequential.stdout, slow));
  assert.equal(parallel.r.stdout.split('\n').filter((l) => l.startsWith('PAGE:')).length, 40);
  assertPolite(fast, DELAY);
  assertPolite(slow, REFERENCE_DELAY);
});

test('--connections-per-host above 1 is refused unless --delay is 0', async () => {
  const r = await runProgram('KeywordHunter', ['--connections-per-host', '2', '--delay', '0.1', `http://127.0.0.1:${await refusedPort()}/`, 'k']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /only allowed with --delay 0/);
  assert.equal(r.stdout, '');
});
