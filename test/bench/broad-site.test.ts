/**
 * The broad section's site server (bench/broad-site.ts), as its own process:
 * it answers each host's pages late by the latency, on the host's own
 * address, and records what it served per host.
 */
// run-tests: serial (the server's least gap, the shortest its arrival windows allow, must show the 120 ms the client left with no slack: a stall of the server behind other test files' CPU widens a window and shortens it)
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { hostAddress, ROBOTS_TXT } from '../../bench/broad-shape.js';
import { startBroadSite, type BroadSite } from '../../bench/broad-site.js';
import { gapSummary, hostGaps } from '../../bench/broad-stats.js';

const LATENCY_MS = 50;

function get(site: BroadSite, host: number, path: string): Promise<{ status: number; type: string; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: hostAddress(host), port: site.port, path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body, ms: performance.now() - started }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer for ${path} on host ${host}`)));
    req.on('error', reject);
    req.end();
  });
}

describe('the broad site server', () => {
  let site: BroadSite;
  before(async () => {
    site = await startBroadSite({ hosts: 3, pages: 3, latencyMs: LATENCY_MS }, 1);
  });
  after(() => site.stop());

  it('serves each host on its own address, every answer at least the latency late', async () => {
    await site.reset();
    const robots = await get(site, 1, '/robots.txt');
    assert.deepEqual([robots.status, robots.type, robots.body], [200, 'text/plain', ROBOTS_TXT]);
    assert.ok(robots.ms >= LATENCY_MS, `answered after ${robots.ms} ms`);
    const hub = await get(site, 0, '/hub.html');
    assert.equal(hub.status, 200);
    for (const k of [0, 1, 2]) assert.ok(hub.body.includes(`href="http://${hostAddress(k)}:${site.port}/"`), `the hub links host ${k}'s root`);
    const root = await get(site, 2, '/');
    assert.match(root.body, /<title>host 2<\/title>/);
    assert.equal((await get(site, 1, '/hub.html')).status, 404, 'the hub is on the first host only');
    const missing = await get(site, 0, '/p3.html');
    assert.equal(missing.status, 404);
    assert.ok(missing.ms >= LATENCY_MS, 'a 404 is late too');
    const r = await site.collect();
    assert.deepEqual(r.arrivals.map((a) => a.length), [2, 2, 1]);
    assert.deepEqual([r.pagesServed, r.robotsServed, r.notFound, r.fetchedTwice], [2, 1, 2, 0]);
    assert.ok(r.lateMaxMs >= 0 && Number.isFinite(r.lastSentAt));
  });

  it('counts a page fetched twice, and forgets everything on reset', async () => {
    await site.reset();
    await get(site, 0, '/p1.html');
    await get(site, 0, '/p1.html');
    await get(site, 1, '/p1.html');
    const r = await site.collect();
    assert.equal(r.fetchedTwice, 1, 'the same path on another host is another page');
    await site.reset();
    const empty = await site.collect();
    assert.deepEqual(empty.arrivals.map((a) => a.length), [0, 0, 0]);
    assert.equal(empty.pagesServed, 0);
  });

  it('never reports a gap shorter than the client left between two request starts', async () => {
    await site.reset();
    const first = performance.now();
    await get(site, 1, '/');
    while (performance.now() - first < 120) await new Promise((r) => setTimeout(r, 5));
    await get(site, 1, '/p1.html');
    const gaps = gapSummary((await site.collect()).arrivals.map((a, k) => hostGaps(k, a)), 120);
    assert.equal(gaps.hostsMeasured, 1);
    assert.equal(gaps.worstHost, 1);
    assert.equal(gaps.hostsBelow, 0, `least gap ${gaps.leastGapMs} ms`);
  });
});
