/**
 * `npm run bench` (= `node dist/bench/bench.js [options]`): the crawler's
 * benchmark, in one run, on loopback only.
 *
 *   crawl       our crawler vs GNU wget on a generated site (default 10,000
 *               pages), alternating rounds, every saved page checked
 *   small       the same on a 2,000-page site (--quick: 500), ours, wget and
 *               wget2 only, at least 5 rounds: where start-up and a cold
 *               hot path weigh more
 *   refresh     ours, then ours --since that crawl on the same site unchanged
 *               (every page 304): pages/s and bytes read against the first
 *   ceiling     the server's one-connection ceiling (own node:net loop, and
 *               wrk when installed); our pages/s as a fraction of it
 *   extract     link extraction alone on the generated pages, MB/s
 *   startup     ./crawler on a one-page site against node -e 0 (median of >= 10)
 *   politeness  ./crawler --delay 0.05 over 100 pages: overhead vs N*D
 *   pushback    every 5th request answered 429 Retry-After: 1: requests
 *               inside a pause (0) and time against the ideal (<= 1.1x)
 *   hosts       ./KeywordHunter over 4 hosts with Crawl-delay 0.5 vs 5 s
 *   scale       crawler workers sharing a PostgreSQL frontier (1, 2, 4 workers on
 *               1 and 100 hosts) beside the private crawl, and the shared
 *               SQLite store with 1,000,000 URLs known; with 100 ms latency
 *               on 20 hosts, 1, 2, 4, 8 workers against the speed-up
 *               targets, --rounds rounds of them (scale-bench.ts)
 *   profile     (only when asked) ./crawler under node --cpu-prof on the site
 *
 * Options: --pages N, --rounds N, --quick (1,000 pages, 1 round, shorter
 * timings), --only SECTION[,SECTION], --json FILE (default
 * bench-results/latest.json), --node-server (never nginx), --profile [DIR]
 * (adds the profile section; .cpuprofile files go to DIR, default
 * /tmp/prof), --profile-args "ARGS" (more crawler arguments for the
 * profiled run, e.g. "--warc /tmp/p.warc.gz"), --keep (keep the temporary directory), --scratch DIR (where
 * the temporary directory goes: default the OS temp dir; the page
 * directories live there, so its file system is part of what is measured),
 * --fs disk,tmpfs (where the crawl section's page files go: the scratch
 * directory, /dev/shm, or both, the default).
 * See bench/README.md.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { netLoop, wrkLoop } from './ceiling.js';
import { crawlSection, verifyOurs, type CrawlFs } from './crawl-bench.js';
import { findProfile, formatProfile, loadProfile, summarizeProfile } from './cpuprofile-top.js';
import { benchExtractors } from './extract-bench.js';
import { haveGnuTime, runMeasured } from './measure.js';
import { hostsSection, khHasFlag, politenessSection } from './polite-bench.js';
import { formatResults, type Results } from './report.js';
import { formatPushback, pushbackSection } from './pushback-bench.js';
import { refreshSection } from './refresh-bench.js';
import { scaleProblems, scaleSection } from './scale-bench.js';
import { formatStartup, startupSection, startupVariants } from './startup-bench.js';
import { freePort, startSiteServer, type SiteServer } from './servers.js';
import { generateSite, type Site } from './site.js';

const SECTIONS = ['crawl', 'refresh', 'small', 'startup', 'ceiling', 'extract', 'politeness', 'pushback', 'hosts', 'scale', 'profile'] as const;
type Section = (typeof SECTIONS)[number];

interface Options {
  pages: number;
  rounds: number;
  quick: boolean;
  only: Section[] | undefined;
  json: string;
  nodeServer: boolean;
  profile: string | undefined;
  /** More crawler arguments for the profile section (e.g. `--warc /tmp/p.warc.gz`). */
  profileArgs: string[];
  keep: boolean;
  scratch: string;
  /** File systems for the crawl section's page files. */
  fs: string[];
}

const USAGE = `Usage: node dist/bench/bench.js [--pages N] [--rounds N] [--quick] [--only ${SECTIONS.join('|')}[,...]]
                                [--json FILE] [--node-server] [--profile [DIR]] [--profile-args "ARGS"] [--keep] [--scratch DIR] [--fs disk,tmpfs]`;

function parseOptions(argv: string[]): Options {
  const o: Options = { pages: 10_000, rounds: 3, quick: false, only: undefined, json: 'bench-results/latest.json', nodeServer: false, profile: undefined, profileArgs: [], keep: false, scratch: tmpdir(), fs: ['disk', 'tmpfs'] };
  let pagesSet = false;
  let roundsSet = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value\n${USAGE}`);
      return v;
    };
    const count = (): number => {
      const v = value();
      if (!/^[1-9][0-9]*$/.test(v)) throw new Error(`${a} needs a positive whole number, got "${v}"`);
      return Number(v);
    };
    if (a === '--pages') (o.pages = count()), (pagesSet = true);
    else if (a === '--rounds') (o.rounds = count()), (roundsSet = true);
    else if (a === '--quick') o.quick = true;
    else if (a === '--json') o.json = value();
    else if (a === '--node-server') o.nodeServer = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--profile-args') o.profileArgs = value().split(' ').filter((x) => x !== '');
    else if (a === '--scratch') o.scratch = value();
    else if (a === '--fs') {
      o.fs = value().split(',');
      for (const f of o.fs) if (f !== 'disk' && f !== 'tmpfs') throw new Error(`--fs takes disk and/or tmpfs, got "${f}"`);
    }
    else if (a === '--profile') o.profile = argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--') ? value() : '/tmp/prof';
    else if (a === '--only') {
      const list = value().split(',');
      for (const s of list) if (!(SECTIONS as readonly string[]).includes(s)) throw new Error(`unknown section "${s}" (one of ${SECTIONS.join(', ')})`);
      o.only = list as Section[];
    } else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  if (o.quick) {
    if (!pagesSet) o.pages = 1000;
    if (!roundsSet) o.rounds = 1;
  }
  return o;
}

function sectionsOf(o: Options): Section[] {
  if (o.only !== undefined) return o.only.includes('profile') && o.profile === undefined ? (o.profile = '/tmp/prof', o.only) : o.only;
  const base: Section[] = ['crawl', 'refresh', 'small', 'startup', 'ceiling', 'extract', 'politeness', 'pushback', 'hosts', 'scale'];
  return o.profile !== undefined ? [...base, 'profile'] : base;
}

const log = (s: string): void => console.log(s);

/** The small crawl: issue 16's second size (ours at least 1.2x wget), where start-up and a cold hot path weigh more. */
const SMALL_PAGES = 2000;
/** A 2,000-page crawl takes about a second, so its ratios swing more: more rounds than the big one. */
const SMALL_MIN_ROUNDS = 5;
const SMALL_CRAWLERS = ['ours', 'wget', 'wget2'];

/** True when `dir` is on a tmpfs (its /proc/mounts entry). */
function isTmpfs(dir: string): boolean {
  try {
    return readFileSync('/proc/mounts', 'utf8').split('\n').some((l) => {
      const [, mount, type] = l.split(' ');
      return mount === dir && type === 'tmpfs';
    });
  } catch {
    return false;
  }
}

/** The commit measured, and whether the work tree had changes (the bench measures dist/, built from it). */
function gitState(repo: string): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', 'src'], { cwd: repo, encoding: 'utf8' }).stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? ' + uncommitted changes in src/' : ''}`;
}

async function main(): Promise<void> {
  const o = parseOptions(process.argv.slice(2));
  const sections = sectionsOf(o);
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  for (const f of ['crawler', 'KeywordHunter', 'dist/src/cli/crawler-bin.js']) {
    if (!existsSync(join(repo, f))) throw new Error(`${f} is missing in ${repo}: build first (npm run build)`);
  }
  const results: Results = {
    meta: {
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      platform: `${process.platform} ${process.arch}`,
      options: { ...o },
      cpuMethod: haveGnuTime() ? 'GNU time (/usr/bin/time -f "%e %U %S %M")' : '/proc sampling every 20 ms (install the "time" package for exact figures)',
      sections,
      loadAverageAtStart: loadavg(),
      git: gitState(repo),
    },
    problems: [],
  };
  mkdirSync(o.scratch, { recursive: true });
  const work = mkdtempSync(join(o.scratch, 'crawler-bench-'));
  // The crawl's tmpfs runs: /dev/shm when it is a tmpfs (Linux), else skipped with a message.
  const shm = o.fs.includes('tmpfs') && isTmpfs('/dev/shm') ? mkdtempSync('/dev/shm/crawler-bench-') : undefined;
  let server: SiteServer | undefined;
  const cleanup = async (): Promise<void> => {
    await server?.stop();
    server = undefined;
    if (!o.keep) rmSync(work, { recursive: true, force: true });
    if (shm !== undefined) rmSync(shm, { recursive: true, force: true });
  };
  const onSignal = (): void => {
    void cleanup().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  log(`bench: sections ${sections.join(', ')}; commit ${results.meta.git}; scratch ${work}${o.keep ? ' (kept)' : ''}`);
  const load = loadavg()[0]!;
  if (load > cpus().length * 0.5) log(`bench: WARNING: load average ${load.toFixed(1)} on ${cpus().length} CPUs: other work is running, timings will be noisy`);
  try {
    const needSite = sections.some((s) => s === 'crawl' || s === 'refresh' || s === 'ceiling' || s === 'extract' || s === 'profile');
    let site: Site | undefined;
    if (needSite) {
      const port = await freePort();
      const t = performance.now();
      site = generateSite(join(work, 'site'), { pages: o.pages, origin: `http://127.0.0.1:${port}` });
      const secs = (performance.now() - t) / 1000;
      const queryUrls = [...site.expected].filter((u) => u.includes('?')).length;
      const unreachable = site.pagePaths.filter((p) => !site!.expected.has(p));
      results.site = {
        pages: site.pages,
        htmlMB: site.htmlBytes / 1e6,
        avgPageKiB: site.htmlBytes / site.pages / 1024,
        links: site.links,
        linkKinds: site.linkKinds,
        branching: site.branching,
        expectedUrls: site.expected.size,
        queryUrls,
        expectedAssets: site.expectedAssets.size,
        expected404: site.expected404.size,
        depthHistogram: site.depthHistogram,
        generateSeconds: secs,
      };
      log(`site: ${site.pages} pages (${(site.htmlBytes / 1e6).toFixed(1)} MB, avg ${(site.htmlBytes / site.pages / 1024).toFixed(1)} KiB), ${site.links} links, tree branching ${site.branching}, generated in ${secs.toFixed(1)} s`);
      log(`  links by kind: ${Object.entries(site.linkKinds).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      log(`  to save at depth <= ${site.maxDepth}: ${site.expected.size} URLs (${queryUrls} query variants of hub pages); BFS depth histogram ${site.depthHistogram.join('/')}; ${site.expectedAssets.size} non-HTML files and ${site.expected404.size} 404 URLs linked`);
      if (unreachable.length > 0) results.problems.push(`generator: ${unreachable.length} pages not reachable within depth ${site.maxDepth}`);
    }
    if (site !== undefined && sections.some((s) => s === 'crawl' || s === 'refresh' || s === 'ceiling' || s === 'profile')) {
      const port = Number(new URL(site.origin).port);
      server = await startSiteServer(site.root, join(work, 'server'), port, o.nodeServer);
      results.meta.server = server.description;
      log(`server: ${server.description} on 127.0.0.1:${port}${server.kind === 'node' && !o.nodeServer ? ' (nginx not installed: apt-get install -y nginx)' : ''}`);
    }
    // Where a crawl section's page files go: a directory of its own on each file system asked for.
    const filesystemsFor = (name: string): CrawlFs[] => {
      const list: CrawlFs[] = [];
      if (o.fs.includes('disk')) list.push({ name: 'disk', dir: join(work, name), removeAfter: false });
      if (shm !== undefined) list.push({ name: 'tmpfs', dir: join(shm, name), removeAfter: true });
      else if (o.fs.includes('tmpfs')) log('  /dev/shm is not a tmpfs here: the tmpfs runs are skipped');
      for (const f of list) mkdirSync(f.dir, { recursive: true });
      return list;
    };
    if (sections.includes('crawl') && site !== undefined) {
      const filesystems = filesystemsFor('crawl');
      log(`\n[crawl] ${o.rounds} round(s) on ${filesystems.map((f) => `${f.name} (${f.dir})`).join(' and ')}, depth ${site.maxDepth}`);
      results.crawl = await crawlSection(site, filesystems, repo, o.rounds, log, o.quick ? { httrackSeconds: 20 } : {});
      for (const f of results.crawl.filesystems) {
        const ours = f.tools[0]!;
        if (!ours.ok) results.problems.push(`ours (${f.fs}) did not save exactly the ${results.crawl.expectedPages} expected pages (see the round lines)`);
        const wget = f.tools.find((t) => t.tool === 'wget');
        if (wget?.available === true && !wget.ok) results.problems.push(`wget (${f.fs}) did not save exactly the ${results.crawl.expectedPages} expected pages (see the round lines)`);
      }
    }
    if (sections.includes('refresh') && site !== undefined && server !== undefined) {
      log(`\n[refresh] ${o.rounds} round(s): ./crawler, then ./crawler --since that crawl, on the same site unchanged, pages on disk (${work})`);
      results.refresh = await refreshSection(site, work, repo, o.rounds, log, results.problems);
    }
    if (sections.includes('ceiling') && site !== undefined && server !== undefined) {
      const secs = o.quick ? 2 : 3;
      log(`\n[ceiling] one connection, sequential GETs over the page paths, ${secs} s each`);
      const own = await netLoop(server.port, site.pagePaths, secs);
      const wrk = wrkLoop(server.port, site.pagePaths, secs, work);
      const list = wrk === undefined ? [own] : [own, wrk];
      if (wrk === undefined) log('  wrk not installed (apt-get install -y wrk): using our own loop only');
      for (const x of list) log(`  ${x.client}: ${x.requestsPerSecond.toFixed(0)} requests/s, ${x.megabytesPerSecond.toFixed(0)} MB/s${x.note ? ` (${x.note})` : ''}`);
      // The ceiling is the faster client's figure (the server gives at least that much to one connection).
      const ceiling = Math.max(...list.map((x) => x.requestsPerSecond).filter(Number.isFinite));
      results.ceiling = { results: list, ceilingRequestsPerSecond: ceiling };
      const first = results.crawl?.filesystems[0];
      if (first !== undefined) {
        const ours = first.tools[0]!;
        const wget = first.tools.find((t) => t.tool === 'wget');
        results.ceiling.oursPagesPerSecond = ours.pagesPerSecond;
        results.ceiling.fraction = ours.pagesPerSecond / ceiling;
        if (wget?.available === true) results.ceiling.wgetFraction = wget.pagesPerSecond / ceiling;
        log(`  ours (${first.fs}): ${ours.pagesPerSecond.toFixed(0)} pages/s = ${(results.ceiling.fraction * 100).toFixed(1)} % of ${ceiling.toFixed(0)} requests/s`);
      }
    }
    if (sections.includes('profile') && site !== undefined && server !== undefined) {
      const dir = o.profile ?? '/tmp/prof';
      mkdirSync(dir, { recursive: true });
      const pageDir = join(work, 'profile-pages');
      rmSync(pageDir, { recursive: true, force: true });
      mkdirSync(pageDir, { recursive: true });
      const args = ['--cpu-prof', `--cpu-prof-dir=${dir}`, 'dist/src/cli/crawler-bin.js', '--delay', '0', '--quiet', ...o.profileArgs, site.seedUrl, pageDir, String(site.maxDepth)];
      log(`\n[profile] node ${args.join(' ')}`);
      const m = await runMeasured(process.execPath, args, { cwd: repo, timeoutMs: 60 * 60_000 });
      const pages = verifyOurs(pageDir, site).pages;
      const file = findProfile(dir);
      const summary = { ...summarizeProfile(loadProfile(file), 25), file };
      log(formatProfile(summary));
      results.profile = { ...summary, command: `node ${args.join(' ')}`, wallSeconds: m.wallSeconds, pages };
      rmSync(pageDir, { recursive: true, force: true });
    }
    if (server !== undefined) {
      await server.stop();
      server = undefined;
    }
    if (sections.includes('small')) {
      const pages = o.quick ? 500 : SMALL_PAGES;
      const rounds = Math.max(o.quick ? 1 : SMALL_MIN_ROUNDS, o.rounds);
      const port = await freePort();
      const small = generateSite(join(work, 'site-small'), { pages, origin: `http://127.0.0.1:${port}` });
      server = await startSiteServer(small.root, join(work, 'server-small'), port, o.nodeServer);
      const filesystems = filesystemsFor('small');
      log(`\n[small] a ${pages}-page site (${small.expected.size} URLs to save), ${rounds} round(s) on ${filesystems.map((f) => f.name).join(' and ')}, only ${SMALL_CRAWLERS.join(', ')}`);
      results.small = await crawlSection(small, filesystems, repo, rounds, log, { only: SMALL_CRAWLERS });
      for (const f of results.small.filesystems) {
        if (!f.tools[0]!.ok) results.problems.push(`ours (small, ${f.fs}) did not save exactly the ${results.small.expectedPages} expected pages (see the round lines)`);
      }
      await server.stop();
      server = undefined;
    }
    if (sections.includes('extract') && site !== undefined) {
      const sample = site.pagePaths.slice(0, Math.min(site.pagePaths.length, 300)).map((p) => readFileSync(join(site!.root, p)));
      const secs = o.quick ? 1 : 2;
      const mb = sample.reduce((a, b) => a + b.length, 0) / 1e6;
      log(`\n[extract] ${sample.length} generated pages (${mb.toFixed(1)} MB), ${secs} s per extractor`);
      const list = benchExtractors(sample, secs);
      for (const x of list) log(`  ${x.name.padEnd(38)} ${x.mbPerSecond.toFixed(1).padStart(8)} MB/s  ${x.links} links`);
      results.extract = { pages: sample.length, megabytes: mb, seconds: secs, results: list };
    }
    if (sections.includes('startup')) {
      const rounds = Math.max(10, o.rounds);
      log(`\n[startup] a one-page site, ${rounds} rounds`);
      results.startup = await startupSection(startupVariants(repo), repo, rounds, o.scratch);
      for (const line of formatStartup(results.startup).slice(1)) log(line);
    }
    if (sections.includes('politeness')) {
      log('\n[politeness] ./crawler --delay 0.05 over 100 pages of one host');
      const p = await politenessSection(repo, work);
      results.politeness = p;
      log(`  wall ${p.wallSeconds.toFixed(3)} s vs ideal ${p.idealSeconds.toFixed(2)} s: ${p.overheadPercent.toFixed(1)} % overhead; ${p.requests} requests, server span ${p.serverSpanSeconds.toFixed(3)} s vs ${p.idealSpanSeconds.toFixed(2)} s; start-up ${p.startupMs.toFixed(0)} ms`);
      if (!p.ok) results.problems.push(`politeness: crawl overhead ${p.crawlOverheadPercent.toFixed(1)} % (target ${p.target}), ${p.requests} requests, smallest gap ${p.minIntervalMs.toFixed(1)} ms`);
    }
    if (sections.includes('pushback')) {
      log('\n[pushback] ./crawler --delay 0.1 against a server answering every 5th request 429 Retry-After: 1');
      const p = await pushbackSection(repo, o.scratch);
      results.pushback = p;
      for (const line of formatPushback(p)) log(`  ${line}`);
      if (!p.ok) results.problems.push(`pushback: ${p.insidePause} requests inside a pause, ${p.ratio.toFixed(3)}x the ideal time, ${p.pagesSaved}/${p.pages} pages`);
    }
    if (sections.includes('hosts')) {
      const hasConcurrency = khHasFlag(repo, '--concurrency');
      // --concurrency 1 is the sequential engine; --quick runs only the parallel one (the sequential takes ~20 s).
      const variants = hasConcurrency
        ? [...(o.quick ? [] : [{ name: '--concurrency 1', flags: ['--concurrency', '1'] }]), { name: '--concurrency 4', flags: ['--concurrency', '4'] }]
        : [{ name: 'default (no --concurrency flag)', flags: [] }];
      log(`\n[hosts] ./KeywordHunter over 4 loopback hosts x 10 pages, Crawl-delay 0.5 (ideal 5 s)`);
      const runs = await hostsSection(repo, variants);
      if (!hasConcurrency) runs.push({ variant: '--concurrency 4', command: '', available: false, wallSeconds: NaN, idealSeconds: 5, overheadPercent: NaN, pageLines: 0, requests: 0, perHost: [], notFound: false, ok: false, note: 'not available' });
      for (const h of runs) {
        if (!h.available) log(`  ${h.variant}: not available`);
        else log(`  ${h.variant}: ${h.wallSeconds.toFixed(2)} s (${h.overheadPercent.toFixed(0)} % over 5 s), ${h.pageLines} PAGE lines, ${h.requests} requests; per host span ${h.perHost.map((x) => x.spanSeconds.toFixed(2)).join('/')} s, least gap ${Math.min(...h.perHost.map((x) => x.minIntervalMs)).toFixed(0)} ms${h.note ? ` (${h.note})` : ''}`);
        if (h.available && !h.ok) results.problems.push(`hosts ${h.variant}: check failed (${h.pageLines} PAGE lines, NOT_FOUND ${h.notFound}, ${h.note ?? ''})`);
      }
      results.hosts = runs;
    }
    if (sections.includes('scale')) {
      const pages = o.quick ? 500 : 2000;
      log(`\n[scale] crawler workers sharing one PostgreSQL frontier, ${pages} pages, delay 0; then with 100 ms latency on 20 hosts`);
      results.scale = await scaleSection({ pages, quick: o.quick, rounds: o.rounds, log });
      results.problems.push(...scaleProblems(results.scale));
    }
  } finally {
    await cleanup();
  }
  results.meta.loadAverageAtEnd = loadavg();
  console.log(formatResults(results));
  const jsonPath = resolve(process.cwd(), o.json);
  mkdirSync(dirname(jsonPath), { recursive: true });
  writeFileSync(jsonPath, JSON.stringify(results, null, 2) + '\n');
  console.log(`\nresults: ${jsonPath}`);
  if (results.problems.length > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
