/**
 * Section "crawl": our crawler against GNU wget on the synthetic site, in
 * alternating rounds, each checked against the generator's expected set.
 *
 * Counting: a page counts when an HTML URL of the expected set was saved.
 * Ours saves one numbered file per page (first line: the URL); wget saves
 * one file per URL under DIR/HOST:PORT/, a query URL as `name?query`. wget
 * also downloads the linked non-HTML files (ours never requests them by
 * design): they are reported as "other files", not pages.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { median, runMeasured, type Measured } from './measure.js';
import { which } from './servers.js';
import type { Site } from './site.js';

export interface Verification {
  /** Files the tool saved (pages and, for wget, other files). */
  files: number;
  /** Saved URLs in the expected set. */
  pages: number;
  /** Expected URLs not saved. */
  missing: number;
  /** Saved HTML-looking URLs not in the expected set. */
  extra: number;
  /** Non-HTML files saved (wget only). */
  otherFiles: number;
  missingExamples: string[];
  extraExamples: string[];
}

export interface CrawlRun extends Omit<Measured, 'stdout' | 'stderr'> {
  verification: Verification;
  stderrTail: string;
}

export interface ToolResult {
  tool: string;
  command: string;
  available: boolean;
  note?: string;
  runs: CrawlRun[];
  pages: number;
  medianWallSeconds: number;
  pagesPerSecond: number;
  medianCpuSeconds: number;
  cpuMicrosPerPage: number;
  peakRssMiB: number;
  ok: boolean;
}

export interface CrawlSection {
  expectedPages: number;
  ours: ToolResult;
  /** Ours with the opt-in second connection to the host (`--connections-per-host 2`, delay 0). */
  ours2: ToolResult;
  wget: ToolResult;
  /** ours / wget; undefined when wget did not run. */
  ratio?: { pagesPerSecond: number; cpuPerPage: number; peakRss: number };
  /** ours2 / wget pages/s. */
  ratio2?: number;
}

function pathOfUrl(url: string, origin: string): string {
  return url.startsWith(origin) ? url.slice(origin.length) : url;
}

function firstLine(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const s = buf.subarray(0, n).toString('utf8');
    const nl = s.indexOf('\n');
    return nl === -1 ? s : s.slice(0, nl);
  } finally {
    closeSync(fd);
  }
}

function compare(saved: string[], site: Site, files: number, otherFiles: number): Verification {
  const got = new Set(saved);
  const missing = [...site.expected].filter((u) => !got.has(u));
  const extra = saved.filter((u) => !site.expected.has(u));
  return {
    files,
    pages: saved.length - extra.length,
    missing: missing.length,
    extra: extra.length,
    otherFiles,
    missingExamples: missing.slice(0, 5),
    extraExamples: extra.slice(0, 5),
  };
}

/** Reads what our crawler saved in `dir`. */
export function verifyOurs(dir: string, site: Site): Verification {
  const names = readdirSync(dir).filter((n) => /^[1-9][0-9]*$/.test(n));
  const urls = names.map((n) => pathOfUrl(firstLine(join(dir, n)), site.origin));
  return compare(urls, site, names.length, 0);
}

function walk(dir: string, prefix: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) walk(join(dir, e.name), `${prefix}/${e.name}`, out);
    else out.push(`${prefix}/${e.name}`);
  }
}

/** Reads what wget saved under `dir` (one directory per host). */
export function verifyWget(dir: string, site: Site): Verification {
  const paths: string[] = [];
  for (const host of readdirSync(dir, { withFileTypes: true })) {
    if (host.isDirectory()) walk(join(dir, host.name), '', paths);
  }
  const isHtml = (p: string): boolean => /\.html(\?|$)/.test(p);
  const html = paths.filter(isHtml);
  return compare(html, site, paths.length, paths.length - html.length);
}

/**
 * A new, empty directory for one run, kept until the whole bench ends. Not
 * one directory emptied between runs: on ext4 the inode allocator skips
 * inodes freed in the last minutes (find_inode_bit / recently_deleted) one by
 * one, so creating 10,000 files right after deleting 10,000 costs about twice
 * the system time, and whichever run came right after a deletion paid for it
 * (measured here: 1.4 s of system time in a new directory, 2.6 to 3.5 s after
 * an rm -rf of the previous run's pages).
 */
function runDir(work: string, tool: string, round: number): string {
  const dir = join(work, `${tool}-${round}`);
  mkdirSync(dir);
  return dir;
}

function summarize(tool: string, command: string, runs: CrawlRun[], expected: number): ToolResult {
  const pages = runs.length === 0 ? 0 : Math.max(...runs.map((r) => r.verification.pages));
  const wall = median(runs.map((r) => r.wallSeconds));
  const cpu = median(runs.map((r) => r.cpuSeconds));
  return {
    tool,
    command,
    available: true,
    runs,
    pages,
    medianWallSeconds: wall,
    pagesPerSecond: pages / wall,
    medianCpuSeconds: cpu,
    cpuMicrosPerPage: (cpu / Math.max(1, pages)) * 1e6,
    peakRssMiB: Math.max(...runs.map((r) => r.maxRssMiB)),
    ok: runs.every((r) => r.verification.missing === 0 && r.verification.extra === 0 && r.verification.pages === expected),
  };
}

function toRun(m: Measured, verification: Verification): CrawlRun {
  const { stdout: _o, stderr, ...rest } = m;
  return { ...rest, verification, stderrTail: stderr.slice(-400) };
}

function loudMismatch(tool: string, round: number, v: Verification, expected: number): void {
  if (v.missing === 0 && v.extra === 0) return;
  console.error(`\n!!! ${tool} round ${round}: saved ${v.pages} of ${expected} expected pages: ${v.missing} MISSING, ${v.extra} EXTRA`);
  if (v.missingExamples.length > 0) console.error(`!!!   missing e.g. ${v.missingExamples.join(' ')}`);
  if (v.extraExamples.length > 0) console.error(`!!!   extra e.g. ${v.extraExamples.join(' ')}`);
}

export function wgetVersion(): string | undefined {
  const wget = which('wget');
  if (wget === undefined) return undefined;
  return spawnSync(wget, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]?.trim();
}

/** Runs the crawl comparison: `rounds` alternating runs of ours and wget over `site`. */
export async function crawlSection(site: Site, work: string, repo: string, rounds: number, log: (s: string) => void): Promise<CrawlSection> {
  const depth = String(site.maxDepth);
  const oursArgs = (dir: string): string[] => ['--delay', '0', '--quiet', site.seedUrl, dir, depth];
  const ours2Args = (dir: string): string[] => ['--connections-per-host', '2', ...oursArgs(dir)];
  const ours2Runs: CrawlRun[] = [];
  const wget = which('wget');
  const wgetArgs = (dir: string): string[] => ['-r', '-l', depth, '-nv', '-e', 'robots=off', '-P', dir, site.seedUrl];
  const expected = site.expected.size;
  const oursRuns: CrawlRun[] = [];
  const wgetRuns: CrawlRun[] = [];
  const timeoutMs = 60 * 60 * 1000;
  if (wget === undefined) log('  wget is not installed: skipping it (install it with: apt-get install -y wget)');
  for (let round = 1; round <= rounds; round++) {
    const oursDir = runDir(work, 'ours', round);
    const m = await runMeasured(join(repo, 'crawler'), oursArgs(oursDir), { cwd: repo, timeoutMs });
    const v = verifyOurs(oursDir, site);
    oursRuns.push(toRun(m, v));
    log(`  round ${round}  ours: ${v.pages} pages in ${m.wallSeconds.toFixed(2)} s, ${m.cpuSeconds.toFixed(2)} s CPU, ${m.maxRssMiB.toFixed(0)} MiB peak${m.exitCode !== 0 ? `, exit ${m.exitCode ?? m.signal}` : ''}`);
    if (m.exitCode !== 0) console.error(`!!! ours exited ${m.exitCode ?? m.signal}: ${m.stderr.slice(-400)}`);
    loudMismatch('ours', round, v, expected);
    const ours2Dir = runDir(work, 'ours2', round);
    const m2 = await runMeasured(join(repo, 'crawler'), ours2Args(ours2Dir), { cwd: repo, timeoutMs });
    const v2 = verifyOurs(ours2Dir, site);
    ours2Runs.push(toRun(m2, v2));
    log(`  round ${round}  ours x2: ${v2.pages} pages in ${m2.wallSeconds.toFixed(2)} s, ${m2.cpuSeconds.toFixed(2)} s CPU, ${m2.maxRssMiB.toFixed(0)} MiB peak${m2.exitCode !== 0 ? `, exit ${m2.exitCode ?? m2.signal}` : ''}`);
    loudMismatch('ours x2', round, v2, expected);
    if (wget !== undefined) {
      const wgetDir = runDir(work, 'wget', round);
      const w = await runMeasured(wget, wgetArgs(wgetDir), { cwd: work, timeoutMs });
      const wv = verifyWget(wgetDir, site);
      wgetRuns.push(toRun(w, wv));
      // wget exits 8 when some response was an error (our 404 links): expected here.
      log(`  round ${round}  wget: ${wv.pages} pages (+${wv.otherFiles} other files) in ${w.wallSeconds.toFixed(2)} s, ${w.cpuSeconds.toFixed(2)} s CPU, ${w.maxRssMiB.toFixed(0)} MiB peak${w.exitCode !== 0 && w.exitCode !== 8 ? `, exit ${w.exitCode ?? w.signal}` : ''}`);
      loudMismatch('wget', round, wv, expected);
    }
  }
  const ours = summarize('ours', `./crawler ${oursArgs('DIR').join(' ')}`, oursRuns, expected);
  const ours2 = summarize('ours x2', `./crawler ${ours2Args('DIR').join(' ')}`, ours2Runs, expected);
  const wgetResult: ToolResult =
    wget === undefined
      ? { tool: 'wget', command: `wget ${wgetArgs('DIR').join(' ')}`, available: false, note: 'not installed: apt-get install -y wget', runs: [], pages: 0, medianWallSeconds: NaN, pagesPerSecond: NaN, medianCpuSeconds: NaN, cpuMicrosPerPage: NaN, peakRssMiB: NaN, ok: false }
      : { ...summarize('wget', `wget ${wgetArgs('DIR').join(' ')}`, wgetRuns, expected), note: wgetVersion() };
  const section: CrawlSection = { expectedPages: expected, ours, ours2, wget: wgetResult };
  if (wgetResult.available) {
    section.ratio = {
      pagesPerSecond: ours.pagesPerSecond / wgetResult.pagesPerSecond,
      cpuPerPage: ours.cpuMicrosPerPage / wgetResult.cpuMicrosPerPage,
      peakRss: ours.peakRssMiB / wgetResult.peakRssMiB,
    };
    section.ratio2 = ours2.pagesPerSecond / wgetResult.pagesPerSecond;
  }
  return section;
}

/** Size of a directory tree in bytes (for the record). */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    total += e.isDirectory() ? treeBytes(p) : statSync(p).size;
  }
  return total;
}
