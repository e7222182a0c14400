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
 * reason. Also runs alone: `node dist/bench/scale-bench.js [--quick]`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { measureFrontierMemory } from '../scripts/measure-memory.js';

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
}

/** A site of `pages` pages spread over `hosts` loopback addresses: page k lives on host k % hosts and links to 10k+1..10k+10 and 3 older pages. */
export async function startScaleSite(pages: number, hosts: number): Promise<{ origins: string[]; close(): Promise<void> }> {
  const filler = `<p>${'lorem ipsum dolor sit amet '.repeat(60)}</p>\n`;
  const hostOf = (k: number): number => k % hosts;
  let port = 0;
  const origin = (k: number): string => `http://127.0.0.${hostOf(k) + 1}:${port}`;
  const handler = (req: { url?: string | undefined }, res: import('node:http').ServerResponse): void => {
    const m = /^\/p\/([0-9]+)\.html$/.exec(req.url ?? '');
    const k = m === null ? -1 : Number(m[1]);
    if (k < 0 || k >= pages) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html>not found</html>');
      return;
    }
    let body = `<html><head><title>page ${k}</title></head><body>\n${filler}`;
    for (let j = 1; j <= 10; j++) if (10 * k + j < pages) body += `<a href="${origin(10 * k + j)}/p/${10 * k + j}.html">child ${j}</a>\n`;
    for (const old of [k >> 1, k >> 2, k >> 3]) body += `<a href="${origin(old)}/p/${old}.html">older</a>\n`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(body + '</body></html>\n');
  };
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

interface PgServer {
  url: string;
  stop(): void;
}

/** The PostgreSQL server to use, or why there is none. */
async function postgres(): Promise<PgServer | { skip: string }> {
  const given = process.env['PC_BENCH_PG_URL'];
  if (given !== undefined && given !== '') return { url: given, stop: () => undefined };
  const mod = (await import(pathToFileURL(join(root, 'scripts', 'pg-cluster.js')).href)) as { startCluster(): Promise<PgServer | { skip: string }> };
  return mod.startCluster();
}

async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function scaleSection(options: { pages: number; quick: boolean; log: (line: string) => void }): Promise<ScaleResults> {
  const { pages, log } = options;
  const results: ScaleResults = { pages, rows: [], skipped: undefined, sqlite1M: undefined };
  const server = await postgres();
  if ('skip' in server) {
    results.skipped = server.skip;
    log(`  scale: PostgreSQL rows skipped: ${server.skip}`);
  }
  try {
    for (const hosts of [1, 100]) {
      const site = await startScaleSite(pages, hosts);
      const scope = site.origins.flatMap((o) => ['--internal', o]);
      const seed = `${site.origins[0]}/p/0.html`;
      const common = ['--delay', '0', '--quiet', '--ignore-robots', '--depth-limit', '20', ...scope];
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
  } finally {
    if ('url' in server) server.stop();
  }
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

function row(frontier: ScaleRow['frontier'], hosts: number, workers: number, r: { pages: number; seconds: number }): ScaleRow {
  return { frontier, hosts, workers, pages: r.pages, seconds: Number(r.seconds.toFixed(2)), pagesPerSecond: Math.round(r.pages / r.seconds) };
}

/** The section as table lines. */
export function formatScale(r: ScaleResults): string[] {
  const lines = [`Scale: ${r.pages.toLocaleString('en-US')} pages, delay 0, every page saved by exactly one worker`];
  lines.push('  frontier     hosts  workers    pages  seconds  pages/s');
  for (const x of r.rows) {
    lines.push(`  ${x.frontier.padEnd(11)} ${String(x.hosts).padStart(6)} ${String(x.workers).padStart(8)} ${String(x.pages).padStart(8)} ${x.seconds.toFixed(2).padStart(8)} ${String(x.pagesPerSecond).padStart(8)}`);
  }
  if (r.skipped !== undefined) lines.push(`  (PostgreSQL rows skipped: ${r.skipped})`);
  const s = r.sqlite1M;
  if (s !== undefined) lines.push(`  SQLite shared store with ${s.urls.toLocaleString('en-US')} URLs known: ${s.pagesPerSecond} pages/s, peak RSS ${s.peakRssMB} MB`);
  return lines;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const quick = process.argv.includes('--quick');
  scaleSection({ pages: quick ? 500 : 2000, quick, log: (l) => process.stderr.write(`${l}\n`) }).then(
    (r) => console.log(formatScale(r).join('\n')),
    (err: unknown) => {
      console.error(`scale-bench: ${String(err)}`);
      process.exit(1);
    },
  );
}
