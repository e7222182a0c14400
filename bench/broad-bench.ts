/**
 * The bench's `broad` section (issue 30): crawls over many loopback hosts,
 * measured against the politeness bound. For each site (bench/broad-shape.ts,
 * served by bench/broad-site.ts in its own process) the runs of
 * bench/broad-runs.ts go in turn: ours, Scrapy, ours as PostgreSQL
 * workers. Per run: pages/s against the ideal (bench/broad-stats.ts), the
 * least gap between request starts per host at the server, CPU per page and
 * peak RSS, and a check that every page was saved once; then issue 30's
 * targets, met or not.
 *
 * Also a command, for one site:
 *   node dist/bench/broad-bench.js [--quick] [--hosts N] [--pages N]
 *     [--delay S] [--latency MS] [--runs ours,scrapy,pg] [--concurrency N]
 *     [--workers N] [--nice N] [--json FILE] [--scratch DIR]
 * prints the same table (exit 1 when a check or target failed).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROAD_RUNS, runOurs, runScrapy, runWorkers, shortfall, type BroadContext, type BroadRun, type BroadRunName } from './broad-runs.js';
import { hostAddress, MAX_HOSTS } from './broad-shape.js';
import { startBroadSite } from './broad-site.js';
import { broadIdeal, type BroadIdeal } from './broad-stats.js';
import { postgres, type PgServer } from './postgres.js';

/** A site of the section and the runs on it. */
export interface BroadSiteSpec {
  hosts: number;
  pages: number;
  delaySeconds: number;
  latencyMs: number;
  runs: readonly BroadRunName[];
}

/**
 * Memory per host (issue 30: measured at 10,000 hosts): ours alone on two
 * sites of 2 pages a host, 1,000 and 10,000 hosts; what the 9,000 more hosts
 * add to the peak RSS, per host.
 */
export const MEMORY_SITES: readonly BroadSiteSpec[] = [1000, 10_000].map((hosts) => ({ hosts, pages: 2, delaySeconds: 1, latencyMs: 100, runs: ['ours'] }));

/** The full section's sites: issue 30's two sizes, every run on each; then the memory per host. */
export const BROAD_SITES: readonly BroadSiteSpec[] = [
  { hosts: 500, pages: 20, delaySeconds: 1, latencyMs: 100, runs: BROAD_RUNS },
  { hosts: 2000, pages: 10, delaySeconds: 1, latencyMs: 100, runs: BROAD_RUNS },
  ...MEMORY_SITES,
];

/** `--quick`: one small site with a short delay, for development (well under a minute). */
export const BROAD_QUICK: BroadSiteSpec = { hosts: 50, pages: 5, delaySeconds: 0.2, latencyMs: 100, runs: BROAD_RUNS };

/** Requests in flight over all of a run's processes, and the pg run's worker processes. */
export const BROAD_CONCURRENCY = 256;
export const BROAD_WORKERS = 4;

/**
 * The runs' processes go at this niceness, the site's server at the bench's
 * own, so that the server, which measures each host's least gap, is not
 * the one that waits for a core. On a two-core machine saturated by a run
 * (the crawler, or four workers and PostgreSQL, and the site), a request
 * can reach the server's socket some tens of milliseconds after the
 * crawler wrote it, and a host's next request on time: the arrival windows
 * then show a gap below the interval that the crawler's own clock does not
 * (traced: written 1,001.7 ms apart, seen 17 ms and 0.1 ms after writing).
 * Measured at 500 x 20 with four PostgreSQL workers (docs/performance.md):
 * a host below 1 s in 5 of 12 runs at niceness 0; with the workers at 10, in
 * 1 of 9 (PostgreSQL, at 0, took the cores from the server then); with
 * PostgreSQL at 10 as well, in 1 of 19; pages/s within the noise. So
 * Scrapy's run and the cluster the bench starts for the pg run get the same
 * niceness. `--nice 0` turns it off.
 */
export const BROAD_NICE = 10;

/** A target of issue 30, evaluated. */
export interface BroadTarget {
  what: string;
  measured: string;
  met: boolean;
}

export interface BroadSiteResult extends Omit<BroadSiteSpec, 'runs'> {
  concurrency: number;
  workers: number;
  ideal: BroadIdeal;
  runs: BroadRun[];
  targets: BroadTarget[];
}

/** Ours' peak RSS on the two memory sites, and what each host beyond the first site's adds. */
export interface MemoryPerHost {
  hosts: [number, number];
  peakRssMiB: [number, number];
  kibPerHost: number;
}

export interface BroadResults {
  sites: BroadSiteResult[];
  /** When both MEMORY_SITES ran ours. */
  memoryPerHost?: MemoryPerHost;
}

/** The memory per host from ours' runs on the memory sites (undefined unless both ran). */
export function memoryPerHost(sites: readonly BroadSiteResult[]): MemoryPerHost | undefined {
  const peaks = MEMORY_SITES.map((m) => sites.find((s) => s.hosts === m.hosts && s.pages === m.pages)?.runs.find((r) => r.run === 'ours' && r.available));
  const [a, b] = peaks;
  if (a === undefined || b === undefined) return undefined;
  const hosts: [number, number] = [MEMORY_SITES[0]!.hosts, MEMORY_SITES[1]!.hosts];
  return { hosts, peakRssMiB: [a.peakRssMiB, b.peakRssMiB], kibPerHost: ((b.peakRssMiB - a.peakRssMiB) * 1024) / (hosts[1] - hosts[0]) };
}

/** Issue 30's targets for a site's size (delay 1 s, 100 ms latency): least fraction of the ideal, and peak RSS. */
const SIZE_TARGETS: ReadonlyArray<{ hosts: number; pages: number; ours: number; oursRssMiB?: number; pg?: number }> = [
  { hosts: 500, pages: 20, ours: 0.9, pg: 0.85 },
  { hosts: 2000, pages: 10, ours: 0.85, oursRssMiB: 160 },
];

const f = (x: number, digits: number): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

/**
 * Issue 30's targets for a site, over the runs that were asked for (a run
 * asked for but not available is "not measured", not met): on 500 x 20,
 * ours at least 0.9 of the ideal with every host's interval holding and 4
 * PostgreSQL workers at least 0.85; on 2,000 x 10, ours at least 0.85 and
 * peak RSS under 160 MiB (both at delay 1 s and 100 ms latency); on every
 * site, each of our runs holds every host's interval at the server and
 * saves every page once.
 */
export function broadTargets(site: Omit<BroadSiteResult, 'targets'>): BroadTarget[] {
  const out: BroadTarget[] = [];
  const ours = site.runs.find((r) => r.run === 'ours');
  const pg = site.runs.find((r) => r.run === 'pg');
  const size = site.delaySeconds === 1 && site.latencyMs === 100 ? SIZE_TARGETS.find((t) => t.hosts === site.hosts && t.pages === site.pages) : undefined;
  const ratio = (r: BroadRun | undefined, least: number, what: string, extra?: { ok: boolean; text: string }): void => {
    if (r === undefined) return;
    if (!r.available) return void out.push({ what, measured: `not measured (${r.note ?? ''})`, met: false });
    const ok = r.ofIdeal >= least && (extra?.ok ?? true);
    out.push({ what, measured: `${f(r.ofIdeal, 2)} of the ideal${extra === undefined ? '' : `, ${extra.text}`}`, met: ok });
  };
  if (size !== undefined) {
    if (size.oursRssMiB !== undefined) {
      ratio(ours, size.ours, `ours >= ${size.ours} of the ideal, peak RSS < ${size.oursRssMiB} MiB`, ours === undefined ? undefined : { ok: ours.peakRssMiB < size.oursRssMiB, text: `peak RSS ${f(ours.peakRssMiB, 0)} MiB` });
    } else {
      ratio(ours, size.ours, `ours >= ${size.ours} of the ideal, every host's interval holding`, ours === undefined ? undefined : { ok: ours.gaps.hostsBelow === 0, text: `${ours.gaps.hostsBelow} hosts below the interval` });
    }
    if (size.pg !== undefined) ratio(pg, size.pg, `${site.workers} PostgreSQL workers >= ${size.pg} of the ideal`);
  }
  for (const r of [ours, pg]) {
    if (r === undefined || !r.available) continue;
    const why = shortfall(r, site.ideal.pages);
    out.push({ what: `${r.label}: every page saved once, every host's least gap >= ${site.delaySeconds} s`, measured: `${why === '' ? 'all pages once' : why}; least gap ${f(r.gaps.leastGapMs / 1000, 3)} s, ${r.gaps.hostsBelow} hosts below`, met: why === '' && r.gaps.hostsBelow === 0 });
  }
  return out;
}

/** The problems for the bench's summary: every target not met. */
export function broadProblems(r: BroadResults): string[] {
  return r.sites.flatMap((s) => s.targets.filter((t) => !t.met).map((t) => `broad ${s.hosts} x ${s.pages}: ${t.what}: ${t.measured}`));
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => '  ' + r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
}

/** One site's table, server lines and targets. */
export function formatBroadSite(s: BroadSiteResult): string[] {
  const i = s.ideal;
  const lines = [
    `Broad crawl: ${s.hosts.toLocaleString('en-US')} hosts x ${s.pages} pages (${i.pages.toLocaleString('en-US')} pages, ${i.requests.toLocaleString('en-US')} requests with robots.txt), every answer ${s.latencyMs} ms late, delay ${s.delaySeconds} s, concurrency ${s.concurrency}: ideal ${f(i.seconds, 2)} s = ${f(i.pagesPerSecond, 1)} pages/s`,
  ];
  const rows = [['run', 'pages', 'wall s', 'pages/s', 'of ideal', 'crawl of ideal', 'least gap s', 'hosts below', 'CPU us/page', 'peak RSS MiB', 'check']];
  for (const r of s.runs) {
    if (!r.available) rows.push([r.label, '-', '-', '-', '-', '-', '-', '-', '-', '-', r.note ?? 'not run']);
    else {
      rows.push([r.label, `${r.saved.pages}/${i.pages}`, f(r.wallSeconds, 2), f(r.pagesPerSecond, 1), f(r.ofIdeal, 2), f(r.spanOfIdeal, 2), f(r.gaps.leastGapMs / 1000, 3), `${r.gaps.hostsBelow}/${r.gaps.hostsMeasured}`, f(r.cpuMicrosPerPage, 0), f(r.peakRssMiB, 0), r.check]);
    }
  }
  lines.push(...table(rows));
  for (const r of s.runs.filter((x) => x.available)) {
    lines.push(
      `  ${r.label}: start-up ${f(r.startupSeconds, 2)} s, crawl ${f(r.spanSeconds, 2)} s; least gap on ${r.gaps.worstHost < 0 ? 'no host' : hostAddress(r.gaps.worstHost)}${r.gaps.worstPair === undefined ? '' : `, ${r.gaps.worstPair[0]} then ${r.gaps.worstPair[1]}`}; server saw ${r.requests} requests (${r.pagesServed} pages, ${r.robotsServed} robots.txt, ${r.notFound} 404, ${r.fetchedTwice} pages fetched again), loop delay max ${f(r.server.loopDelayMaxMs, 0)} ms, answers at most ${f(r.server.lateMaxMs, 0)} ms late, ${f(r.server.cpuSeconds, 1)} s CPU, ${r.server.peakConnections} connections at most${r.server.acceptErrors > 0 ? ` (${r.server.acceptErrors} it could not accept)` : ''}; ${r.stderrLines} lines on stderr${r.stderrLines > 0 ? `, first: ${JSON.stringify(r.stderrFirst)}` : ''}`,
    );
  }
  lines.push(`  (of ideal = pages/s over the ideal's; crawl of ideal = the ideal over first request to last answer at the server; least gap = per host, the least time between two request starts the arrival windows allow, the least over hosts; hosts below = hosts whose least gap is under the delay; CPU = user+sys of the crawler processes, PostgreSQL's not included)`);
  for (const t of s.targets) lines.push(`  target: ${t.what}: ${t.measured}: ${t.met ? 'met' : 'NOT MET'}`);
  return lines;
}

/** The section as table lines. */
export function formatBroad(r: BroadResults): string[] {
  const lines = r.sites.flatMap((s, k) => [...(k > 0 ? [''] : []), ...formatBroadSite(s)]);
  const m = r.memoryPerHost;
  if (m !== undefined) {
    lines.push('', `Memory per host: ours' peak RSS ${f(m.peakRssMiB[0], 0)} MiB at ${m.hosts[0].toLocaleString('en-US')} hosts and ${f(m.peakRssMiB[1], 0)} MiB at ${m.hosts[1].toLocaleString('en-US')} (2 pages each): ${f(m.kibPerHost, 1)} KiB for each host more`);
  }
  return lines;
}

export interface BroadOptions {
  repo: string;
  /** Where the page directories go (a directory of its own is made below it and removed). */
  scratch: string;
  sites: readonly BroadSiteSpec[];
  concurrency?: number;
  workers?: number;
  /** The runs' niceness (default BROAD_NICE). */
  nice?: number;
  log: (line: string) => void;
}

/** Runs the section: each site's server, then its runs in turn. */
export async function broadSection(o: BroadOptions): Promise<BroadResults> {
  const concurrency = o.concurrency ?? BROAD_CONCURRENCY;
  const workers = o.workers ?? BROAD_WORKERS;
  for (const s of o.sites) if (s.hosts < 1 || s.hosts > MAX_HOSTS || s.pages < 1) throw new Error(`a broad site needs 1 to ${MAX_HOSTS} hosts and at least 1 page each, got ${s.hosts} x ${s.pages}`);
  const work = mkdtempSync(join(o.scratch, 'broad-'));
  const wantPg = o.sites.some((s) => s.runs.includes('pg'));
  // Each worker's store opens a connection per lane and one more (src/programs/tse-worker.ts).
  const connections = workers * (Math.ceil(concurrency / workers) + 1) + 20;
  const server: PgServer | { skip: string } = wantPg ? await postgres(Math.max(100, connections), o.nice ?? BROAD_NICE).catch((e: unknown) => ({ skip: String(e) })) : { skip: 'not asked for' };
  if (wantPg && 'skip' in server) o.log(`  broad: the PostgreSQL run is skipped: ${server.skip}`);
  const results: BroadResults = { sites: [] };
  try {
    for (const spec of o.sites) {
      const ideal = broadIdeal(spec, spec.delaySeconds, spec.latencyMs / 1000);
      const site = await startBroadSite({ hosts: spec.hosts, pages: spec.pages, latencyMs: spec.latencyMs }, spec.runs.includes('pg') ? workers : 1);
      o.log(`  broad: ${spec.hosts} hosts x ${spec.pages} pages on port ${site.port} (server pid ${site.pid}), delay ${spec.delaySeconds} s, latency ${spec.latencyMs} ms: ideal ${ideal.seconds.toFixed(2)} s`);
      if (site.note !== undefined) o.log(`  broad: ${site.note}`);
      const c: BroadContext = { repo: o.repo, site, shape: spec, delaySeconds: spec.delaySeconds, latencyMs: spec.latencyMs, ideal, concurrency, workers, nice: o.nice ?? BROAD_NICE, work, pg: 'url' in server ? { url: server.url, ...(server.socketUrl === undefined ? {} : { socketUrl: server.socketUrl }) } : server, log: o.log };
      const runs: BroadRun[] = [];
      try {
        for (const name of spec.runs) {
          const r = name === 'ours' ? await runOurs(c) : name === 'scrapy' ? await runScrapy(c) : await runWorkers(c);
          runs.push(r);
          if (r.available && (r.timedOut || r.exitCodes.some((x) => x !== 0))) o.log(`  broad: ${r.label}: stderr: ${r.stderrTail}`);
          o.log(r.available ? `  broad: ${r.label}: ${r.saved.pages}/${ideal.pages} pages in ${r.wallSeconds.toFixed(2)} s, ${r.ofIdeal.toFixed(2)} of the ideal, least gap ${(r.gaps.leastGapMs / 1000).toFixed(3)} s` : `  broad: ${r.label}: ${r.note ?? 'not run'}`);
        }
      } finally {
        await site.stop();
      }
      const { runs: _, ...shape } = spec;
      const result = { ...shape, concurrency, workers, ideal, runs };
      results.sites.push({ ...result, targets: broadTargets(result) });
    }
  } finally {
    if ('url' in server) server.stop();
    rmSync(work, { recursive: true, force: true });
  }
  const perHost = memoryPerHost(results.sites);
  return perHost === undefined ? results : { ...results, memoryPerHost: perHost };
}

const USAGE = 'usage: node dist/bench/broad-bench.js [--quick] [--hosts N] [--pages N] [--delay S] [--latency MS] [--runs ours,scrapy,pg] [--concurrency N] [--workers N] [--nice N] [--json FILE] [--scratch DIR]';

/** The command's options as one site spec and the rest. */
export function parseBroadArgs(argv: readonly string[]): { spec: BroadSiteSpec; concurrency: number; workers: number; nice: number; json: string | undefined; scratch: string } {
  const quick = argv.includes('--quick');
  const spec: { -readonly [K in keyof BroadSiteSpec]: BroadSiteSpec[K] } = quick ? { ...BROAD_QUICK } : { ...BROAD_SITES[0]! };
  let concurrency = BROAD_CONCURRENCY;
  let workers = BROAD_WORKERS;
  let nice = BROAD_NICE;
  let json: string | undefined;
  let scratch = tmpdir();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--quick') continue;
    const v = argv[++i];
    if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
    const num = (least: number, whole: boolean): number => {
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n) || n < least || (whole && !Number.isInteger(n))) throw new Error(`${a} needs ${whole ? 'a whole number' : 'a number'} of at least ${least}, got "${v}"`);
      return n;
    };
    if (a === '--hosts') spec.hosts = num(1, true);
    else if (a === '--pages') spec.pages = num(1, true);
    else if (a === '--delay') spec.delaySeconds = num(0, false);
    else if (a === '--latency') spec.latencyMs = num(0, false);
    else if (a === '--concurrency') concurrency = num(1, true);
    else if (a === '--workers') workers = num(1, true);
    else if (a === '--nice') {
      nice = num(0, true);
      if (nice > 19) throw new Error(`--nice is at most 19 (nice(1)), got "${v}"`);
    }
    else if (a === '--json') json = v;
    else if (a === '--scratch') scratch = v;
    else if (a === '--runs') {
      const list = v.split(',');
      for (const r of list) if (!(BROAD_RUNS as readonly string[]).includes(r)) throw new Error(`--runs takes ${BROAD_RUNS.join(', ')}, got "${r}"`);
      spec.runs = list as BroadRunName[];
    } else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  if (spec.hosts > MAX_HOSTS) throw new Error(`--hosts is at most ${MAX_HOSTS}`);
  return { spec, concurrency, workers, nice, json, scratch };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const main = async (): Promise<void> => {
    const o = parseBroadArgs(process.argv.slice(2));
    process.stderr.write(`broad-bench: load average ${loadavg()[0]!.toFixed(1)}\n`);
    mkdirSync(o.scratch, { recursive: true });
    const r = await broadSection({ repo, scratch: o.scratch, sites: [o.spec], concurrency: o.concurrency, workers: o.workers, nice: o.nice, log: (l) => process.stderr.write(`${l}\n`) });
    console.log(formatBroad(r).join('\n'));
    if (o.json !== undefined) writeFileSync(o.json, JSON.stringify(r, null, 2) + '\n');
    if (broadProblems(r).length > 0) process.exitCode = 1;
  };
  main().catch((err: unknown) => {
    console.error(`broad-bench: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  });
}
