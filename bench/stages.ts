/**
 * Where a page's CPU goes (issue 45): each stage of a page of the bench
 * site measured on its own, then the same split inside a real crawl, then
 * wget2's and ours by `perf`. Run after `npm run build`:
 *
 *   node dist/bench/stages.js [--pages N] [--passes N] [--warmup N] [--runs N]
 *                             [--only isolation,crawl,perf] [--max-load X]
 *                             [--perf-hz N] [--json FILE] [--no-wait]
 *
 * - isolation (stage-isolation.ts): the crawl's requests in its order
 *   (stage-sequence.ts), each stage run over all of them in one pass, timed
 *   with process.cpuUsage; after `--warmup` passes (2), `--passes` (5) timed
 *   passes, stage after stage in rounds; the median, in us per page saved.
 * - crawl (stage-crawl.ts, stage-profile.ts): `--runs` (3) runs each of
 *   `./crawler --delay 0 -q SEED DIR 6` on nginx with the pages on tmpfs
 *   (plain: CPU a page), the bundle with a CPU hook (its thread against the
 *   others, and the scheduler's account of it), under `node --cpu-prof`
 *   (split by stage, scaled to the thread's CPU), and with `--write-thread
 *   on` (what the page files cost the thread, by difference).
 * - perf (stage-perf.ts): wget2 --max-threads=1 and ours under `perf record`
 *   (cpu-clock; DWARF call graphs for wget2, frame pointers and node's
 *   --perf-basic-prof for ours, whose thread is split by stage as the V8
 *   profile is), `--runs` runs each, plus wget2's CPU a page without perf.
 *
 * Before every measurement the machine must be quiet: the 1-minute load
 * average below `--max-load` (1.5; during the isolation passes this process
 * is one of it, so 2.5 there) and no test suite or bench of another session
 * running; otherwise it waits a minute and looks again. Each figure is
 * printed with the load it ran at (`--no-wait` measures at once, busy or not:
 * a smoke test, not figures). JSON: bench-results/stages.json.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './measure.js';
import { freePort, startSiteServer } from './servers.js';
import { generateSite } from './site.js';
import { crawlOnce, perfOnce, wget2Once, type CrawlContext, type CrawlRunResult, type PerfRun } from './stage-crawl.js';
import { stages, timeStages, type StageTiming } from './stage-isolation.js';
import { CRAWL_STAGES, OTHER_STAGES } from './stage-profile.js';
import { perfUnavailable } from './stage-perf.js';
import { crawlParts, crawlSequence, sequenceCounts } from './stage-sequence.js';

const SECTIONS = ['isolation', 'crawl', 'perf'] as const;
type Section = (typeof SECTIONS)[number];

interface Options {
  pages: number;
  passes: number;
  warmup: number;
  runs: number;
  only: Section[];
  maxLoad: number;
  perfHz: number;
  json: string;
  noWait: boolean;
}

const USAGE = 'usage: node dist/bench/stages.js [--pages N] [--passes N] [--warmup N] [--runs N] [--only isolation,crawl,perf] [--max-load X] [--perf-hz N] [--json FILE] [--no-wait]';

function parseOptions(argv: string[]): Options {
  const o: Options = { pages: 10_000, passes: 5, warmup: 2, runs: 3, only: [...SECTIONS], maxLoad: 1.5, perfHz: 1999, json: 'bench-results/stages.json', noWait: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    const count = (): number => {
      const n = Number(value());
      if (!Number.isFinite(n) || n < 0) throw new Error(`${a}: not a number\n${USAGE}`);
      return n;
    };
    if (a === '--pages') o.pages = count();
    else if (a === '--passes') o.passes = Math.max(1, count());
    else if (a === '--warmup') o.warmup = count();
    else if (a === '--runs') o.runs = Math.max(1, count());
    else if (a === '--max-load') o.maxLoad = count();
    else if (a === '--perf-hz') o.perfHz = count();
    else if (a === '--json') o.json = value();
    else if (a === '--no-wait') o.noWait = true;
    else if (a === '--only') {
      o.only = value().split(',') as Section[];
      for (const s of o.only) if (!SECTIONS.includes(s)) throw new Error(`--only: no section ${s}\n${USAGE}`);
    } else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  return o;
}

const log = (line: string): void => console.log(line);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Other sessions' test suites and benches, by their command lines (this process excluded). */
function competitors(): string[] {
  const r = spawnSync('pgrep', ['-af', 'run-tests|bench\\.js|ab\\.js'], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith(`${process.pid} `))
    .map((l) => l.slice(0, 120));
}

/** Waits until the load average is below `max` and no competitor runs; resolves with the load. */
async function waitQuiet(max: number, noWait: boolean): Promise<number> {
  for (;;) {
    const load = loadavg()[0] as number;
    const busy = competitors();
    if (noWait || (load < max && busy.length === 0)) return load;
    log(`  waiting for a quiet machine: load ${load.toFixed(2)}${busy.length > 0 ? `; running: ${busy.join(' | ')}` : ''}`);
    await sleep(60_000);
  }
}

const us = (x: number): string => (Number.isFinite(x) ? x.toFixed(1).padStart(7) : '      -');

function printIsolation(timings: readonly StageTiming[]): void {
  log('\nisolation: CPU us per page saved, median of the passes (each pass: load average)');
  for (const t of timings) log(`  ${us(t.medianUs)}  ${t.label}   [${t.passesUs.map((x) => x.toFixed(1)).join(' ')}; load ${t.load.map((x) => x.toFixed(2)).join(' ')}]`);
}

/** The crawl's thread's CPU a page without a sampler (the hooked runs' median): what both splits' shares are scaled to. */
function threadBase(runs: readonly CrawlRunResult[]): number | undefined {
  const hooked = runs.filter((r) => r.kind === 'hooked' && r.threads !== undefined);
  return hooked.length === 0 ? undefined : median(hooked.map((r) => (r.threads!.mainSeconds * 1e6) / r.pages));
}

/** The crawl's split: each stage's median share of the profiled thread's busy samples, times the thread's CPU without a sampler, per page. */
function crawlTable(runs: readonly CrawlRunResult[]): Record<string, { us: number; profileUs: number; share: number; nativeUs: number }> {
  const profiled = runs.filter((r) => r.split !== undefined);
  const base = threadBase(runs) ?? NaN;
  const out: Record<string, { us: number; profileUs: number; share: number; nativeUs: number }> = {};
  for (const s of [...CRAWL_STAGES, ...OTHER_STAGES]) {
    const per = (f: (r: CrawlRunResult) => number): number => median(profiled.map(f));
    const share = per((r) => (r.split!.ms[s.key] ?? 0) / r.split!.busyMs);
    out[s.key] = {
      share,
      us: share * base,
      profileUs: per((r) => ((r.split!.ms[s.key] ?? 0) * 1000) / r.pages),
      nativeUs: per((r) => (r.split!.nativeMs[s.key] ?? 0) / r.split!.busyMs) * base,
    };
  }
  return out;
}

function printCrawl(runs: readonly CrawlRunResult[]): void {
  const table = crawlTable(runs);
  const by = (kind: CrawlRunResult['kind'], f: (r: CrawlRunResult) => number): number => median(runs.filter((r) => r.kind === kind).map(f));
  const perPage = (s: number, r: CrawlRunResult): number => (s * 1e6) / r.pages;
  log('\ncrawl: us per page (medians of the runs)');
  log(`  process CPU a page: plain ./crawler ${by('plain', (r) => perPage(r.cpuSeconds, r)).toFixed(0)}, hooked ${by('hooked', (r) => perPage(r.cpuSeconds, r)).toFixed(0)}, profiled ${by('profiled', (r) => perPage(r.cpuSeconds, r)).toFixed(0)}`);
  log(`  the crawl's thread: hooked ${by('hooked', (r) => perPage(r.threads!.mainSeconds, r)).toFixed(0)}, profiled ${by('profiled', (r) => perPage(r.threads!.mainSeconds, r)).toFixed(0)} (profile: busy ${by('profiled', (r) => (r.split!.busyMs * 1000) / r.pages).toFixed(0)}, idle ${by('profiled', (r) => (r.split!.idleMs * 1000) / r.pages).toFixed(0)})`);
  const hooked = runs.filter((r) => r.threads?.mainWaitSeconds !== undefined);
  if (hooked.length > 0) {
    const m = (f: (r: CrawlRunResult) => number): string => median(hooked.map(f)).toFixed(0);
    log(`  the crawl's thread by the scheduler: on a CPU ${m((r) => perPage(r.threads!.mainRunSeconds!, r))}, runnable but waiting ${m((r) => perPage(r.threads!.mainWaitSeconds!, r))} us a page; preempted ${m((r) => r.threads!.mainPreempted! / r.pages)} times a page (wall ${m((r) => perPage(r.wallSeconds, r))})`);
  }
  const others = (r: CrawlRunResult): number => Object.values(r.threads!.others).reduce((a, b) => a + b, 0);
  const off = by('hooked', (r) => perPage(r.threads!.mainSeconds, r));
  const on = by('pages-thread', (r) => perPage(r.threads!.mainSeconds, r));
  log(`  with --write-thread on, the crawl's thread ${on.toFixed(0)} us a page: the page file costs it ${(off - on).toFixed(0)} (its copy into the thread's ring included)`);
  log(`  other threads (V8's workers, libuv): hooked ${by('hooked', (r) => perPage(others(r), r)).toFixed(0)}, profiled ${by('profiled', (r) => perPage(others(r), r)).toFixed(0)}`);
  log('  by stage: share of the busy samples x the thread\'s CPU without a sampler, us a page (of which in node/native calls), the share, us a page sampled');
  for (const s of [...CRAWL_STAGES, ...OTHER_STAGES]) {
    const t = table[s.key]!;
    log(`  ${us(t.us)} (${us(t.nativeUs).trim()}) ${(t.share * 100).toFixed(1).padStart(5)} % ${us(t.profileUs)}  ${s.label}${nativeLeaves(runs, s.key)}`);
  }
}

/** A stage's time in node's and native frames by the frame's source, the largest first (shares of the stage, summed over the profiled runs). */
function nativeLeaves(runs: readonly CrawlRunResult[], key: string): string {
  const sum = new Map<string, number>();
  let stage = 0;
  for (const r of runs) {
    stage += r.split?.ms[key] ?? 0;
    for (const [leaf, ms] of Object.entries(r.split?.nativeBy[key] ?? {})) sum.set(leaf, (sum.get(leaf) ?? 0) + ms);
  }
  const top = [...sum.entries()].sort((a, b) => b[1] - a[1]).filter(([, ms]) => ms >= 0.05 * stage).slice(0, 4);
  return top.length === 0 ? '' : `; in ${top.map(([leaf, ms]) => `${leaf} ${((ms / stage) * 100).toFixed(0)} %`).join(', ')}`;
}

function printPerf(runs: readonly PerfRun[], wget2: ReadonlyArray<{ pages: number; cpuSeconds: number; load: number }>, base: number | undefined): void {
  if (wget2.length > 0) log(`\nwget2 without perf: CPU ${median(wget2.map((r) => (r.cpuSeconds * 1e6) / r.pages)).toFixed(0)} us a page (runs ${wget2.map((r) => ((r.cpuSeconds * 1e6) / r.pages).toFixed(0)).join(', ')})`);
  for (const crawler of ['wget2', 'ours'] as const) {
    const mine = runs.filter((r) => r.crawler === crawler);
    if (mine.length === 0) continue;
    const labels = [...new Set(mine.flatMap((r) => r.split.categories.map((c) => c.label)))];
    const perPage = (r: PerfRun, ms: number): number => (ms * 1000) / r.pages;
    log(`\nperf, ${crawler}: us a page sampled, median of ${mine.length} (total ${median(mine.map((r) => perPage(r, r.split.cpuMs))).toFixed(0)}; loads ${mine.map((r) => r.load.toFixed(2)).join(' ')})`);
    const rows = labels.map((label) => ({ label, us: median(mine.map((r) => perPage(r, r.split.categories.find((c) => c.label === label)?.ms ?? 0))) }));
    for (const row of rows.sort((a, b) => b.us - a.us)) log(`  ${us(row.us)}  ${row.label}`);
    const dsos = [...new Set(mine.flatMap((r) => r.split.dsos.map((d) => d.dso)))];
    if (crawler === 'ours') printPerfStages(mine, base);
    log(`  by object file: ${dsos.map((d) => `${d} ${median(mine.map((r) => perPage(r, r.split.dsos.find((x) => x.dso === d)?.ms ?? 0))).toFixed(0)}`).join(', ')}`);
    log(`  by thread (first run): ${mine[0]!.split.threads.map((t) => `${t.thread} ${perPage(mine[0]!, t.ms).toFixed(0)}`).join(', ')}`);
  }
}

/** Ours by stage from perf: the crawl's thread's CPU (of which in the kernel), medians over the runs; shares also scaled to `base` (the thread without a sampler), when the crawl section ran. */
function printPerfStages(runs: readonly PerfRun[], base: number | undefined): void {
  const staged = runs.filter((r) => r.stages !== undefined);
  const per = (f: (r: PerfRun) => number): number => median(staged.map(f));
  log(`  the crawl's thread by stage (CPU time): ${per((r) => (r.stages!.mainMs * 1000) / r.pages).toFixed(0)} us a page sampled, other threads ${per((r) => (r.stages!.otherThreadsMs * 1000) / r.pages).toFixed(0)}${base === undefined ? '' : `; scaled to the thread without a sampler, ${base.toFixed(0)}`}`);
  for (const s of [...CRAWL_STAGES, ...OTHER_STAGES]) {
    const share = per((r) => (r.stages!.ms[s.key] ?? 0) / r.stages!.mainMs);
    const kernel = per((r) => (r.stages!.kernelMs[s.key] ?? 0) / r.stages!.mainMs);
    const sampled = per((r) => ((r.stages!.ms[s.key] ?? 0) * 1000) / r.pages);
    const scaled = base === undefined ? '' : `${us(share * base)} (kernel ${(kernel * base).toFixed(1)})`;
    log(`  ${scaled} ${(share * 100).toFixed(1).padStart(5)} % ${us(sampled)} sampled  ${s.label}`);
  }
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const scratch = mkdtempSync(join('/dev/shm', 'stages-'));
  const work = mkdtempSync(join(tmpdir(), 'stages-'));
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
  log(`stages: commit ${git}, node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? '?'}; load ${loadavg()[0]!.toFixed(2)}`);
  const port = await freePort();
  const site = generateSite(join(work, 'site'), { pages: o.pages, origin: `http://127.0.0.1:${port}` });
  const results: Record<string, unknown> = { meta: { date: new Date().toISOString(), git, node: process.version, cpus: cpus().length, options: o } };
  let server: Awaited<ReturnType<typeof startSiteServer>> | undefined;
  /** The crawl's thread's CPU a page without a sampler, once the crawl section has run. */
  let base: number | undefined;
  try {
    if (o.only.includes('isolation')) {
      const parts = crawlParts(site);
      const steps = crawlSequence(site, parts);
      const counts = sequenceCounts(steps);
      log(`sequence: ${counts.requests} requests, ${counts.saved} pages saved (expected ${site.expected.size}), ${counts.notFound} 404s, ${counts.scanned} scanned, ${counts.links} links, ${counts.queued} queued`);
      if (counts.saved !== site.expected.size) throw new Error('the sequence does not save the expected pages');
      // This process is one of the load while it measures.
      const timings = await timeStages(stages(steps, parts, scratch), counts.saved, { warmup: o.warmup, passes: o.passes, quiet: () => waitQuiet(o.maxLoad + 1, o.noWait), log });
      printIsolation(timings);
      results['isolation'] = { counts, timings };
    }
    const c: CrawlContext = { site, repo, scratch, quiet: () => waitQuiet(o.maxLoad, o.noWait), log };
    if (o.only.includes('crawl') || o.only.includes('perf')) {
      server = await startSiteServer(site.root, join(work, 'server'), port);
      log(`\nserver: ${server.description}`);
    }
    if (o.only.includes('crawl')) {
      const runs: CrawlRunResult[] = [];
      for (let r = 0; r < o.runs; r++) for (const kind of ['plain', 'hooked', 'profiled', 'pages-thread'] as const) runs.push(await crawlOnce(c, kind));
      printCrawl(runs);
      base = threadBase(runs);
      results['crawl'] = { runs, table: crawlTable(runs), threadBaseUs: base };
    }
    if (o.only.includes('perf')) {
      const why = perfUnavailable();
      if (why !== undefined) {
        log(`\nperf: ${why}`);
        results['perf'] = { unavailable: why };
      } else {
        const runs: PerfRun[] = [];
        const wget2: Array<Awaited<ReturnType<typeof wget2Once>>> = [];
        for (let r = 0; r < o.runs; r++) {
          wget2.push(await wget2Once(c));
          runs.push(await perfOnce(c, 'wget2', o.perfHz));
          runs.push(await perfOnce(c, 'ours', o.perfHz));
        }
        printPerf(runs, wget2, base);
        results['perf'] = { hz: o.perfHz, wget2, runs };
      }
    }
  } finally {
    await server?.stop();
    rmSync(scratch, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
  mkdirSync(dirname(o.json), { recursive: true });
  writeFileSync(o.json, JSON.stringify(results, null, 1));
  log(`\nresults: ${o.json}`);
}

await main();
