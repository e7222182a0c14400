/**
 * The bench's broad section (issue 30): the politeness bound of a crawl
 * (bench/broad-stats.ts), the least gap per host at the server, the page ID
 * check, the site's shape (bench/broad-shape.ts), the targets and the
 * command's options (bench/broad-bench.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BROAD_SITES, broadTargets, formatBroad, formatBroadSite, memoryPerHost, parseBroadArgs, type BroadSiteResult } from '../../bench/broad-bench.js';
import { skippedRun, type BroadRun } from '../../bench/broad-runs.js';
import { expectedUrls, hostAddress, MAX_HOSTS, pageBody, seedUrl } from '../../bench/broad-shape.js';
import { broadIdeal, checkIds, gapSummary, hostGaps, idealSeconds } from '../../bench/broad-stats.js';

const close = (actual: number, expected: number, what: string): void => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);

describe('the ideal of a broad crawl', () => {
  it('is issue 30\'s 21.2 s for 500 hosts x 20 pages at a 1 s delay and 100 ms latency', () => {
    // Host 0: robots.txt at 0, the hub at 1; every other host starts at 1.1 (the hub's answer),
    // robots.txt then 20 pages 1 s apart: its last page starts at 21.1 and is answered at 21.2.
    const i = broadIdeal({ hosts: 500, pages: 20 }, 1, 0.1);
    close(i.seconds, 21.2, 'seconds');
    assert.equal(i.pages, 10_001);
    assert.equal(i.requests, 10_501);
    close(i.pagesPerSecond, 10_001 / 21.2, 'pages/s');
    close(i.stepSeconds, 1, 'step');
  });

  it('is 11.2 s for 2,000 hosts x 10 pages and 1.4 s for the quick site', () => {
    close(broadIdeal({ hosts: 2000, pages: 10 }, 1, 0.1).seconds, 11.2, '2,000 x 10');
    close(broadIdeal({ hosts: 50, pages: 5 }, 0.2, 0.1).seconds, 1.4, '50 x 5 at 0.2 s');
  });

  it('does not depend on the number of hosts past one, which run in parallel', () => {
    close(broadIdeal({ hosts: 2, pages: 20 }, 1, 0.1).seconds, broadIdeal({ hosts: 10_000, pages: 20 }, 1, 0.1).seconds, 'seconds');
  });

  it('with one host is its robots.txt, the hub and its pages one delay apart, the last answered', () => {
    close(broadIdeal({ hosts: 1, pages: 3 }, 1, 0.1).seconds, 4 * 1 + 0.1, 'one host');
  });

  it('steps by the latency when answers take longer than the delay (one request at a time)', () => {
    const i = broadIdeal({ hosts: 10, pages: 4 }, 0.05, 0.2);
    close(i.stepSeconds, 0.2, 'step');
    close(i.seconds, 5 * 0.2 + 2 * 0.2, 'seconds');
  });

  it('is the slowest host: ready + (requests - 1) x step + latency', () => {
    close(idealSeconds([{ ready: 0, requests: 3 }, { ready: 2, requests: 2 }], 1, 0.5), 3.5, 'the later host');
    close(idealSeconds([{ ready: 0, requests: 10 }, { ready: 2, requests: 2 }], 1, 0.5), 9.5, 'the longer host');
    assert.equal(idealSeconds([], 1, 0.1), 0);
    assert.equal(idealSeconds([{ ready: 5, requests: 0 }], 1, 0.1), 0, 'a host without requests adds nothing');
  });
});

describe('the least gap per host at the server', () => {
  it('takes the longest gap the arrival windows allow between consecutive starts, in arrival order', () => {
    // Noted at 0, 1000 and 1990; the third could have come from 1985 on, the second from 999.
    const g = hostGaps(7, [{ at: 1990, after: 1985 }, { at: 0, after: -1 }, { at: 1000, after: 999 }]);
    assert.equal(g.host, 7);
    assert.equal(g.requests, 3);
    assert.equal(g.leastGapMs, 1990 - 999);
    assert.equal(g.leastNotedGapMs, 990);
  });

  it('names the two requests with the least gap, on the worst host', () => {
    const s = gapSummary([
      hostGaps(0, [{ at: 0, after: 0, path: '/robots.txt' }, { at: 1000, after: 1000, path: '/' }, { at: 2000, after: 2000, path: '/p1.html' }]),
      hostGaps(1, [{ at: 0, after: 0, path: '/robots.txt' }, { at: 558, after: 558, path: '/' }, { at: 1558, after: 1558, path: '/p1.html' }]),
    ], 1000);
    assert.equal(s.worstHost, 1);
    assert.deepEqual(s.worstPair, ['/robots.txt', '/']);
  });

  it('is Infinity for a host with fewer than two requests, which is not measured', () => {
    assert.equal(hostGaps(0, [{ at: 5, after: 4 }]).leastGapMs, Infinity);
    const s = gapSummary([hostGaps(0, [{ at: 5, after: 4 }]), hostGaps(1, [])], 1000);
    assert.deepEqual(s, { hostsMeasured: 0, leastGapMs: Infinity, leastNotedGapMs: Infinity, worstHost: -1, hostsBelow: 0 });
  });

  it('counts the hosts whose least gap is below the interval, and names the worst', () => {
    const at = (...ts: number[]): Array<{ at: number; after: number }> => ts.map((t) => ({ at: t, after: t }));
    const s = gapSummary([hostGaps(0, at(0, 1000, 2000)), hostGaps(1, at(0, 999.5)), hostGaps(2, at(0, 558)), hostGaps(3, at(0))], 1000);
    assert.equal(s.hostsMeasured, 3);
    assert.equal(s.hostsBelow, 2, 'a gap of exactly the interval holds it; 999.5 ms does not');
    assert.equal(s.leastGapMs, 558);
    assert.equal(s.worstHost, 2);
  });

  it('does not call a gap short when the server noted the first request late', () => {
    // The server stalled: it noted the first request at 40 though it could have come at 0.
    const s = gapSummary([hostGaps(0, [{ at: 40, after: 0 }, { at: 1010, after: 1009 }])], 1000);
    assert.equal(s.hostsBelow, 0);
    assert.equal(s.leastGapMs, 1010);
    assert.equal(s.leastNotedGapMs, 970);
  });
});

describe('checkIds', () => {
  it('accepts 1..N in any order, over several directories', () => {
    assert.deepEqual(checkIds([3, 1, 2, 5, 4]), { files: 5, highest: 5, gaps: 0, twice: 0, dense: true });
  });
  it('finds an ID two workers both saved, and IDs no one saved', () => {
    const c = checkIds([1, 2, 2, 5]);
    assert.equal(c.twice, 1);
    assert.equal(c.gaps, 2, '3 and 4');
    assert.equal(c.dense, false);
  });
  it('refuses an ID of 0', () => {
    assert.equal(checkIds([0, 1]).dense, false);
  });
});

describe('the broad site', () => {
  it('puts host k at 127.0.A.B, 250 hosts per third octet, never .0 or .255', () => {
    assert.equal(hostAddress(0), '127.0.1.1');
    assert.equal(hostAddress(249), '127.0.1.250');
    assert.equal(hostAddress(250), '127.0.2.1');
    assert.equal(hostAddress(1999), '127.0.8.250');
    assert.throws(() => hostAddress(MAX_HOSTS), RangeError);
    assert.throws(() => hostAddress(-1), RangeError);
  });

  it('holds exactly hosts x pages + 1 pages, all within depth 2 of the hub, breadth first', () => {
    const shape = { hosts: 4, pages: 3 };
    const port = 8080;
    const depthOf = new Map<string, number>([[seedUrl(port), 0]]);
    const queue = [seedUrl(port)];
    while (queue.length > 0) {
      const url = queue.shift()!;
      const u = new URL(url);
      const k = [0, 1, 2, 3].find((h) => hostAddress(h) === u.hostname)!;
      const body = pageBody(shape, port, k, u.pathname);
      assert.ok(body !== undefined, `${url} is a page`);
      if (depthOf.get(url)! === 2) continue;
      for (const m of body.matchAll(/href="([^"]+)"/g)) {
        const link = new URL(m[1]!, url).href;
        if (!depthOf.has(link)) depthOf.set(link, depthOf.get(url)! + 1), queue.push(link);
      }
    }
    assert.deepEqual(new Set(depthOf.keys()), expectedUrls(shape, port));
    assert.equal(depthOf.size, 4 * 3 + 1);
    assert.deepEqual([...depthOf.values()].filter((d) => d === 1).length, 4, 'every root at depth 1');
  });

  it('answers no page outside the site', () => {
    const shape = { hosts: 2, pages: 3 };
    assert.equal(pageBody(shape, 1, 1, '/hub.html'), undefined, 'the hub is on host 0 only');
    assert.equal(pageBody(shape, 1, 0, '/p3.html'), undefined);
    assert.equal(pageBody(shape, 1, 2, '/'), undefined);
    assert.equal(pageBody(shape, 1, 0, '/p0.html'), undefined);
  });
});

function run(over: Partial<BroadRun> & Pick<BroadRun, 'run' | 'label'>): BroadRun {
  const base = skippedRun(over.run, over.label, '');
  return {
    ...base,
    available: true,
    exitCodes: [0],
    wallSeconds: 22,
    ofIdeal: 0.95,
    peakRssMiB: 100,
    saved: { ...base.saved, pages: 10_001 },
    ids: { files: 10_001, highest: 10_001, gaps: 0, twice: 0, dense: true },
    gaps: { hostsMeasured: 500, leastGapMs: 1000.4, leastNotedGapMs: 999, worstHost: 3, hostsBelow: 0 },
    ...over,
  };
}

function site(runs: BroadRun[], hosts = 500, pages = 20): Omit<BroadSiteResult, 'targets'> {
  return { hosts, pages, delaySeconds: 1, latencyMs: 100, concurrency: 256, workers: 4, ideal: broadIdeal({ hosts, pages }, 1, 0.1), runs };
}

describe('the broad targets', () => {
  it('on 500 x 20: ours at 0.9 of the ideal with every interval held, 4 workers at 0.85, every page once', () => {
    const t = broadTargets(site([run({ run: 'ours', label: 'ours' }), run({ run: 'pg', label: 'pg4', ofIdeal: 0.86 })]));
    assert.deepEqual(t.map((x) => x.met), [true, true, true, true], JSON.stringify(t));
    assert.match(t[0]!.what, /ours >= 0\.9 of the ideal/);
    assert.match(t[1]!.what, /4 PostgreSQL workers >= 0\.85/);
  });

  it('is not met below the fraction, with a host below its interval, or with a page saved twice', () => {
    const slow = broadTargets(site([run({ run: 'ours', label: 'ours', ofIdeal: 0.15 })]));
    assert.equal(slow[0]!.met, false);
    assert.match(slow[0]!.measured, /0\.15 of the ideal/);
    const impolite = broadTargets(site([run({ run: 'ours', label: 'ours', gaps: { hostsMeasured: 500, leastGapMs: 558, leastNotedGapMs: 558, worstHost: 1, hostsBelow: 3 } })]));
    assert.deepEqual(impolite.map((x) => x.met), [false, false]);
    const twice = broadTargets(site([run({ run: 'ours', label: 'ours', ids: { files: 10_002, highest: 10_001, gaps: 0, twice: 1, dense: false } })]));
    assert.deepEqual(twice.map((x) => x.met), [true, false]);
    assert.match(twice[1]!.measured, /1 twice/);
  });

  it('on 2,000 x 10: ours at 0.85 with peak RSS under 160 MiB', () => {
    const heavy = broadTargets(site([run({ run: 'ours', label: 'ours', ofIdeal: 0.9, peakRssMiB: 170, saved: { pages: 20_001, missing: 0, extra: 0, duplicates: 0, missingExamples: [], extraExamples: [] }, ids: { files: 20_001, highest: 20_001, gaps: 0, twice: 0, dense: true } })], 2000, 10));
    assert.match(heavy[0]!.what, /peak RSS < 160 MiB/);
    assert.deepEqual(heavy.map((x) => x.met), [false, true]);
  });

  it('says "not measured" for a run asked for that could not run, and nothing for one not asked for', () => {
    const t = broadTargets(site([run({ run: 'ours', label: 'ours' }), skippedRun('pg', 'pg4', 'PostgreSQL: no server')]));
    const pg = t.find((x) => x.what.includes('PostgreSQL workers'))!;
    assert.equal(pg.met, false);
    assert.match(pg.measured, /not measured \(PostgreSQL: no server\)/);
    assert.equal(broadTargets(site([run({ run: 'ours', label: 'ours' })])).some((x) => x.what.includes('PostgreSQL')), false);
  });

  it('has no fraction targets for other sizes, only every page once and every interval held', () => {
    const t = broadTargets({ ...site([run({ run: 'ours', label: 'ours', ofIdeal: 0.1 })]), hosts: 50, pages: 5, delaySeconds: 0.2 });
    assert.equal(t.length, 1);
    assert.match(t[0]!.what, /every page saved once/);
  });

  it('prints each target with met or NOT MET under the table', () => {
    const s = site([run({ run: 'ours', label: 'ours', ofIdeal: 0.5 })]);
    const text = formatBroadSite({ ...s, targets: broadTargets(s) }).join('\n');
    assert.match(text, /ideal 21\.20 s = 471\.7 pages\/s/);
    assert.match(text, /target: ours >= 0\.9 of the ideal.*: NOT MET/);
    assert.match(text, /target: ours: every page saved once.*: met/);
  });
});

describe('the memory per host', () => {
  const ours = (peakRssMiB: number): BroadRun => run({ run: 'ours', label: 'ours', peakRssMiB });
  const withTargets = (s: Omit<BroadSiteResult, 'targets'>): BroadSiteResult => ({ ...s, targets: broadTargets(s) });

  it('the full section measures it at 1,000 and 10,000 hosts of 2 pages, ours alone', () => {
    const memory = BROAD_SITES.filter((s) => s.pages === 2);
    assert.deepEqual(memory.map((s) => [s.hosts, s.runs]), [[1000, ['ours']], [10_000, ['ours']]]);
  });

  it('is what the 9,000 more hosts add to the peak RSS, per host, in KiB', () => {
    const sites = [withTargets(site([ours(80)], 1000, 2)), withTargets(site([ours(116)], 10_000, 2))];
    const m = memoryPerHost(sites);
    assert.ok(m !== undefined);
    close(m.kibPerHost, (36 * 1024) / 9000, 'KiB per host');
    assert.deepEqual(m.peakRssMiB, [80, 116]);
    assert.match(formatBroad({ sites, memoryPerHost: m }).join('\n'), /Memory per host: ours' peak RSS 80 MiB at 1,000 hosts and 116 MiB at 10,000 \(2 pages each\): 4\.1 KiB for each host more/);
  });

  it('is not measured when either site did not run ours', () => {
    assert.equal(memoryPerHost([withTargets(site([ours(80)], 1000, 2))]), undefined);
    assert.equal(memoryPerHost([withTargets(site([ours(80)], 1000, 2)), withTargets(site([skippedRun('ours', 'ours', 'no bundle')], 10_000, 2))]), undefined);
  });
});

describe('the broad command', () => {
  it('runs issue 30\'s first site by default and the small one with --quick', () => {
    assert.deepEqual({ ...parseBroadArgs([]).spec, runs: undefined }, { hosts: 500, pages: 20, delaySeconds: 1, latencyMs: 100, runs: undefined });
    const q = parseBroadArgs(['--quick', '--runs', 'ours']);
    assert.deepEqual([q.spec.hosts, q.spec.pages, q.spec.delaySeconds, q.spec.runs], [50, 5, 0.2, ['ours']]);
  });
  it('runs the crawls at niceness 10 unless --nice says otherwise (0: as the bench runs)', () => {
    assert.equal(parseBroadArgs([]).nice, 10);
    assert.equal(parseBroadArgs(['--nice', '0']).nice, 0);
    assert.equal(parseBroadArgs(['--nice', '19']).nice, 19);
    assert.throws(() => parseBroadArgs(['--nice', '20']), /--nice is at most 19/);
    assert.throws(() => parseBroadArgs(['--nice', '-5']), /--nice needs a whole number of at least 0, got "-5"/);
  });
  it('refuses bad values with the option named', () => {
    assert.throws(() => parseBroadArgs(['--hosts', '0']), /--hosts needs a whole number of at least 1, got "0"/);
    assert.throws(() => parseBroadArgs(['--pages', '2.5']), /--pages needs a whole number/);
    assert.throws(() => parseBroadArgs(['--delay', '']), /--delay needs a number/);
    assert.throws(() => parseBroadArgs(['--runs', 'ours,wget']), /--runs takes ours, scrapy, pg, got "wget"/);
    assert.throws(() => parseBroadArgs(['--hosts']), /--hosts needs a value/);
    assert.throws(() => parseBroadArgs(['--fast', '1']), /unknown option --fast/);
    assert.throws(() => parseBroadArgs(['--hosts', String(MAX_HOSTS + 1)]), /--hosts is at most/);
  });
});
