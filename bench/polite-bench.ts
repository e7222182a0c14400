/**
 * Sections "politeness" and "hosts": how close the crawlers come to the
 * time their delays make unavoidable.
 *
 * - politeness: `./crawler --delay D` over 100 pages of one host (a tree of
 *   synthetic pages, robots ignored so that there are exactly 100 request
 *   starts); wall time against the ideal N*D, and the server-observed span
 *   first-to-last request against (N-1)*D.
 * - hosts: 4 loopback hosts (127.0.0.1 to 127.0.0.4, one port), each with a
 *   robots.txt `Crawl-delay: 0.5` and 10 pages, searched by
 *   `./KeywordHunter` for a keyword that is on no page; wall time against
 *   the ideal 5 s (10 request intervals per host, hosts in parallel).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { runMeasured } from './measure.js';
import { freePort } from './servers.js';
import { generatePage } from './synthetic-page.js';

interface Recorded {
  server: Server;
  /** Arrival times (ms, performance.now()) of every request, with its path. */
  hits: Array<{ at: number; path: string }>;
}

function serve(host: string, port: number, files: Map<string, string>): Promise<Recorded> {
  const hits: Recorded['hits'] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.push({ at: performance.now(), path });
    const body = files.get(path);
    if (body === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 10 });
      res.end('not found\n');
      return;
    }
    const type = path.endsWith('.txt') ? 'text/plain' : 'text/html; charset=utf-8';
    res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve({ server, hits }));
  });
}

function close(r: Recorded): Promise<void> {
  return new Promise((resolve) => {
    r.server.close(() => resolve());
    r.server.closeAllConnections();
  });
}

/**
 * Gaps between request arrivals as the server saw them. Arrival times carry
 * the server's scheduling jitter (a request noticed late makes the next gap
 * look short), so a gap a little below the delay is not by itself a
 * violation; the crawler stamps its own request starts.
 */
function intervals(hits: Recorded['hits'], delayMs = 0): { span: number; min: number; max: number; below: number } {
  const t = hits.map((h) => h.at);
  let min = Infinity;
  let max = 0;
  let below = 0;
  for (let k = 1; k < t.length; k++) {
    const gap = t[k]! - t[k - 1]!;
    min = Math.min(min, gap);
    max = Math.max(max, gap);
    if (gap < delayMs * 0.9) below++;
  }
  return { span: t.length < 2 ? 0 : t[t.length - 1]! - t[0]!, min: Number.isFinite(min) ? min : 0, max, below };
}

export interface PolitenessResult {
  command: string;
  pages: number;
  requests: number;
  delaySeconds: number;
  wallSeconds: number;
  idealSeconds: number;
  overheadPercent: number;
  /** The crawl itself: first request start (at the server) to exit, against N*D. Start-up is reported apart. */
  crawlSeconds: number;
  crawlOverheadPercent: number;
  /** Server-observed: first to last request arrival, against (requests-1)*D. */
  serverSpanSeconds: number;
  idealSpanSeconds: number;
  spanOverheadPercent: number;
  /** Spawn to first request: process start-up, SQLite, the first connect. */
  startupMs: number;
  /** Last request to exit. */
  shutdownMs: number;
  minIntervalMs: number;
  maxIntervalMs: number;
  /** Gaps under 90 % of the delay (server-observed, jitter included). */
  gapsBelowDelay: number;
  target: string;
  ok: boolean;
}

/** `./crawler --delay D --ignore-robots` over `pages` pages of one loopback host. */
/** Issue 16's target for the crawl's overhead over N*D at --delay 0.05, 100 pages. */
export const POLITENESS_TARGET_PERCENT = 2;

export async function politenessSection(repo: string, work: string, pages = 100, delaySeconds = 0.05): Promise<PolitenessResult> {
  const port = await freePort();
  const files = new Map<string, string>();
  const b = 4;
  for (let k = 0; k < pages; k++) {
    const kids: string[] = [];
    for (let c = b * k + 1; c <= b * k + b && c < pages; c++) kids.push(k % 2 === 0 ? `p${c}.html` : `/p${c}.html`);
    const links = [...kids, k === 0 ? '#top' : '/index.html', `http://127.0.0.1:${port}/p${(k * 7) % pages || 1}.html`];
    files.set(k === 0 ? '/index.html' : `/p${k}.html`, generatePage(1000 + k, links));
  }
  const rec = await serve('127.0.0.1', port, files);
  const dir = join(work, 'politeness-pages');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const args = ['--delay', String(delaySeconds), '--quiet', '--ignore-robots', `http://127.0.0.1:${port}/index.html`, dir, '6'];
  const t0 = performance.now();
  const m = await runMeasured(join(repo, 'crawler'), args, { cwd: repo, timeoutMs: 10 * 60_000 });
  const t1 = t0 + m.wallSeconds * 1000;
  await close(rec);
  rmSync(dir, { recursive: true, force: true });
  const n = rec.hits.length;
  const iv = intervals(rec.hits, delaySeconds * 1000);
  const ideal = pages * delaySeconds;
  const idealSpan = (n - 1) * delaySeconds;
  const overhead = ((m.wallSeconds - ideal) / ideal) * 100;
  const crawlSeconds = n > 0 ? (t1 - rec.hits[0]!.at) / 1000 : NaN;
  const crawlOverhead = ((crawlSeconds - ideal) / ideal) * 100;
  return {
    command: `./crawler ${args.join(' ')}`,
    pages,
    requests: n,
    delaySeconds,
    wallSeconds: m.wallSeconds,
    idealSeconds: ideal,
    overheadPercent: overhead,
    crawlSeconds,
    crawlOverheadPercent: crawlOverhead,
    serverSpanSeconds: iv.span / 1000,
    idealSpanSeconds: idealSpan,
    spanOverheadPercent: idealSpan > 0 ? ((iv.span / 1000 - idealSpan) / idealSpan) * 100 : NaN,
    startupMs: n > 0 ? rec.hits[0]!.at - t0 : NaN,
    shutdownMs: n > 0 ? t1 - rec.hits[n - 1]!.at : NaN,
    minIntervalMs: iv.min,
    maxIntervalMs: iv.max,
    gapsBelowDelay: iv.below,
    target: `<= ${POLITENESS_TARGET_PERCENT} %`,
    // The target is on the crawl (N requests at D apart, parsing and writing inside the waits);
    // process start-up (node, SQLite) is a fixed cost shown beside it.
    ok: m.exitCode === 0 && n === pages && crawlOverhead <= POLITENESS_TARGET_PERCENT,
  };
}

export interface HostsRun {
  variant: string;
  command: string;
  available: boolean;
  wallSeconds: number;
  idealSeconds: number;
  overheadPercent: number;
  pageLines: number;
  requests: number;
  /** Per host: first to last request (robots.txt included), and the smallest gap between two requests. */
  perHost: Array<{ host: string; requests: number; spanSeconds: number; minIntervalMs: number; gapsBelowDelay: number }>;
  notFound: boolean;
  ok: boolean;
  note?: string;
}

export const ABSENT_KEYWORD = 'zqxjvkeywordthatisnowhere';

function hostsSite(port: number, self: number, hosts: number, pages: number): Map<string, string> {
  const files = new Map<string, string>([['/robots.txt', 'User-agent: *\nCrawl-delay: 0.5\n']]);
  for (let k = 0; k < pages; k++) {
    const links: string[] = [];
    if (k === 0) {
      for (let j = 1; j < pages; j++) links.push(`p${j}.html`);
      for (let h = 1; h <= hosts; h++) if (h !== self) links.push(`http://127.0.0.${h}:${port}/index.html`);
    } else {
      links.push('/index.html', `p${(k % (pages - 1)) + 1}.html`, `http://127.0.0.${(self % hosts) + 1}:${port}/index.html`);
    }
    const anchors = links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('\n');
    // KeywordHunter's matcher takes every `a href="` (comments and scripts included): neutralize the
    // filler's look-alike links so each host has exactly `pages` pages to request.
    const filler = generatePage(self * 100 + k, []).replaceAll('a href="', 'a data-href="');
    files.set(k === 0 ? '/index.html' : `/p${k}.html`, filler.replace('<footer>', `<ul>\n${anchors}\n</ul>\n<footer>`));
  }
  return files;
}

/** True when `./KeywordHunter --help` lists the flag. */
export function khHasFlag(repo: string, flag: string): boolean {
  const r = spawnSync(join(repo, 'KeywordHunter'), ['--help'], { encoding: 'utf8', cwd: repo });
  return `${r.stdout}${r.stderr}`.includes(flag);
}

/** KeywordHunter over 4 hosts x 10 pages with Crawl-delay 0.5, once per variant (flags). */
export async function hostsSection(repo: string, variants: Array<{ name: string; flags: string[] }>, hosts = 4, pages = 10): Promise<HostsRun[]> {
  const results: HostsRun[] = [];
  for (const v of variants) {
    let port = await freePort();
    let servers: Recorded[] = [];
    for (let attempt = 0; ; attempt++) {
      try {
        servers = [];
        for (let h = 1; h <= hosts; h++) servers.push(await serve(`127.0.0.${h}`, port, hostsSite(port, h, hosts, pages)));
        break;
      } catch (err) {
        await Promise.all(servers.map(close));
        if (attempt >= 5) throw err;
        port = await freePort();
      }
    }
    const args = [...v.flags, `http://127.0.0.1:${port}/index.html`, ABSENT_KEYWORD];
    const m = await runMeasured(join(repo, 'KeywordHunter'), args, { cwd: repo, captureStdout: true, timeoutMs: 5 * 60_000 });
    await Promise.all(servers.map(close));
    const ideal = pages * 0.5; // robots.txt + `pages` requests: `pages` intervals of 0.5 s per host, hosts in parallel
    const lines = m.stdout.split('\n');
    const perHost = servers.map((s, k) => {
      const iv = intervals(s.hits, 500);
      return { host: `127.0.0.${k + 1}`, requests: s.hits.length, spanSeconds: iv.span / 1000, minIntervalMs: iv.min, gapsBelowDelay: iv.below };
    });
    const requests = perHost.reduce((a, h) => a + h.requests, 0);
    const notFound = lines.includes('NOT_FOUND_KEYWORD:');
    const pageLines = lines.filter((l) => l.startsWith('PAGE:')).length;
    results.push({
      variant: v.name,
      command: `./KeywordHunter ${args.join(' ')}`,
      available: true,
      wallSeconds: m.wallSeconds,
      idealSeconds: ideal,
      overheadPercent: ((m.wallSeconds - ideal) / ideal) * 100,
      pageLines,
      requests,
      perHost,
      notFound,
      ok: m.exitCode === 0 && notFound && pageLines === hosts * pages && requests === hosts * (pages + 1),
      note: m.exitCode !== 0 ? `exit ${m.exitCode ?? m.signal}: ${m.stderr.slice(-300)}` : undefined,
    });
  }
  return results;
}
