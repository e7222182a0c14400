/**
 * spec-decisions.md, "Many hosts": the robots.txt of every new host on a
 * page is fetched at once (bounded by --concurrency) before that page's
 * links are classified, so the log is unchanged: robots.txt rules are
 * learnt, and links told, in document order, whichever answer came first.
 * Measured at the servers: requests in flight at once, never above the bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';

const HOSTS = 12;
const ROBOTS_DELAY_MS = 250;

/** HOSTS sites whose robots.txt answers after ROBOTS_DELAY_MS (later for the first ones, so answers come back out of order); `inFlight` is the most robots.txt requests open at once. */
async function slowRobotsHosts(t: import('node:test').TestContext): Promise<{ hosts: SiteServer[]; peak: () => number }> {
  let open = 0;
  let peak = 0;
  const hosts: SiteServer[] = [];
  for (let i = 0; i < HOSTS; i++) {
    const delay = ROBOTS_DELAY_MS + (HOSTS - i) * 10;
    const s = await startSite({
      '/robots.txt': {
        handle: (_req, res) => {
          open++;
          peak = Math.max(peak, open);
          setTimeout(() => {
            open--;
            res.writeHead(200, { 'content-type': 'text/plain' }).end(i % 3 === 0 ? 'User-agent: *\nDisallow: /p.html\n' : 'User-agent: *\nAllow: /\n');
          }, delay);
        },
      },
      '/p.html': { body: page(`p${i}`) },
    });
    t.after(() => s.close());
    hosts.push(s);
  }
  return { hosts, peak: () => peak };
}

test('a page that links to many new hosts: their robots.txt fetched at once, the links told in document order', async (t) => {
  const { hosts, peak } = await slowRobotsHosts(t);
  const hub = await startSite({ '/robots.txt': { status: 404 }, '/': { body: page('hub', hosts.map((h) => `${h.origin}/p.html`)) } });
  t.after(() => hub.close());
  const started = performance.now();
  const r = await runCrawl({ seed: `${hub.origin}/`, inScope: () => true, maxDepth: 1, concurrency: HOSTS });
  const ms = performance.now() - started;
  // One after another they would take HOSTS x 250 ms = 3 s at least.
  assert.ok(ms < (HOSTS * ROBOTS_DELAY_MS) / 2, `the scan waited ${ms.toFixed(0)} ms for ${HOSTS} robots.txt files of ${ROBOTS_DELAY_MS} ms each`);
  assert.equal(peak(), HOSTS, 'every robots.txt was asked before the first answer came');
  const robots = r.events.filter((e) => e.startsWith('robots ')).slice(1);
  assert.deepEqual(robots.map((e) => e.split(' ')[1]), hosts.map((h) => `${h.origin}/robots.txt`), 'rules learnt in document order');
  const links = r.events.filter((e) => e.startsWith('link '));
  assert.deepEqual(links, hosts.map((h, i) => `link 0 ${h.origin}/p.html ${i % 3 === 0 ? 'robots' : 'follow'}`));
});

test('at most --concurrency robots.txt requests at once', async (t) => {
  const { hosts, peak } = await slowRobotsHosts(t);
  const hub = await startSite({ '/robots.txt': { status: 404 }, '/': { body: page('hub', hosts.map((h) => `${h.origin}/p.html`)) } });
  t.after(() => hub.close());
  const started = performance.now();
  const r = await runCrawl({ seed: `${hub.origin}/`, inScope: () => true, maxDepth: 1, concurrency: 4 });
  const ms = performance.now() - started;
  assert.equal(peak(), 4);
  assert.ok(ms >= (HOSTS / 4) * ROBOTS_DELAY_MS, `three rounds of four at least: ${ms.toFixed(0)} ms`);
  assert.equal(r.events.filter((e) => e.startsWith('link ')).length, HOSTS);
});
