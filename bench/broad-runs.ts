/**
 * The broad section's runs (issue 30), each on the running broad site and
 * each measured the same way: wall time from the first process's spawn to
 * the last one's exit, CPU (user + sys, summed over processes) and peak RSS
 * (the largest process) from bench/measure.ts, and from the site's server
 * every request's arrival per host, so each host's least gap between
 * request starts. What each run saved is checked against the site's pages.
 *
 * - ours: `crawler --delay D --concurrency C --quiet SCOPE SEED DIR 2`;
 * - pg: W processes `crawler --frontier postgresql://... --concurrency C/W`
 *   with the same flags, each into its own DIR, sharing a fresh database;
 * - scrapy: bench/scrapy-peer.ts's spider with the same politeness.
 *
 * SCOPE covers every host: the first flag of ANY_HOST_FLAGS that
 * `./crawler --help` lists, else one `--internal ORIGIN/` per host.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expectedUrls, origin, seedUrl, type BroadShape } from './broad-shape.js';
import type { BroadRecords, BroadSite } from './broad-site.js';
import { checkIds, gapSummary, hostGaps, type BroadIdeal, type GapSummary, type IdCheck } from './broad-stats.js';
import { runMeasured, type Measured } from './measure.js';
import { firstLine, helpLists } from './peers.js';
import { freshDatabase } from './postgres.js';
import { findScrapy, spiderArgs } from './scrapy-peer.js';
import { countPages, describeCount, type PageCount } from './stats.js';

/** The runs, in the order they go. */
export const BROAD_RUNS = ['ours', 'scrapy', 'pg'] as const;
export type BroadRunName = (typeof BROAD_RUNS)[number];

/**
 * Flags of `crawler` that put every host in scope with one argument, best
 * first (issue 30 asks for "any host"); while `--help` lists none of them
 * the run passes one `--internal` per host. A domain scope
 * (`--internal-domain`) does not fit: the site's hosts are IP addresses.
 */
export const ANY_HOST_FLAGS: string[][] = [['--any-host']];

/** Everything a run needs to know about the site and the settings. */
export interface BroadContext {
  repo: string;
  site: BroadSite;
  shape: BroadShape;
  delaySeconds: number;
  latencyMs: number;
  /** Requests in flight at once, over all of a run's processes. */
  concurrency: number;
  /** Worker processes of the pg run. */
  workers: number;
  /** A directory for page directories and scripts (each run makes its own below it). */
  work: string;
  /** The site's politeness bound at these settings. */
  ideal: BroadIdeal;
  /** PostgreSQL for the pg run: an admin URL, or why there is none. */
  /** socketUrl: the same server through its Unix socket (the workers connect through it when there is one). */
  pg: { url: string; socketUrl?: string } | { skip: string };
  /**
   * The niceness the runs' processes get (nice(1)), the site server's
   * staying 0: see BROAD_NICE.
   */
  nice: number;
  log: (line: string) => void;
}

/** One run's figures. */
export interface BroadRun {
  run: BroadRunName;
  label: string;
  /** The command (a long scope folded). */
  command: string;
  available: boolean;
  note?: string;
  processes: number;
  exitCodes: Array<number | null>;
  timedOut: boolean;
  /** Lines the processes wrote on stderr (with --quiet a private crawl writes none unless something is wrong), and the last few. */
  stderrLines: number;
  /** The first line on stderr (a warning such as MaxListenersExceededWarning shows here), shortened to 120 characters. */
  stderrFirst: string;
  stderrTail: string;
  wallSeconds: number;
  /** Spawn to the first request at the server. */
  startupSeconds: number;
  /** First request's arrival to the last answer sent, at the server. */
  spanSeconds: number;
  /** Expected pages saved (each once) / wall. */
  pagesPerSecond: number;
  /** pagesPerSecond / the ideal's. */
  ofIdeal: number;
  /** The ideal seconds / spanSeconds: the crawl without start-up and exit. */
  spanOfIdeal: number;
  cpuSeconds: number;
  cpuMicrosPerPage: number;
  peakRssMiB: number;
  saved: PageCount;
  /** ours and pg: the page files' IDs (across the workers for pg). */
  ids?: IdCheck;
  requests: number;
  pagesServed: number;
  robotsServed: number;
  notFound: number;
  fetchedTwice: number;
  gaps: GapSummary;
  server: Pick<BroadRecords, 'loopDelayMaxMs' | 'loopDelayP99Ms' | 'lateMaxMs' | 'cpuSeconds' | 'peakConnections' | 'acceptErrors'>;
  /** 'ok' when every page was saved once (for ours under IDs 1..N) and every process exited 0; else what went wrong. */
  check: string;
}

/**
 * What keeps a run from being complete: pages missing, extra or saved
 * twice, page IDs that are not 1..N, a timeout, a process that did not exit
 * 0; '' when nothing does.
 */
export function shortfall(r: BroadRun, expected: number): string {
  if (!r.available) return r.note ?? 'not run';
  const parts: string[] = [];
  if (r.saved.pages !== expected || r.saved.missing > 0 || r.saved.extra > 0 || r.saved.duplicates > 0) parts.push(describeCount(r.saved, expected));
  if (r.ids !== undefined && (!r.ids.dense || r.ids.files !== expected)) parts.push(`IDs: ${r.ids.files} files up to ${r.ids.highest}, ${r.ids.gaps} missing, ${r.ids.twice} twice`);
  if (r.timedOut) parts.push('timed out');
  const bad = r.exitCodes.filter((x) => x !== 0);
  if (bad.length > 0) parts.push(`exit ${bad.join(', ')}`);
  return parts.join('; ');
}

/** A run that did not happen, with why. */
export function skippedRun(run: BroadRunName, label: string, note: string): BroadRun {
  const none: PageCount = { pages: 0, missing: 0, extra: 0, duplicates: 0, missingExamples: [], extraExamples: [] };
  return {
    run, label, command: '', available: false, note, processes: 0, exitCodes: [], timedOut: false, stderrLines: 0, stderrFirst: '', stderrTail: '',
    wallSeconds: NaN, startupSeconds: NaN, spanSeconds: NaN, pagesPerSecond: NaN, ofIdeal: NaN, spanOfIdeal: NaN,
    cpuSeconds: NaN, cpuMicrosPerPage: NaN, peakRssMiB: NaN, saved: none, requests: 0, pagesServed: 0, robotsServed: 0,
    notFound: 0, fetchedTwice: 0, gaps: gapSummary([], 0),
    server: { loopDelayMaxMs: NaN, loopDelayP99Ms: NaN, lateMaxMs: NaN, cpuSeconds: NaN, peakConnections: 0, acceptErrors: 0 }, check: note,
  };
}

/** A bound on each run: generous (today's crawls take up to 10x the ideal), so that only a hang meets it. */
function timeoutMs(c: BroadContext): number {
  return Math.max(120, 100 * c.ideal.seconds) * 1000 + 60_000;
}

/** The scope arguments and how the command shows them. */
function scopeOf(c: BroadContext): { args: string[]; shown: string } {
  const flags = ANY_HOST_FLAGS.find((f) => helpLists(join(c.repo, 'crawler'), f[0]!, c.repo));
  if (flags !== undefined) return { args: flags, shown: flags.join(' ') };
  const port = c.site.port;
  const args = Array.from({ length: c.shape.hosts }, (_, k) => ['--internal', `${origin(k, port)}/`]).flat();
  const shown = c.shape.hosts === 1 ? args.join(' ') : `--internal ${origin(0, port)}/ ... --internal ${origin(c.shape.hosts - 1, port)}/ (${c.shape.hosts} flags)`;
  return { args, shown };
}

const shorten = (line: string): string => (line.length > 120 ? `${line.slice(0, 117)}...` : line);

/** IDs and URLs of the numbered page files in `dirs`. */
function readPageFiles(dirs: readonly string[]): { ids: number[]; urls: string[] } {
  const ids: number[] = [];
  const urls: string[] = [];
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) {
      if (!/^[1-9][0-9]*$/.test(name)) continue;
      ids.push(Number(name));
      urls.push(firstLine(join(dir, name)));
    }
  }
  return { ids, urls };
}

/**
 * Runs `starts` (one per process, together), then asks the server what it
 * saw and builds the run's figures; `saved()` reads what the run saved.
 */
async function measure(
  c: BroadContext,
  head: { run: BroadRunName; label: string; command: string },
  starts: ReadonlyArray<() => Promise<Measured>>,
  saved: () => { urls: string[]; ids?: number[] },
): Promise<BroadRun> {
  const ideal = c.ideal;
  await c.site.reset();
  const ms = await Promise.all(starts.map((s) => s()));
  const records = await c.site.collect();
  const spawned = Math.min(...ms.map((m) => m.startedAt));
  const wallSeconds = (Math.max(...ms.map((m) => m.startedAt + m.wallSeconds * 1000)) - spawned) / 1000;
  const s = saved();
  const count = countPages(s.urls, expectedUrls(c.shape, c.site.port));
  const ids = s.ids === undefined ? undefined : checkIds(s.ids);
  const firstAt = records.arrivals.reduce((t, a) => a.reduce((u, x) => Math.min(u, x.at), t), Infinity);
  const cpuSeconds = ms.reduce((t, m) => t + m.cpuSeconds, 0);
  const pagesPerSecond = count.pages / wallSeconds;
  const spanSeconds = (records.lastSentAt - firstAt) / 1000;
  const exitCodes = ms.map((m) => m.exitCode);
  const run: BroadRun = {
    ...head,
    available: true,
    processes: ms.length,
    exitCodes,
    timedOut: ms.some((m) => m.timedOut),
    stderrLines: ms.reduce((t, m) => t + m.stderr.split('\n').filter((l) => l.trim() !== '').length, 0),
    stderrFirst: shorten(ms.flatMap((m) => m.stderr.split('\n')).find((l) => l.trim() !== '') ?? ''),
    stderrTail: ms.map((m) => m.stderr.trim().slice(-400)).filter((x) => x !== '').join('\n---\n'),
    wallSeconds,
    startupSeconds: (records.timeOrigin + firstAt - spawned) / 1000,
    spanSeconds,
    pagesPerSecond,
    ofIdeal: pagesPerSecond / ideal.pagesPerSecond,
    spanOfIdeal: ideal.seconds / spanSeconds,
    cpuSeconds,
    cpuMicrosPerPage: (cpuSeconds / count.pages) * 1e6,
    peakRssMiB: Math.max(...ms.map((m) => m.maxRssMiB)),
    saved: count,
    ...(ids === undefined ? {} : { ids }),
    requests: records.arrivals.reduce((t, a) => t + a.length, 0),
    pagesServed: records.pagesServed,
    robotsServed: records.robotsServed,
    notFound: records.notFound,
    fetchedTwice: records.fetchedTwice,
    gaps: gapSummary(records.arrivals.map((a, k) => hostGaps(k, a)), c.delaySeconds * 1000),
    server: { loopDelayMaxMs: records.loopDelayMaxMs, loopDelayP99Ms: records.loopDelayP99Ms, lateMaxMs: records.lateMaxMs, cpuSeconds: records.cpuSeconds, peakConnections: records.peakConnections, acceptErrors: records.acceptErrors },
    check: '',
  };
  run.check = shortfall(run, ideal.pages) || 'ok';
  return run;
}

/** Our crawler, one process. */
export async function runOurs(c: BroadContext): Promise<BroadRun> {
  const scope = scopeOf(c);
  const dir = mkdtempSync(join(c.work, 'broad-ours-'));
  const flags = ['--delay', String(c.delaySeconds), '--concurrency', String(c.concurrency), '--quiet'];
  const tail = [seedUrl(c.site.port), dir, '2'];
  const command = `./crawler ${flags.join(' ')} ${scope.shown} ${seedUrl(c.site.port)} DIR 2`;
  const limit = timeoutMs(c);
  try {
    return await measure(c, { run: 'ours', label: 'ours', command }, [() => runMeasured(join(c.repo, 'crawler'), [...flags, ...scope.args, ...tail], { cwd: c.repo, timeoutMs: limit, nice: c.nice })], () => readPageFiles([dir]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Our crawler as `workers` processes of one crawl shared through PostgreSQL, the concurrency split between them. */
export async function runWorkers(c: BroadContext): Promise<BroadRun> {
  const label = `ours, ${c.workers} PG workers`;
  if ('skip' in c.pg) return skippedRun('pg', label, `PostgreSQL: ${c.pg.skip}`);
  const name = `pc_bench_broad_${c.shape.hosts}`;
  const tcp = await freshDatabase(c.pg.url, name);
  // Workers on the database's machine connect through its Unix socket, as psql does there: the
  // loopback TCP of every call would take CPU from the crawl and the site on a two-core machine.
  const db = c.pg.socketUrl === undefined ? tcp : c.pg.socketUrl.replace('/postgres?', `/${name}?`);
  const scope = scopeOf(c);
  const lanes = Math.max(1, Math.floor(c.concurrency / c.workers));
  const flags = ['--frontier', db, '--delay', String(c.delaySeconds), '--concurrency', String(lanes), '--quiet'];
  const parent = mkdtempSync(join(c.work, 'broad-pg-'));
  const dirs = Array.from({ length: c.workers }, (_, w) => join(parent, `worker-${w + 1}`));
  for (const d of dirs) mkdirSync(d);
  const command = `${c.workers} x ./crawler ${flags.join(' ').replace(db, 'postgresql://...')} ${scope.shown} ${seedUrl(c.site.port)} DIR-W 2`;
  const limit = timeoutMs(c);
  try {
    const starts = dirs.map((dir) => () => runMeasured(join(c.repo, 'crawler'), [...flags, ...scope.args, seedUrl(c.site.port), dir, '2'], { cwd: c.repo, timeoutMs: limit, nice: c.nice }));
    return await measure(c, { run: 'pg', label, command }, starts, () => readPageFiles(dirs));
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}

/** Scrapy with the same politeness. */
export async function runScrapy(c: BroadContext): Promise<BroadRun> {
  const found = findScrapy();
  if ('skip' in found) return skippedRun('scrapy', 'Scrapy', found.skip);
  const label = `Scrapy ${found.version}`;
  const dir = mkdtempSync(join(c.work, 'broad-scrapy-'));
  const out = join(dir, 'pages.txt');
  const args = spiderArgs(dir, seedUrl(c.site.port), 2, c.concurrency, c.delaySeconds, out);
  const command = `${found.python} broad_spider.py ${args.slice(1, -1).join(' ')} OUT (DOWNLOAD_DELAY ${c.delaySeconds}, CONCURRENT_REQUESTS ${c.concurrency}, 1 per host and per IP, DEPTH_PRIORITY 1, FIFO queues, ROBOTSTXT_OBEY)`;
  const limit = timeoutMs(c);
  try {
    return await measure(c, { run: 'scrapy', label, command }, [() => runMeasured(found.python, args, { cwd: dir, timeoutMs: limit, nice: c.nice })], () => {
      let text = '';
      try {
        text = readFileSync(out, 'utf8');
      } catch {
        // Scrapy did not start: nothing saved
      }
      return { urls: text.split('\n').filter((l) => l !== '') };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
