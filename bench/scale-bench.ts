/**
 * The bench's `scale` section: a crawl shared by several worker processes
 * (`crawler --frontier postgresql://...`), pages/s for 1, 2 and 4 workers on
 * 1 host and on 100 hosts (127.0.0.1 to 127.0.0.100, one port), delay 0,
 * with the private (default) crawl beside them; and the shared SQLite
 * store's pages/s and peak resident memory with 1,000,000 URLs known.
 *
 * PostgreSQL: the server in PC_BENCH_PG_URL (a superuser URL; a database is
 * created per run), or a throwaway cluster started by scripts/pg-cluster.js
 * (as the tests do). Without either the PostgreSQL rows are skipped with the
 * reason. Also runs alone: `node dist/bench/scale-bench.js [--quick]
 * [--latency | --no-latency] [--rounds N]`.
 *
 * With latency (issue 16): every answer 100 ms late, 20 hosts, 1,600 pages,
 * 1, 2, 4 and 8 PostgreSQL workers and the private crawl at --concurrency
 * 16; the speed-up of 4 and 8 workers over one against its target, the
 * median of the rounds' (the bench's --rounds, default 3).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureFrontierMemory } from '../scripts/measure-memory.js';
import { freshDatabase, postgres } from './postgres.js';
import { median, medianPairedRatio } from './stats.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ScaleRow {
  /** `postgresql` (workers sharing a database) or `private` (one process, the default state in pageDirectory). */
  frontier: 'postgresql' | 'private';
  hosts: number;
  workers: number;
  pages: number;
  seconds: number;
  pagesPerSecond: number;
}

export interface ScaleResults {
  pages: number;
  rows: ScaleRow[];
  /** Why the PostgreSQL rows are missing, if they are. */
  skipped: string | undefined;
  sqlite1M: { urls: number; pages: number; seconds: number; pagesPerSecond: number; peakRssMB: number } | undefined;
  /** The rows with latency (issue 16), when that part ran. */
  latency: LatencyResults | undefined;
}

export interface ScaleSiteOptions {
  pages: number;
  hosts: number;
  /** Every answer is sent this many ms after its request arrived (default 0). */
  latencyMs?: number;
  /** The seed (page 0) links to pages 1..seedLinks instead of 1..10, so that many pages of every host are known after one page (default 10). */
  seedLinks?: number;
}

/**
 * A site of `pages` pages spread over `hosts` loopback addresses: page k
 * lives on host k % hosts and links to 10k+1..10k+10 (the seed to
 * 1..seedLinks) and 3 older pages.
 */
export async function startScaleSite(options: ScaleSiteOptions): Promise<{ origins: string[]; close(): Promise<void> }> {
  const { pages, hosts, latencyMs = 0, seedLinks = 10 } = options;
  const filler = `<p>${'lorem ipsum dolor sit amet '.repeat(60)}</p>\n`;
  const hostOf = (k: number): number => k % hosts;
  let port = 0;
  const origin = (k: number): string => `http://127.0.0.${hostOf(k) + 1}:${port}`;
  const children = (k: number): number[] => {
    const [first, last] = k === 0 ? [1, seedLinks] : [10 * k + 1, 10 * k + 10];
    return Array.from({ length: last - first + 1 }, (_, j) => first + j).filter((c) => c < pages);
  };
  const answer = (req: { url?: string | undefined }, res: import('node:http').ServerResponse): void => {
    const m = /^\/p\/([0-9]+)\.html$/.exec(req.url ?? '');
    const k = m === null ? -1 : Number(m[1]);
    if (k < 0 || k >= pages) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not found</html>');
      return;
    }
    let body = `<html><head><title>page ${k}</title></head><body>\n${filler}`;
    for (const c of children(k)) body += `<a href="${origin(c)}/p/${c}.html">child</a>\n`;
    for (const old of [k >> 1, k >> 2, k >> 3]) body += `<a href="${origin(old)}/p/${old}.html">older</a>\n`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(body + '</body></html>\n');
  };
  const handler = latencyMs > 0 ? (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse): void => void setTimeout(() => answer(req, res), latencyMs) : answer;
  const servers: Server[] = [];
  for (let h = 0; h < hosts; h++) {
    const server = createServer({ keepAliveTimeout: 30_000 }, handler);
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(port, `127.0.0.${h + 1}`, () => ok());
    });
    port = (server.address() as AddressInfo).port;
    servers.push(server);
  }
  return {
    origins: Array.from({ length: hosts }, (_, h) => `http://127.0.0.${h + 1}:${port}`),
    close: () => Promise.all(servers.map((s) => new Promise<void>((ok) => (s.closeAllConnections(), s.close(() => ok()))))).then(() => undefined),
  };
}

/** Runs `workers` crawler processes with `args` (page directory last but one), each into its own directory; resolves with pages saved and wall seconds. */
async function runWorkers(workers: number, args: (dir: string) => string[]): Promise<{ pages: number; seconds: number }> {
  const dirs = Array.from({ length: workers }, () => mkdtempSync(join(tmpdir(), 'scale-pages-')));
  const started = performance.now();
  try {
    const ends = await Promise.all(
      dirs.map(
        (dir) =>
          new Promise<{ code: number | null; stderr: string }>((ok) => {
            const child = spawn(join(root, 'crawler'), args(dir), { stdio: ['ignore', 'ignore', 'pipe'] });
            let stderr = '';
            child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
            child.on('close', (code) => ok({ code, stderr }));
          }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const failed = ends.find((e) => e.code !== 0);
    if (failed !== undefined) throw new Error(`a worker exited ${failed.code}: ${failed.stderr.trim()}`);
    const pages = dirs.reduce((n, d) => n + readdirSync(d).filter((f) => /^[0-9]+$/.test(f)).length, 0);
    return { pages, seconds };
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

/** The latency rows' site and targets (issue 16): every answer 100 ms late, 20 hosts, 1,600 pages. */
export const LATENCY = { pages: 1600, hosts: 20, latencyMs: 100, workers: [1, 2, 4, 8], privateConcurrency: 16, targets: [{ workers: 4, least: 3.6 }, { workers: 8, least: 6 }] } as const;

export interface SpeedUpTarget {
  workers: number;
  /** Least speed-up over one worker asked for. */
  target: number;
  /** Measured: this many workers' pages/s over one worker's (undefined when a row is missing). */
  speedUp: number | undefined;
  met: boolean;
}

export interface LatencyResults {
  pages: number;
  hosts: number;
  latencyMs: number;
  /** Rounds run: each row's figures are medians over them. */
  rounds: number;
  /** The PostgreSQL rows (1, 2, 4, 8 workers) and the private crawl at --concurrency 16 (`concurrency` set), with each round's seconds. */
  rows: Array<ScaleRow & { concurrency?: number; roundSeconds?: number[] }>;
  /** Each PostgreSQL row's pages/s over one worker's, by workers: the median of the rounds' ratios. */
  speedUps: Record<string, number>;
  targets: SpeedUpTarget[];
}

export interface ScaleOptions {
  pages: number;
  quick: boolean;
  log: (line: string) => void;
  /** Which parts run (default both): the no-latency rows with the SQLite store, the latency rows. */
  parts?: ReadonlyArray<'plain' | 'latency'>;
  /** Rounds of the latency rows (default 1). */
  rounds?: number;
}

export async function scaleSection(options: ScaleOptions): Promise<ScaleResults> {
  const { pages, log } = options;
  const parts = options.parts ?? ['plain', 'latency'];
  const results: ScaleResults = { pages, rows: [], skipped: undefined, sqlite1M: undefined, latency: undefined };
  const server = await postgres();
  if ('skip' in server) {
    results.skipped = server.skip;
    log(`  scale: PostgreSQL rows skipped: ${server.skip}`);
  }
  try {
    if (parts.includes('plain')) {
      for (const hosts of [1, 100]) {
        const site = await startScaleSite({ pages, hosts });
        const { seed, common } = crawlArgs(site.origins);
        try {
          const own = await runWorkers(1, (dir) => [...common, seed, dir, '20']);
          results.rows.push(row('private', hosts, 1, own));
          log(`  scale: private crawl, ${hosts} host(s): ${own.pages} pages in ${own.seconds.toFixed(2)} s`);
          if ('url' in server) {
            for (const workers of [1, 2, 4]) {
              const db = await freshDatabase(server.url, `pc_bench_${hosts}_${workers}`);
              const r = await runWorkers(workers, (dir) => ['--frontier', db, ...common, seed, dir, '20']);
              results.rows.push(row('postgresql', hosts, workers, r));
              log(`  scale: PostgreSQL, ${hosts} host(s), ${workers} worker(s): ${r.pages} pages in ${r.seconds.toFixed(2)} s`);
            }
          }
        } finally {
          await site.close();
        }
      }
    }
    if (parts.includes('latency')) results.latency = await latencyRows('url' in server ? server.url : undefined, options.rounds ?? 1, log);
  } finally {
    if ('url' in server) server.stop();
  }
  if (!parts.includes('plain')) return results;
  const links = options.quick ? 300 : 1000;
  const dir = mkdtempSync(join(tmpdir(), 'scale-sqlite-'));
  try {
    const m = await measureFrontierMemory(links, ['--frontier', `sqlite:${join(dir, 'frontier.db')}`]);
    results.sqlite1M = { ...m, pagesPerSecond: Math.round(m.pages / m.seconds) };
    log(`  scale: SQLite shared store, ${m.urls.toLocaleString('en-US')} URLs: ${m.pages} pages in ${m.seconds} s, peak RSS ${m.peakRssMB} MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

/** The seed and the flags every scale run shares: delay 0, robots ignored, every host of the site in scope. */
function crawlArgs(origins: readonly string[]): { seed: string; common: string[] } {
  const scope = origins.flatMap((o) => ['--internal', o]);
  return { seed: `${origins[0]}/p/0.html`, common: ['--delay', '0', '--quiet', '--ignore-robots', '--depth-limit', '20', ...scope] };
}

/** What one row did in each round of the latency part: pages saved and wall seconds, by round. */
export interface RoundRuns {
  pages: number[];
  seconds: number[];
}

/** Each round's pages/s. */
const ratesOf = (runs: RoundRuns): number[] => runs.pages.map((p, k) => p / (runs.seconds[k] as number));

/**
 * A row from its rounds: the median seconds, the fewest pages any round
 * saved (so a short round shows as missing pages), and the median of the
 * rounds' pages/s.
 */
export function rowOfRounds(frontier: ScaleRow['frontier'], hosts: number, workers: number, runs: RoundRuns): ScaleRow & { roundSeconds: number[] } {
  return {
    frontier,
    hosts,
    workers,
    pages: Math.min(...runs.pages),
    seconds: Number(median(runs.seconds).toFixed(2)),
    pagesPerSecond: Math.round(median(ratesOf(runs))),
    roundSeconds: runs.seconds.map((x) => Number(x.toFixed(2))),
  };
}

/** Each worker count's speed-up over one worker: the median of its rounds' pages/s over one worker's in the same round. */
export function speedUpsOf(byWorkers: ReadonlyMap<number, RoundRuns>): Record<string, number> {
  const one = byWorkers.get(1);
  const out: Record<string, number> = {};
  if (one === undefined) return out;
  for (const [workers, runs] of byWorkers) out[String(workers)] = Number(medianPairedRatio(ratesOf(runs), ratesOf(one)).toFixed(2));
  return out;
}

/**
 * The latency rows: the private crawl at --concurrency 16, then 1, 2, 4 and
 * 8 PostgreSQL workers (default --concurrency), on a site whose every answer
 * is LATENCY.latencyMs late; the seed links 4 pages of every host, so the
 * frontier is wide after one page. Each row runs once a round; rows and
 * speed-ups are medians over the rounds (the speed-ups paired by round).
 * Without PostgreSQL only the private row.
 */
async function latencyRows(pgUrl: string | undefined, rounds: number, log: (line: string) => void): Promise<LatencyResults> {
  const { pages, hosts, latencyMs, privateConcurrency } = LATENCY;
  const out: LatencyResults = { pages, hosts, latencyMs, rounds, rows: [], speedUps: {}, targets: [] };
  const site = await startScaleSite({ pages, hosts, latencyMs, seedLinks: 4 * hosts });
  const { seed, common } = crawlArgs(site.origins);
  const what = `${hosts} hosts, ${latencyMs} ms latency`;
  const own: RoundRuns = { pages: [], seconds: [] };
  const byWorkers = new Map<number, RoundRuns>();
  const keep = (runs: RoundRuns, r: { pages: number; seconds: number }): void => {
    runs.pages.push(r.pages);
    runs.seconds.push(r.seconds);
  };
  try {
    for (let round = 1; round <= rounds; round++) {
      const tag = rounds > 1 ? ` (round ${round} of ${rounds})` : '';
      const r = await runWorkers(1, (dir) => ['--concurrency', String(privateConcurrency), ...common, seed, dir, '20']);
      keep(own, r);
      log(`  scale: private crawl --concurrency ${privateConcurrency}, ${what}: ${r.pages} pages in ${r.seconds.toFixed(2)} s${tag}`);
      if (pgUrl === undefined) continue;
      for (const workers of LATENCY.workers) {
        const db = await freshDatabase(pgUrl, `pc_bench_latency_${workers}`);
        const w = await runWorkers(workers, (dir) => ['--frontier', db, ...common, seed, dir, '20']);
        const runs = byWorkers.get(workers) ?? { pages: [], seconds: [] };
        byWorkers.set(workers, runs);
        keep(runs, w);
        log(`  scale: PostgreSQL, ${what}, ${workers} worker(s): ${w.pages} pages in ${w.seconds.toFixed(2)} s${tag}`);
      }
    }
  } finally {
    await site.close();
  }
  out.rows.push({ ...rowOfRounds('private', hosts, 1, own), concurrency: privateConcurrency });
  for (const [workers, runs] of byWorkers) out.rows.push(rowOfRounds('postgresql', hosts, workers, runs));
  out.speedUps = speedUpsOf(byWorkers);
  out.targets = LATENCY.targets.map(({ workers, least: target }) => {
    const speedUp = out.speedUps[String(workers)];
    return { workers, target, speedUp, met: speedUp !== undefined && speedUp >= target };
  });
  return out;
}

function row(frontier: ScaleRow['frontier'], hosts: number, workers: number, r: { pages: number; seconds: number }): ScaleRow {
  return { frontier, hosts, workers, pages: r.pages, seconds: Number(r.seconds.toFixed(2)), pagesPerSecond: Math.round(r.pages / r.seconds) };
}

/** What failed in the section: pages missing from a row, a speed-up target not met. */
export function scaleProblems(r: ScaleResults): string[] {
  const problems: string[] = [];
  for (const x of r.rows) if (x.pages !== r.pages) problems.push(`scale: ${x.frontier} ${x.hosts} host(s) ${x.workers} worker(s) saved ${x.pages} of ${r.pages} pages`);
  const l = r.latency;
  if (l === undefined) return problems;
  for (const x of l.rows) if (x.pages !== l.pages) problems.push(`scale, ${l.latencyMs} ms latency: ${x.frontier} ${x.workers} worker(s) saved ${x.pages} of ${l.pages} pages`);
  for (const t of l.targets) {
    if (!t.met) problems.push(`scale, ${l.latencyMs} ms latency: ${t.workers} PostgreSQL workers ${t.speedUp === undefined ? 'not measured' : `${t.speedUp.toFixed(2)}x`} one worker (target >= ${t.target}x)`);
  }
  return problems;
}

const tableRow = (x: ScaleRow, first: string, last = ''): string =>
  `  ${first.padEnd(11)} ${String(x.hosts).padStart(6)} ${String(x.workers).padStart(8)} ${String(x.pages).padStart(8)} ${x.seconds.toFixed(2).padStart(8)} ${String(x.pagesPerSecond).padStart(8)}${last}`;

/** The section as table lines. */
export function formatScale(r: ScaleResults): string[] {
  const lines: string[] = [];
  const header = '  frontier     hosts  workers    pages  seconds  pages/s';
  if (r.rows.length > 0 || r.sqlite1M !== undefined) {
    lines.push(`Scale: ${r.pages.toLocaleString('en-US')} pages, delay 0, every page saved by exactly one worker`, header);
    for (const x of r.rows) lines.push(tableRow(x, x.frontier));
  }
  if (r.skipped !== undefined) lines.push(`  (PostgreSQL rows skipped: ${r.skipped})`);
  const s = r.sqlite1M;
  if (s !== undefined) lines.push(`  SQLite shared store with ${s.urls.toLocaleString('en-US')} URLs known: ${s.pagesPerSecond} pages/s, peak RSS ${s.peakRssMB} MB`);
  const l = r.latency;
  if (l !== undefined) {
    if (lines.length > 0) lines.push('');
    const medians = l.rounds > 1 ? `; medians of ${l.rounds} rounds, speed-ups paired by round` : '';
    lines.push(`Scale with latency: ${l.pages.toLocaleString('en-US')} pages on ${l.hosts} hosts, every answer ${l.latencyMs} ms late, delay 0${medians}`, `${header}  vs 1 worker`);
    for (const x of l.rows) {
      const speedUp = l.speedUps[String(x.workers)];
      lines.push(x.frontier === 'private' ? tableRow(x, `private/c${x.concurrency ?? ''}`) : tableRow(x, x.frontier, speedUp === undefined ? '' : `${speedUp.toFixed(2).padStart(10)}x`));
    }
    for (const t of l.targets) lines.push(`  target: ${t.workers} workers >= ${t.target}x one worker: ${t.speedUp === undefined ? 'not measured' : `${t.speedUp.toFixed(2)}x, ${t.met ? 'met' : 'NOT MET'}`}`);
  }
  return lines;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const quick = process.argv.includes('--quick');
  const at = process.argv.indexOf('--rounds');
  const rounds = at > 0 ? Number(process.argv[at + 1]) : 1;
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error('scale-bench: --rounds takes a whole number of at least 1');
    process.exit(2);
  }
  // --latency: only the rows with latency; --no-latency: only the others.
  const parts = process.argv.includes('--latency') ? (['latency'] as const) : process.argv.includes('--no-latency') ? (['plain'] as const) : undefined;
  scaleSection({ pages: quick ? 500 : 2000, quick, rounds, log: (l) => process.stderr.write(`${l}\n`), ...(parts === undefined ? {} : { parts }) }).then(
    (r) => console.log(formatScale(r).join('\n')),
    (err: unknown) => {
      console.error(`scale-bench: ${String(err)}`);
      process.exit(1);
    },
  );
}
