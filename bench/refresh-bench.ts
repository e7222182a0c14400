/**
 * Section "refresh" (issue 31): the crawl section's site crawled by ours,
 * then refreshed with `--since` into a new directory, the site unchanged,
 * `rounds` rounds. The server (nginx, or the built-in one with validators)
 * answers every page 304, so the refresh reads no page body: its pages/s
 * and the bytes it read from the network are set against the first
 * crawl's. Both runs write a report (`--report`), whose "bytes read" figure
 * (every response's bytes, head and body, as they came) is what is
 * compared; so both pay the report's cost. Each refresh must save the
 * expected pages, byte for byte the first crawl's.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyOurs } from './crawl-bench.js';
import { runMeasured } from './measure.js';
import type { Site } from './site.js';
import { median, medianPairedRatio } from './stats.js';

export interface RefreshRunStats {
  pages: number;
  wallSeconds: number;
  pagesPerSecond: number;
  cpuMicrosPerPage: number;
  peakRssMiB: number;
  /** Response bytes read from the network (the report's "bytes read"). */
  bytesRead: number;
  /** Pages answered 304 and copied from the earlier crawl (the refresh's report). */
  unchanged: number;
}

export interface RefreshRound {
  round: number;
  first: RefreshRunStats;
  refresh: RefreshRunStats;
  /** The refresh saved the same files as the first crawl, byte for byte. */
  identical: boolean;
}

export interface RefreshSection {
  expectedPages: number;
  rounds: RefreshRound[];
  /** Medians over the rounds. */
  first: RefreshRunStats;
  refresh: RefreshRunStats;
  /** Median of the per-round ratios refresh / first. */
  pagesPerSecondRatio: number;
  bytesRatio: number;
  ok: boolean;
}

/** A figure of a report of ours (`data-figure="NAME" data-value="V"`). */
function figure(html: string, name: string): number {
  return Number(new RegExp(`data-figure="${name}" data-value="([^"]*)"`).exec(html)?.[1] ?? NaN);
}

async function run(repo: string, site: Site, dir: string, report: string, extra: string[]): Promise<{ stats: RefreshRunStats; failure: string | undefined }> {
  mkdirSync(dir);
  const args = ['--delay', '0', '--quiet', '--report', report, ...extra, site.seedUrl, dir, String(site.maxDepth)];
  const m = await runMeasured(join(repo, 'crawler'), args, { cwd: repo, timeoutMs: 60 * 60_000 });
  const v = verifyOurs(dir, site);
  const html = readFileSync(report, 'utf8');
  const stats = {
    pages: v.pages,
    wallSeconds: m.wallSeconds,
    pagesPerSecond: v.pages / m.wallSeconds,
    cpuMicrosPerPage: (m.cpuSeconds / Math.max(1, v.pages)) * 1e6,
    peakRssMiB: m.maxRssMiB,
    bytesRead: figure(html, 'bytes'),
    unchanged: figure(html, 'refresh-unchanged'),
  };
  const failure = m.exitCode !== 0 ? `exit ${m.exitCode ?? m.signal}: ${m.stderr.slice(-300)}` : v.missing > 0 || v.extra > 0 ? `${v.missing} missing, ${v.extra} extra` : undefined;
  return { stats, failure };
}

/** The numbered files of two page directories are the same bytes. */
function samePages(a: string, b: string, ids: number): boolean {
  for (let id = 1; id <= ids; id++) {
    if (!readFileSync(join(a, String(id))).equals(readFileSync(join(b, String(id))))) return false;
  }
  return true;
}

function medians(list: RefreshRunStats[]): RefreshRunStats {
  const m = (k: keyof RefreshRunStats): number => median(list.map((s) => s[k]));
  return { pages: Math.max(...list.map((s) => s.pages)), wallSeconds: m('wallSeconds'), pagesPerSecond: m('pagesPerSecond'), cpuMicrosPerPage: m('cpuMicrosPerPage'), peakRssMiB: Math.max(...list.map((s) => s.peakRssMiB)), bytesRead: m('bytesRead'), unchanged: m('unchanged') };
}

/** Runs the section in `work` (one directory per run); `problems` gets what went wrong. */
export async function refreshSection(site: Site, work: string, repo: string, rounds: number, log: (s: string) => void, problems: string[]): Promise<RefreshSection> {
  const out: RefreshRound[] = [];
  const expected = site.expected.size;
  for (let round = 1; round <= rounds; round++) {
    const old = join(work, `refresh-first-${round}`);
    const fresh = join(work, `refresh-new-${round}`);
    const first = await run(repo, site, old, `${old}.html`, []);
    const refresh = await run(repo, site, fresh, `${fresh}.html`, ['--since', old]);
    const identical = first.failure === undefined && refresh.failure === undefined && samePages(old, fresh, refresh.stats.pages);
    out.push({ round, first: first.stats, refresh: refresh.stats, identical });
    for (const [name, r] of [['first crawl', first], ['refresh', refresh]] as const) {
      log(`  round ${round} ${name.padEnd(11)} ${r.stats.pages}/${expected} pages in ${r.stats.wallSeconds.toFixed(2)} s: ${r.stats.pagesPerSecond.toFixed(0)} pages/s, ${(r.stats.bytesRead / 1e6).toFixed(2)} MB read, ${r.stats.cpuMicrosPerPage.toFixed(0)} us CPU/page${Number.isFinite(r.stats.unchanged) ? `, ${r.stats.unchanged} unchanged` : ''}`);
      if (r.failure !== undefined) problems.push(`refresh section, round ${round}, ${name}: ${r.failure}`);
    }
    if (!identical) problems.push(`refresh section, round ${round}: the refresh did not save the first crawl's files byte for byte`);
  }
  const pps = (k: 'first' | 'refresh'): number[] => out.map((r) => r[k].pagesPerSecond);
  const bytes = (k: 'first' | 'refresh'): number[] => out.map((r) => r[k].bytesRead);
  return {
    expectedPages: expected,
    rounds: out,
    first: medians(out.map((r) => r.first)),
    refresh: medians(out.map((r) => r.refresh)),
    pagesPerSecondRatio: medianPairedRatio(pps('refresh'), pps('first')),
    bytesRatio: medianPairedRatio(bytes('refresh'), bytes('first')),
    ok: out.every((r) => r.identical),
  };
}

/** The section's table rows (header first), for bench/report.ts. */
export function refreshRows(r: RefreshSection): string[][] {
  const f = (x: number, d: number): string => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  const row = (name: string, s: RefreshRunStats, check: string): string[] => [name, `${s.pages}/${r.expectedPages}`, f(s.wallSeconds, 2), f(s.pagesPerSecond, 0), f(s.bytesRead / 1e6, 2), f(s.cpuMicrosPerPage, 0), f(s.peakRssMiB, 0), `${r.rounds.length}`, check];
  return [
    ['refresh, the same site unchanged', 'pages', 'wall s', 'pages/s', 'MB read', 'CPU us/page', 'peak RSS MiB', 'runs', 'check'],
    row('ours, first crawl (--report)', r.first, ''),
    row('ours --since first (--report)', r.refresh, `${f(r.refresh.unchanged, 0)} unchanged`),
    ['refresh / first crawl', '', '', `${f(r.pagesPerSecondRatio, 2)}x`, `${f(r.bytesRatio, 3)}x`, '', '', '', r.ok ? 'same files' : 'MISMATCH'],
  ];
}
