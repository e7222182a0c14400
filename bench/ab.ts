/**
 * `node dist/bench/ab.js A_DIR B_DIR [options]`: two builds of the crawler
 * (each a checkout with `npm run build` done: A_DIR/crawler and
 * B_DIR/crawler), crawled over the same generated site from the same
 * server in alternating rounds (A B, then B A, ...), so a change is judged
 * against its parent on the same machine within seconds, not by two bench
 * runs half an hour apart (docs/performance.md, How to measure).
 *
 * Prints, for each variant (the same flags given to both builds), the
 * median pages/s, CPU per page and peak RSS of each build and the median of
 * the per-round ratios B / A; every run's page count is checked against the
 * site's expected set. Options: --pages N (10,000), --rounds N (5), --fs
 * tmpfs|disk (tmpfs: /dev/shm), --variant "NAME:FLAGS" (repeatable; default
 * `plain:` only; FLAGS may hold {OUT}, a file beside the page directory),
 * --json FILE.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runMeasured, type Measured } from './measure.js';
import { firstLine } from './peers.js';
import { freePort, startSiteServer } from './servers.js';
import { generateSite, type Site } from './site.js';
import { median, medianPairedRatio } from './stats.js';

interface Options {
  a: string;
  b: string;
  pages: number;
  rounds: number;
  fs: 'tmpfs' | 'disk';
  variants: Array<{ name: string; flags: string[] }>;
  json: string | undefined;
}

const USAGE = 'usage: node dist/bench/ab.js A_DIR B_DIR [--pages N] [--rounds N] [--fs tmpfs|disk] [--variant "NAME:FLAGS"]... [--json FILE]';

function parse(argv: string[]): Options {
  const o: Options = { a: '', b: '', pages: 10_000, rounds: 5, fs: 'tmpfs', variants: [], json: undefined };
  const dirs: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const next = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    if (a === '--pages') o.pages = Number(next());
    else if (a === '--rounds') o.rounds = Number(next());
    else if (a === '--fs') o.fs = next() === 'disk' ? 'disk' : 'tmpfs';
    else if (a === '--json') o.json = next();
    else if (a === '--variant') {
      const v = next();
      const colon = v.indexOf(':');
      if (colon < 1) throw new Error(`--variant is NAME:FLAGS, got ${JSON.stringify(v)}`);
      o.variants.push({ name: v.slice(0, colon), flags: v.slice(colon + 1).split(' ').filter((f) => f !== '') });
    } else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (a.startsWith('-')) throw new Error(`unknown option ${a}\n${USAGE}`);
    else dirs.push(resolve(a));
  }
  if (dirs.length !== 2) throw new Error(USAGE);
  [o.a, o.b] = dirs as [string, string];
  if (!(o.pages > 0) || !(o.rounds > 0)) throw new Error(`--pages and --rounds must be positive\n${USAGE}`);
  if (o.variants.length === 0) o.variants.push({ name: 'plain', flags: [] });
  return o;
}

/** The expected pages a run saved (its page files' URLs). */
function savedExpected(dir: string, site: Site): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    if (!/^[1-9][0-9]*$/.test(name)) continue;
    const url = firstLine(join(dir, name));
    if (site.expected.has(url.startsWith(site.origin) ? url.slice(site.origin.length) : url)) n++;
  }
  return n;
}

interface Row {
  variant: string;
  a: { pagesPerSec: number; cpuUsPerPage: number; rssMiB: number };
  b: { pagesPerSec: number; cpuUsPerPage: number; rssMiB: number };
  /** Medians of the per-round ratios B / A. */
  ratio: { pagesPerSec: number; cpuPerPage: number };
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  const work = mkdtempSync(join(tmpdir(), 'crawler-ab-'));
  const runsRoot = o.fs === 'tmpfs' ? mkdtempSync('/dev/shm/crawler-ab-') : join(work, 'runs');
  mkdirSync(runsRoot, { recursive: true });
  const port = await freePort();
  const site = generateSite(join(work, 'site'), { pages: o.pages, origin: `http://127.0.0.1:${port}` });
  const server = await startSiteServer(site.root, join(work, 'server'), port);
  const load = loadavg()[0] ?? 0;
  console.log(`ab: A ${o.a}\n    B ${o.b}\n    ${site.expected.size} URLs, ${o.rounds} rounds, pages on ${o.fs}, ${server.description}; load ${load.toFixed(2)} on ${cpus().length} CPUs${load > cpus().length * 0.5 ? ' (busy: timings are noisy)' : ''}`);
  const rows: Row[] = [];
  let run = 0;
  try {
    for (const v of o.variants) {
      const runs: Record<'a' | 'b', Measured[]> = { a: [], b: [] };
      for (let round = 0; round < o.rounds; round++) {
        // A B, then B A: neither build always goes first (a warm page cache, a cooler CPU).
        const order: Array<'a' | 'b'> = round % 2 === 0 ? ['a', 'b'] : ['b', 'a'];
        for (const which of order) {
          const dir = join(runsRoot, `${which}-${run++}`);
          mkdirSync(dir);
          const flags = v.flags.map((f) => f.replace('{OUT}', `${dir}-out`));
          const m = await runMeasured(join(o[which], 'crawler'), [...flags, '--delay', '0', '--quiet', site.seedUrl, dir, String(site.maxDepth)], { cwd: o[which], timeoutMs: 600_000 });
          const saved = savedExpected(dir, site);
          if (m.exitCode !== 0 || saved !== site.expected.size) throw new Error(`${which.toUpperCase()} ${v.name}: exit ${m.exitCode}, ${saved} of ${site.expected.size} pages\n${m.stderr}`);
          runs[which].push(m);
          console.log(`  ${v.name} round ${round + 1} ${which.toUpperCase()}: ${(saved / m.wallSeconds).toFixed(0)} pages/s, ${((m.cpuSeconds * 1e6) / saved).toFixed(0)} us CPU/page, ${m.maxRssMiB.toFixed(0)} MiB`);
          rmSync(dir, { recursive: true, force: true });
          for (const ext of ['.warc', '.warc.gz', '.wacz', '.cdxj']) rmSync(`${dir}-out${ext}`, { force: true });
        }
      }
      const n = site.expected.size;
      const pps = (ms: Measured[]): number[] => ms.map((m) => n / m.wallSeconds);
      const cpu = (ms: Measured[]): number[] => ms.map((m) => (m.cpuSeconds * 1e6) / n);
      const side = (ms: Measured[]): Row['a'] => ({ pagesPerSec: median(pps(ms)), cpuUsPerPage: median(cpu(ms)), rssMiB: Math.max(...ms.map((m) => m.maxRssMiB)) });
      rows.push({ variant: v.name, a: side(runs.a), b: side(runs.b), ratio: { pagesPerSec: medianPairedRatio(pps(runs.b), pps(runs.a)), cpuPerPage: medianPairedRatio(cpu(runs.b), cpu(runs.a)) } });
    }
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
    if (o.fs === 'tmpfs') rmSync(runsRoot, { recursive: true, force: true });
  }
  console.log('\nvariant            A pages/s  B pages/s  B/A pages/s   A us/page  B us/page  B/A CPU   A MiB  B MiB');
  for (const r of rows) {
    const cell = (x: number, w: number, d = 0): string => x.toFixed(d).padStart(w);
    console.log(`${r.variant.padEnd(18)} ${cell(r.a.pagesPerSec, 9)}  ${cell(r.b.pagesPerSec, 9)}  ${cell(r.ratio.pagesPerSec, 10, 3)}x  ${cell(r.a.cpuUsPerPage, 9)}  ${cell(r.b.cpuUsPerPage, 9)}  ${cell(r.ratio.cpuPerPage, 6, 3)}x  ${cell(r.a.rssMiB, 6)} ${cell(r.b.rssMiB, 6)}`);
  }
  console.log(`(medians of ${o.rounds} rounds; B/A = median of the per-round ratios; load at the end ${(loadavg()[0] ?? 0).toFixed(2)})`);
  if (o.json !== undefined) writeFileSync(o.json, `${JSON.stringify({ a: o.a, b: o.b, pages: site.expected.size, rounds: o.rounds, fs: o.fs, rows }, null, 2)}\n`);
}

main().catch((err: unknown) => {
  console.error(`ab: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
