/**
 * The benchmark's results as one JSON-able object, and the readable table
 * printed at the end of a run.
 */
import type { CeilingResult } from './ceiling.js';
import { formatScale, type ScaleResults } from './scale-bench.js';
import { KNOWN_MISSES, type CrawlSection, type ToolResult } from './crawl-bench.js';
import { ARCHIVE_VARIANT } from './peers.js';
import type { BenchResult } from './extract-bench.js';
import type { HostsRun, PolitenessResult } from './polite-bench.js';
import { formatPushback, type PushbackResult } from './pushback-bench.js';
import { refreshRows, type RefreshSection } from './refresh-bench.js';
import type { ProfileSummary } from './cpuprofile-top.js';
import { formatStartup, type StartupResult } from './startup-bench.js';

export interface SiteSummary {
  pages: number;
  htmlMB: number;
  avgPageKiB: number;
  links: number;
  linkKinds: Record<string, number>;
  branching: number;
  expectedUrls: number;
  queryUrls: number;
  expectedAssets: number;
  expected404: number;
  depthHistogram: number[];
  generateSeconds: number;
}

export interface Results {
  meta: {
    date: string;
    node: string;
    cpus: number;
    cpuModel: string;
    platform: string;
    options: Record<string, unknown>;
    server?: string;
    cpuMethod: string;
    sections: string[];
    /** os.loadavg() (1, 5, 15 min) when the run started and ended: other load makes timings noisy. */
    loadAverageAtStart: number[];
    loadAverageAtEnd?: number[];
    /** The commit measured (dist/ is built from the work tree). */
    git: string;
  };
  site?: SiteSummary;
  crawl?: CrawlSection;
  /** The same comparison on a 2,000-page site (ours, wget, wget2). */
  small?: CrawlSection;
  /** Ours, then ours --since that crawl on the same site unchanged. */
  refresh?: RefreshSection;
  ceiling?: {
    results: CeilingResult[];
    /** The ceiling the fraction uses: wrk when installed, else our loop. */
    ceilingRequestsPerSecond: number;
    oursPagesPerSecond?: number;
    fraction?: number;
    wgetFraction?: number;
  };
  extract?: { pages: number; megabytes: number; seconds: number; results: BenchResult[] };
  startup?: StartupResult;
  politeness?: PolitenessResult;
  pushback?: PushbackResult;
  hosts?: HostsRun[];
  scale?: ScaleResults;
  profile?: ProfileSummary & { command: string; wallSeconds: number; pages: number };
  problems: string[];
}

const f = (x: number | undefined, digits = 1): string => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits));

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => '  ' + r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

/** Issue 16's target for the small crawl: ours / wget, pages/s. */
export const SMALL_TARGET = 1.2;

/** Issue 31's target for the archive rows: ours --warc .gz / wget --warc, pages/s, on disk and on tmpfs. */
export const ARCHIVE_TARGET = 1.5;

/** One crawl section's tables (one per file system), ratios under each. */
function formatCrawl(c: CrawlSection, title: string): string[] {
  const out: string[] = [];
  for (const fsr of c.filesystems) {
    const row = (t: ToolResult): string[] =>
      t.available
        ? [t.tool, `${t.pages}/${c.expectedPages}`, f(t.medianWallSeconds, 2), f(t.pagesPerSecond, 0), f(t.medianCpuSeconds, 2), f(t.cpuMicrosPerPage, 0), f(t.peakRssMiB, 0), `${t.runs.length}`, t.ok ? 'ok' : t.tool.startsWith('ours') ? 'MISMATCH' : 'incomplete']
        : [t.tool, '-', '-', '-', '-', '-', '-', '-', t.note ?? 'not run'];
    const rows = [[`${title}, pages on ${fsr.fs}`, 'pages', 'wall s', 'pages/s', 'CPU s', 'CPU us/page', 'peak RSS MiB', 'runs', 'check'], ...fsr.tools.map(row)];
    for (const x of fsr.ratios) {
      const target = x.ours === undefined ? '' : `target ${f(ARCHIVE_TARGET, 1)}x: ${x.pagesPerSecondPaired >= ARCHIVE_TARGET ? 'met' : 'not met'}`;
      rows.push([`${x.ours ?? 'ours'} / ${x.peer}`, '', '', `${f(x.pagesPerSecondPaired, 2)}x (${f(x.pagesPerSecond, 2)}x)`, '', `${f(x.cpuPerPage, 2)}x`, `${f(x.peakRss, 2)}x`, '', target]);
    }
    for (const x of fsr.variantRatios) {
      // peerRatio(variant, ours): pagesPerSecond* are variant / ours; the cost is 1 - that.
      const change = x.pagesPerSecondPaired - 1;
      rows.push([`${x.peer} / ours`, '', '', `${f(x.pagesPerSecondPaired, 2)}x (${f(x.pagesPerSecond, 2)}x)`, '', `${f(x.cpuPerPage, 2)}x`, `${f(x.peakRss, 2)}x`, '', `${f(Math.abs(change) * 100, 0)} % ${change < 0 ? 'slower' : 'faster'}`]);
    }
    out.push('', table(rows));
  }
  out.push(`  (medians of ${c.rounds} rounds; pages/s = expected pages saved / wall; ours / peer pages/s = median of the per-round ratios (paired), in brackets the ratio of the medians; CPU = user+sys of the child; peak RSS = max over rounds)`);
  if (c.filesystems.some((x) => x.ratios.some((r) => r.ours !== undefined))) {
    out.push(`  target (issue 31): ${ARCHIVE_VARIANT} / wget --warc at least ${ARCHIVE_TARGET}x pages/s, on disk and on tmpfs, in the same run (both write a gzip WARC)`);
  }
  const incomplete = c.filesystems.flatMap((x) => x.tools).filter((t) => t.available && !t.ok && KNOWN_MISSES[t.tool] !== undefined);
  for (const name of new Set(incomplete.map((t) => t.tool))) out.push(`  ${name}: ${KNOWN_MISSES[name]}`);
  return out;
}

/** The end-of-run table. */
export function formatResults(r: Results): string {
  const out: string[] = [];
  out.push('');
  out.push(`=== Results (${r.meta.date}, commit ${r.meta.git}, node ${r.meta.node}, ${r.meta.cpus} CPUs${r.meta.server ? `, server: ${r.meta.server}` : ''}) ===`);
  const loads = [r.meta.loadAverageAtStart[0], r.meta.loadAverageAtEnd?.[0]].filter((x): x is number => x !== undefined);
  out.push(`load average (1 min) at start/end: ${loads.map((x) => x.toFixed(1)).join(' / ')}${Math.max(...loads) > r.meta.cpus * 0.5 ? '  (machine busy: timings are noisy)' : ''}`);
  if (r.site) {
    const s = r.site;
    out.push(`site: ${s.pages} pages, ${f(s.htmlMB)} MB HTML (avg ${f(s.avgPageKiB)} KiB), ${s.links} links, ${s.expectedUrls} URLs to save (${s.queryUrls} query variants), BFS depths ${s.depthHistogram.join('/')}`);
  }
  if (r.crawl) out.push(...formatCrawl(r.crawl, 'crawl, depth 6'));
  if (r.refresh) {
    out.push('', table(refreshRows(r.refresh)));
    out.push(`  (medians of ${r.refresh.rounds.length} rounds; MB read = every response's bytes as read, the report's figure; the ratios are medians of the per-round ratios)`);
  }
  if (r.small) out.push(...formatCrawl(r.small, `small crawl, ${r.small.expectedPages} URLs`), `  target (issue 16): ours / wget at least ${SMALL_TARGET}x on this crawl (at least 2.0x on the 10,000-page one)`);
  if (r.ceiling) {
    const rows = [['server ceiling, 1 connection', 'requests/s', 'MB/s']];
    for (const x of r.ceiling.results) rows.push([x.client, f(x.requestsPerSecond, 0), f(x.megabytesPerSecond, 0)]);
    out.push('', table(rows));
    if (r.ceiling.fraction !== undefined) {
      out.push(`  ours: ${f(r.ceiling.oursPagesPerSecond, 0)} pages/s = ${f(r.ceiling.fraction * 100)} % of the ceiling${r.ceiling.wgetFraction !== undefined ? `; wget: ${f(r.ceiling.wgetFraction * 100)} %` : ''}`);
    }
  }
  if (r.extract) {
    const rows = [[`link extraction (${r.extract.pages} pages, ${f(r.extract.megabytes)} MB)`, 'MB/s', 'links']];
    for (const x of r.extract.results) rows.push([x.name, f(x.mbPerSecond), String(x.links)]);
    out.push('', table(rows));
  }
  if (r.startup) out.push('', ...formatStartup(r.startup));
  if (r.politeness) {
    const p = r.politeness;
    out.push(
      '',
      `politeness: ${p.pages} pages, --delay ${p.delaySeconds}: crawl (first request to exit) ${f(p.crawlSeconds, 3)} s vs ideal N*D ${f(p.idealSeconds, 2)} s: overhead ${f(p.crawlOverheadPercent)} % (target ${p.target}) ${p.ok ? 'ok' : 'OVER TARGET / CHECK'}; with start-up, wall ${f(p.wallSeconds, 3)} s (${f(p.overheadPercent)} %)`,
      `  server saw ${p.requests} requests over ${f(p.serverSpanSeconds, 3)} s vs (N-1)*D ${f(p.idealSpanSeconds, 2)} s: ${f(p.spanOverheadPercent)} %; gaps ${f(p.minIntervalMs)}..${f(p.maxIntervalMs)} ms (${p.gapsBelowDelay} under 0.9*D, server clock, jitter included); start-up ${f(p.startupMs, 0)} ms, exit ${f(p.shutdownMs, 0)} ms`,
    );
  }
  if (r.pushback) out.push('', ...formatPushback(r.pushback));
  if (r.hosts) {
    const rows = [['KeywordHunter, 4 hosts x 10 pages, Crawl-delay 0.5', 'wall s', 'ideal s', 'overhead', 'PAGE lines', 'check']];
    for (const h of r.hosts) {
      rows.push(h.available ? [h.variant, f(h.wallSeconds, 2), f(h.idealSeconds, 1), `${f(h.overheadPercent)} %`, String(h.pageLines), h.ok ? 'ok' : 'CHECK'] : [h.variant, '-', '-', '-', '-', h.note ?? 'not available']);
    }
    out.push('', table(rows));
  }
  if (r.scale) out.push('', ...formatScale(r.scale));
  if (r.profile) {
    out.push('', `profile (${r.profile.command}): ${r.profile.pages} pages in ${f(r.profile.wallSeconds, 2)} s; top self time:`);
    for (const t of r.profile.top.slice(0, 10)) out.push(`  ${f(t.selfPercent).padStart(5)} %  ${t.name} (${t.location})`);
  }
  if (r.problems.length > 0) {
    out.push('', '!!! PROBLEMS:');
    for (const p of r.problems) out.push(`!!!   ${p}`);
  }
  return out.join('\n');
}
