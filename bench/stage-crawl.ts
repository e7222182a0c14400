/**
 * The crawl runs of stages.ts, on the site served by nginx, page files on
 * tmpfs as the bench's tmpfs row: `./crawler --delay 0 -q SEED DIR 6` as the
 * bench runs it (CPU a page from GNU time); the same bundle with
 * stage-cpu-hook.ts preloaded (the crawl's thread against V8's and libuv's),
 * with and without `node --cpu-prof` (split by stage-profile.ts); and the
 * crawler and wget2 (`--max-threads=1`, as the bench runs it) under `perf
 * record` (split by stage-perf.ts).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProfile, loadProfile } from './cpuprofile-top.js';
import { runMeasured } from './measure.js';
import { savedPages } from './peers.js';
import type { Site } from './site.js';
import { countPages } from './stats.js';
import { sourceMapper, splitProfile, type CrawlSplit, type ThreadCpu } from './stage-profile.js';
import { NODE_RULES, perfRecordArgs, perfSamples, perfSplit, perfStages, WGET2_RULES, type PerfSplit, type PerfStages } from './stage-perf.js';

export interface CrawlRunResult {
  /** `pages-thread`: hooked, with --write-thread on (the page files leave the crawl's thread: what they cost it, by difference). */
  kind: 'plain' | 'hooked' | 'profiled' | 'pages-thread';
  pages: number;
  wallSeconds: number;
  /** user + system of the process (GNU time), seconds. */
  cpuSeconds: number;
  /** load average (1 minute) when the run started. */
  load: number;
  threads?: ThreadCpu;
  split?: CrawlSplit;
}

export interface CrawlContext {
  site: Site;
  repo: string;
  /** Where each run's page directory goes (tmpfs). */
  scratch: string;
  /** Awaited before each run: resolves with the load average once the machine is quiet. */
  quiet: () => Promise<number>;
  log: (line: string) => void;
}

let counter = 0;
const hook = fileURLToPath(new URL('./stage-cpu-hook.js', import.meta.url));

function pageDir(c: CrawlContext, name: string): string {
  const dir = join(c.scratch, `${name}-${process.pid}-${++counter}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Pages of the expected set a crawler saved in `dir` (its layout: ours, or wget's mirror). */
function pagesIn(site: Site, dir: string, layout: 'ours' | 'mirror'): number {
  return countPages(savedPages(layout, dir, site).paths, site.expected).pages;
}

/** One crawl by our crawler: plain (`./crawler`), hooked (the bundle with the CPU hook), profiled (and under --cpu-prof), or hooked with the page files' thread. */
export async function crawlOnce(c: CrawlContext, kind: CrawlRunResult['kind']): Promise<CrawlRunResult> {
  const { site, repo } = c;
  const dir = pageDir(c, `stages-${kind}`);
  const crawlArgs = ['--delay', '0', '-q', ...(kind === 'pages-thread' ? ['--write-thread', 'on'] : []), site.seedUrl, dir, String(site.maxDepth)];
  const cpuFile = join(c.scratch, `stages-cpu-${process.pid}-${counter}.json`);
  const profDir = join(c.scratch, `stages-prof-${process.pid}-${counter}`);
  const prof = kind === 'profiled' ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [];
  const [command, args] = kind === 'plain' ? [join(repo, 'crawler'), crawlArgs] : [process.execPath, [...prof, '--import', hook, join(repo, 'dist/bin/crawler.cjs'), ...crawlArgs]];
  const load = await c.quiet();
  const m = await runMeasured(command, args, { cwd: repo, env: { ...process.env, STAGES_CPU_FILE: cpuFile }, timeoutMs: 30 * 60_000 });
  if (m.exitCode !== 0) throw new Error(`crawl failed (${m.exitCode}): ${m.stderr.slice(-500)}`);
  const pages = pagesIn(site, dir, 'ours');
  rmSync(dir, { recursive: true, force: true });
  const out: CrawlRunResult = { kind, pages, wallSeconds: m.wallSeconds, cpuSeconds: m.cpuSeconds, load };
  if (kind !== 'plain') {
    out.threads = JSON.parse(readFileSync(cpuFile, 'utf8')) as ThreadCpu;
    rmSync(cpuFile, { force: true });
  }
  if (kind === 'profiled') {
    out.split = splitProfile(loadProfile(findProfile(profDir)), sourceMapper(join(repo, 'dist/bin/crawler.bundle.cjs')));
    rmSync(profDir, { recursive: true, force: true });
  }
  c.log(`  ${kind.padEnd(12)} ${pages} pages, ${m.wallSeconds.toFixed(2)} s, CPU ${((m.cpuSeconds / pages) * 1e6).toFixed(0)} us a page${out.threads === undefined ? '' : `, its thread ${((out.threads.mainSeconds / pages) * 1e6).toFixed(0)}`} (load ${load.toFixed(2)})`);
  return out;
}

export interface PerfRun {
  crawler: 'wget2' | 'ours';
  pages: number;
  /** GNU time's CPU of the run under perf (perf's own included), seconds. */
  cpuSeconds: number;
  load: number;
  split: PerfSplit;
  /** Ours: the crawl's thread by stage (CPU time, where --cpu-prof samples wall-clock time). */
  stages?: PerfStages;
}

/** wget2 as the bench runs it (one thread), the pages on tmpfs: CPU a page of a run not under perf. */
export async function wget2Once(c: CrawlContext): Promise<{ pages: number; cpuSeconds: number; wallSeconds: number; load: number }> {
  const dir = pageDir(c, 'stages-wget2');
  const load = await c.quiet();
  const m = await runMeasured('wget2', wget2Args(c.site, dir), { timeoutMs: 30 * 60_000 });
  const pages = pagesIn(c.site, dir, 'mirror');
  rmSync(dir, { recursive: true, force: true });
  c.log(`  wget2    ${pages} pages, ${m.wallSeconds.toFixed(2)} s, CPU ${((m.cpuSeconds / pages) * 1e6).toFixed(0)} us a page (load ${load.toFixed(2)})`);
  return { pages, cpuSeconds: m.cpuSeconds, wallSeconds: m.wallSeconds, load };
}

function wget2Args(site: Site, dir: string): string[] {
  return ['--max-threads=1', '-r', '-l', String(site.maxDepth), '-nv', '-e', 'robots=off', '-P', dir, site.seedUrl];
}

/** A crawl under `perf record` (DWARF call graphs, cpu-clock at `hz`), split by what it did. */
export async function perfOnce(c: CrawlContext, crawler: PerfRun['crawler'], hz: number): Promise<PerfRun> {
  const dir = pageDir(c, `stages-perf-${crawler}`);
  const data = join(c.scratch, `stages-perf-${process.pid}-${counter}.data`);
  // node names its JavaScript frames for perf in /tmp/perf-PID.map, interpreted ones too.
  const node = [process.execPath, '--perf-basic-prof', '--interpreted-frames-native-stack'];
  const argv = crawler === 'wget2' ? ['wget2', ...wget2Args(c.site, dir)] : [...node, join(c.repo, 'dist/bin/crawler.cjs'), '--delay', '0', '-q', c.site.seedUrl, dir, String(c.site.maxDepth)];
  const load = await c.quiet();
  // In the scratch directory (removed at the end): node's --perf-basic-prof also writes V8's log (isolate-*-v8.log) where it runs.
  const m = await runMeasured('perf', [...perfRecordArgs(data, hz, crawler === 'wget2'), ...argv], { cwd: c.scratch, timeoutMs: 30 * 60_000 });
  if (m.exitCode !== 0 && !(crawler === 'wget2' && m.exitCode === 8)) throw new Error(`perf record ${crawler} failed (${m.exitCode}): ${m.stderr.slice(-500)}`);
  const pages = pagesIn(c.site, dir, crawler === 'wget2' ? 'mirror' : 'ours');
  rmSync(dir, { recursive: true, force: true });
  const samples = perfSamples(data);
  const split = perfSplit(samples, crawler === 'wget2' ? WGET2_RULES : NODE_RULES);
  const stages = crawler === 'ours' ? perfStages(samples, sourceMapper(join(c.repo, 'dist/bin/crawler.bundle.cjs'))) : undefined;
  rmSync(data, { force: true });
  for (const pid of new Set(samples.map((x) => x.pid))) rmSync(`/tmp/perf-${pid}.map`, { force: true });
  c.log(`  perf ${crawler.padEnd(5)} ${pages} pages, ${split.samples} samples, ${((split.cpuMs / pages) * 1000).toFixed(0)} us a page sampled (load ${load.toFixed(2)})`);
  return { crawler, pages, cpuSeconds: m.cpuSeconds, load, split, ...(stages === undefined ? {} : { stages }) };
}
