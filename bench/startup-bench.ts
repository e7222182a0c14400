/**
 * Section "startup": what a short run costs beyond starting node. Each
 * variant crawls a one-page site on loopback (robots.txt answers 404, the
 * page links nowhere), `--delay 0`, into a new directory; `node -e 0` is the
 * floor. Variants run in turn within each round (the order rotates), for
 * `rounds` rounds (at least 10); the table gives the median wall time, the
 * median of the per-round differences to `node -e 0` (paired, so the load
 * of the moment cancels) and the mean CPU time.
 *
 * CPU (user+sys) is read from this process's cutime+cstime in /proc, which
 * grow when a child is waited for: clock ticks of 10 ms, so one run's figure
 * is coarse but the mean over the rounds is not.
 *
 * Also a command: `node dist/bench/startup-bench.js [ROUNDS]` runs the
 * variants that are built.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, pairedDifferences } from './stats.js';

/** One way of starting a program: argv[0] is the executable. `{SEED}` and `{DIR}` are replaced per run. */
export interface StartupVariant {
  name: string;
  argv: string[];
  /** Why it is not run (not built, not installed); the row says so. */
  skip?: string;
}

export interface StartupRow {
  name: string;
  command: string;
  available: boolean;
  note?: string;
  wallMs: number[];
  medianWallMs: number;
  /** Median of (this - node -e 0) per round. */
  overNodeMs: number;
  meanCpuMs: number;
  failures: number;
}

export interface StartupResult {
  rounds: number;
  rows: StartupRow[];
  /** `node -e 0` plus 40 ms. */
  targetOverNodeMs: number;
}

const CLK_TCK = 100;

/** cutime + cstime of this process, in ms (children that were waited for). */
function childrenCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK;
}

/** A one-page site: `/` is a small HTML page without links, everything else 404. */
export async function onePageServer(): Promise<{ url: string; server: Server }> {
  const page = '<!DOCTYPE html>\n<html><head><title>one</title></head><body><p>one page, the needle</p></body></html>\n';
  const server = createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(page) }).end(page);
    else res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 10 }).end('not found\n');
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

async function runOnce(argv: string[], cwd: string): Promise<{ ms: number; cpuMs: number; code: number | null }> {
  const cpu0 = childrenCpuMs();
  const t0 = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'ignore', 'ignore'] });
  const code = await new Promise<number | null>((res, rej) => {
    child.once('error', rej);
    child.once('close', (c) => res(c));
  });
  return { ms: performance.now() - t0, cpuMs: childrenCpuMs() - cpu0, code };
}

/** Runs every available variant `rounds` times, rotating the order, against a one-page site. */
export async function startupSection(variants: StartupVariant[], cwd: string, rounds = 10, scratch = tmpdir()): Promise<StartupResult> {
  const { url, server } = await onePageServer();
  const live = variants.filter((v) => v.skip === undefined);
  const wall = new Map<string, number[]>(live.map((v) => [v.name, []]));
  const cpu = new Map<string, number>(live.map((v) => [v.name, 0]));
  const failures = new Map<string, number>(live.map((v) => [v.name, 0]));
  try {
    // One warm-up run each (page cache, the first spawn), not counted.
    for (let round = -1; round < rounds; round++) {
      for (let k = 0; k < live.length; k++) {
        const v = live[(k + Math.max(0, round)) % live.length]!;
        const dir = mkdtempSync(join(scratch, 'startup-'));
        const argv = v.argv.map((a) => a.replace('{SEED}', url).replace('{DIR}', dir));
        const r = await runOnce(argv, cwd);
        rmSync(dir, { recursive: true, force: true });
        if (round < 0) continue;
        wall.get(v.name)!.push(r.ms);
        cpu.set(v.name, cpu.get(v.name)! + r.cpuMs);
        if (r.code !== 0) failures.set(v.name, failures.get(v.name)! + 1);
      }
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
  const floor = wall.get(variants[0]!.name) ?? [];
  const rows = variants.map((v): StartupRow => {
    const w = wall.get(v.name);
    const command = v.argv.join(' ');
    if (w === undefined) return { name: v.name, command, available: false, note: v.skip ?? 'not run', wallMs: [], medianWallMs: NaN, overNodeMs: NaN, meanCpuMs: NaN, failures: 0 };
    return {
      name: v.name,
      command,
      available: true,
      wallMs: w.map((x) => Math.round(x * 10) / 10),
      medianWallMs: median(w),
      overNodeMs: median(pairedDifferences(w, floor)),
      meanCpuMs: cpu.get(v.name)! / rounds,
      failures: failures.get(v.name)!,
    };
  });
  return { rounds, rows, targetOverNodeMs: 40 };
}

/**
 * The variants of a checkout at `repo`: `node -e 0` first (the floor), then
 * `./crawler` (the sh launcher: the bin when the bundle is current), the
 * installed bin (dist/bin/crawler.cjs: the bundle compiled with its V8 code
 * cache), the bundle alone without the cache, tsc's output unbundled (what
 * the launcher falls back to), KeywordHunter finding its keyword on the
 * seed, and `crawler --help` (the bin).
 */
export function startupVariants(repo: string): StartupVariant[] {
  const node = process.execPath;
  const args = ['--delay', '0', '{SEED}', '{DIR}', '0'];
  const built = (name: string, file: string, rest = args): StartupVariant => {
    const path = join(repo, file);
    return existsSync(path) ? { name, argv: [node, path, ...rest] } : { name, argv: [node, file, ...rest], skip: `${file} not built` };
  };
  return [
    { name: 'node -e 0', argv: [node, '-e', '0'] },
    { name: './crawler', argv: [join(repo, 'crawler'), ...args] },
    built('the installed bin (bundle + code cache)', 'dist/bin/crawler.cjs'),
    built('the bundle, no code cache', 'dist/bin/crawler.bundle.cjs'),
    built('tsc output, unbundled', 'dist/src/cli/crawler-bin.js'),
    { name: './KeywordHunter (found at once)', argv: [join(repo, 'KeywordHunter'), '{SEED}', 'needle', '{DIR}'] },
    built('crawler --help (the bin)', 'dist/bin/crawler.cjs', ['--help']),
  ];
}

export function formatStartup(s: StartupResult): string[] {
  const out = [`start-up: one-page site, --delay 0, median of ${s.rounds} rounds (order rotating); target: node -e 0 + ${s.targetOverNodeMs} ms`];
  const w = Math.max(...s.rows.map((r) => r.name.length));
  for (const r of s.rows) {
    if (!r.available) {
      out.push(`  ${r.name.padEnd(w)}  skipped: ${r.note}`);
      continue;
    }
    const over = r.name === s.rows[0]!.name ? '' : `  +${r.overNodeMs.toFixed(0)} ms over node -e 0 (paired)${r.overNodeMs <= s.targetOverNodeMs ? '' : ' OVER TARGET'}`;
    out.push(`  ${r.name.padEnd(w)}  ${r.medianWallMs.toFixed(0).padStart(5)} ms wall, ${r.meanCpuMs.toFixed(0).padStart(4)} ms CPU${over}${r.failures > 0 ? `  (${r.failures} runs failed)` : ''}`);
  }
  return out;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const rounds = Number(process.argv[2] ?? 10);
  startupSection(startupVariants(repo), repo, rounds).then(
    (s) => console.log(formatStartup(s).join('\n')),
    (err: unknown) => {
      console.error(`startup-bench: ${String(err)}`);
      process.exit(1);
    },
  );
}
