/**
 * Section "crawl": our crawler against its peers (bench/peers.ts: GNU wget,
 * GNU wget2, HTTrack) on the synthetic site, with the page files on each
 * file system asked for (disk and tmpfs), `rounds` rounds. Every run is
 * checked against the generator's expected set.
 *
 * Within a round, each file system runs every crawler in turn, ours first;
 * the ratio ours / peer is taken per round and file system (paired: the two
 * runs are seconds apart, so the load of the moment cancels), and the table
 * gives the median of those ratios beside the ratio of the medians.
 *
 * Counting: a page counts when an HTML URL of the expected set was saved
 * (bench/stats.ts countPages). Peers also save linked non-HTML files (ours
 * never requests them, by design): "other files", not pages. Pages/s is
 * pages saved / wall time, so a peer that misses pages is not credited for
 * them.
 *
 * Directories: on disk every run gets a new directory, removed only when the
 * bench ends, because on ext4 the inode allocator skips inodes freed in the
 * last minutes one by one (creating 10,000 files right after deleting
 * 10,000 cost about twice the system time, and whichever run came next paid
 * for it). On tmpfs there is no such effect, and the run is removed once it
 * is checked (tmpfs is memory).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { runMeasured, type Measured } from './measure.js';
import { crawlPeers, savedPages, type Layout, type Peer } from './peers.js';
import type { Site } from './site.js';
import { countPages, describeCount, median, medianPairedRatio, type PageCount } from './stats.js';

export interface Verification extends PageCount {
  /** Files the tool saved (pages and other files). */
  files: number;
  /** Non-HTML files saved (peers only). */
  otherFiles: number;
}

export interface CrawlRun extends Omit<Measured, 'stdout' | 'stderr'> {
  round: number;
  verification: Verification;
  pagesPerSecond: number;
  cpuMicrosPerPage: number;
  stderrTail: string;
}

export interface ToolResult {
  tool: string;
  command: string;
  available: boolean;
  note?: string;
  runs: CrawlRun[];
  /** Most pages saved in a run (of the expected set). */
  pages: number;
  medianWallSeconds: number;
  /** Median over the rounds of pages/s. */
  pagesPerSecond: number;
  medianCpuSeconds: number;
  /** Median over the rounds of CPU (user+sys) per page saved. */
  cpuMicrosPerPage: number;
  peakRssMiB: number;
  /** Every run saved exactly the expected set. */
  ok: boolean;
}

export interface PeerRatio {
  peer: string;
  /** Which of ours is measured, when not plain ours (the archive rows: `ours --warc .gz` / `wget --warc`). */
  ours?: string;
  /** Median of per-round (ours pages/s) / (peer pages/s). */
  pagesPerSecondPaired: number;
  /** Ratio of the medians. */
  pagesPerSecond: number;
  cpuPerPage: number;
  peakRss: number;
}

export interface FsResult {
  /** 'disk' or 'tmpfs'. */
  fs: string;
  dir: string;
  tools: ToolResult[];
  /** ours / each available peer; for a peer measured against a variant of ours (Peer.against), that variant / the peer. */
  ratios: PeerRatio[];
  /** Each variant of ours / ours (the cost of --warc, the gain of a second connection); `peer` is the variant. */
  variantRatios: PeerRatio[];
}

export interface CrawlSection {
  expectedPages: number;
  rounds: number;
  filesystems: FsResult[];
}

/** A file system to put the page files on: a name and a directory there. */
export interface CrawlFs {
  name: string;
  dir: string;
  /** Remove each run's directory once it is checked (tmpfs). */
  removeAfter: boolean;
}

function verify(layout: Layout, dir: string, site: Site): Verification {
  const saved = savedPages(layout, dir, site);
  return { ...countPages(saved.paths, site.expected), files: saved.paths.length + saved.otherFiles, otherFiles: saved.otherFiles };
}

/** Reads what our crawler saved in `dir` (the profile section uses it too). */
export function verifyOurs(dir: string, site: Site): Verification {
  return verify('ours', dir, site);
}

function summarize(peer: Peer, runs: CrawlRun[], expected: number): ToolResult {
  const cmd = `${peer.layout === 'ours' ? './crawler' : basename(peer.command)} ${peer.args('DIR', 'OUT').join(' ')}`;
  if (!peer.available || runs.length === 0) {
    const note = peer.available ? 'runs once, on the first file system' : peer.note;
    return { tool: peer.name, command: cmd, available: false, note, runs: [], pages: 0, medianWallSeconds: NaN, pagesPerSecond: NaN, medianCpuSeconds: NaN, cpuMicrosPerPage: NaN, peakRssMiB: NaN, ok: false };
  }
  return {
    tool: peer.name,
    command: cmd,
    available: true,
    note: peer.note,
    runs,
    pages: Math.max(...runs.map((r) => r.verification.pages)),
    medianWallSeconds: median(runs.map((r) => r.wallSeconds)),
    pagesPerSecond: median(runs.map((r) => r.pagesPerSecond)),
    medianCpuSeconds: median(runs.map((r) => r.cpuSeconds)),
    cpuMicrosPerPage: median(runs.map((r) => r.cpuMicrosPerPage)),
    peakRssMiB: Math.max(...runs.map((r) => r.maxRssMiB)),
    ok: runs.every((r) => r.verification.missing === 0 && r.verification.extra === 0 && r.verification.pages === expected),
  };
}

/** ours / peer, per round where both ran (paired) and of the medians. */
export function peerRatio(ours: ToolResult, peer: ToolResult): PeerRatio {
  const byRound = (t: ToolResult): number[] => {
    const out: number[] = [];
    for (const r of t.runs) out[r.round - 1] = r.pagesPerSecond;
    return Array.from(out, (x) => x ?? NaN);
  };
  return {
    peer: peer.tool,
    pagesPerSecondPaired: medianPairedRatio(byRound(ours), byRound(peer)),
    pagesPerSecond: ours.pagesPerSecond / peer.pagesPerSecond,
    cpuPerPage: ours.cpuMicrosPerPage / peer.cpuMicrosPerPage,
    peakRss: ours.peakRssMiB / peer.peakRssMiB,
  };
}

/**
 * The ratio rows of one file system, `tools` being the results of `peers`
 * in the same order, ours first: ours / each peer that ran, except that a
 * peer measured against a variant of ours (Peer.against: the archive's peer)
 * gives that variant / it, when the variant ran.
 */
export function peerRatios(peers: readonly Pick<Peer, 'against'>[], tools: readonly ToolResult[]): PeerRatio[] {
  const ours = tools[0];
  const ratios: PeerRatio[] = [];
  if (ours === undefined) return ratios;
  for (const [i, t] of tools.entries()) {
    if (!t.available || t.tool.startsWith('ours')) continue;
    const against = peers[i]?.against;
    if (against === undefined) ratios.push(peerRatio(ours, t));
    else {
      const variant = tools.find((v) => v.tool === against);
      if (variant?.available === true) ratios.push({ ...peerRatio(variant, t), ours: against });
    }
  }
  return ratios;
}

/** Which crawlers run: all of them (the default), or only those named in `only` (ours is always first). */
export interface CrawlChoice {
  httrackSeconds?: number;
  only?: readonly string[];
}

/** Runs the crawl comparison: `rounds` rounds of every available crawler (or those chosen) on every file system. */
export async function crawlSection(site: Site, filesystems: CrawlFs[], repo: string, rounds: number, log: (s: string) => void, choice: CrawlChoice = {}): Promise<CrawlSection> {
  const only = choice.only;
  const peers = crawlPeers(site, repo, choice.httrackSeconds).filter((p) => only === undefined || only.includes(p.name));
  if (peers[0]?.layout !== 'ours') throw new Error('the crawl section compares against ours: "ours" must be among the crawlers chosen');
  const expected = site.expected.size;
  for (const p of peers) if (!p.available) log(`  ${p.name}: ${p.note}`);
  const runs = new Map<string, CrawlRun[]>();
  for (let round = 1; round <= rounds; round++) {
    for (const fs of filesystems) {
      for (const peer of peers) {
        if (!peer.available || (peer.once === true && (round > 1 || fs !== filesystems[0]))) continue;
        const dir = join(fs.dir, `${peer.name.replace(/[^a-z0-9]+/gi, '-')}-${round}`);
        mkdirSync(dir);
        const m = await runMeasured(peer.command, peer.args(dir, `${dir}-out`), { cwd: peer.layout === 'ours' ? repo : fs.dir, timeoutMs: 60 * 60_000 });
        const v = verify(peer.layout, dir, site);
        if (fs.removeAfter) rmSync(dir, { recursive: true, force: true });
        if (fs.removeAfter) for (const ext of ['.warc', '.warc.gz']) rmSync(`${dir}-out${ext}`, { force: true });
        const { stdout: _o, stderr, ...rest } = m;
        const run: CrawlRun = { ...rest, round, verification: v, pagesPerSecond: v.pages / m.wallSeconds, cpuMicrosPerPage: (m.cpuSeconds / Math.max(1, v.pages)) * 1e6, stderrTail: stderr.slice(-400) };
        const key = `${fs.name}\0${peer.name}`;
        runs.set(key, [...(runs.get(key) ?? []), run]);
        const exit = m.exitCode !== null && peer.okExits.includes(m.exitCode) ? '' : `, exit ${m.exitCode ?? m.signal}`;
        log(`  round ${round} ${fs.name.padEnd(5)} ${peer.name.padEnd(16)} ${describeCount(v, expected)}${v.otherFiles > 0 ? ` +${v.otherFiles} other files` : ''} in ${m.wallSeconds.toFixed(2)} s: ${run.pagesPerSecond.toFixed(0)} pages/s, ${run.cpuMicrosPerPage.toFixed(0)} us CPU/page, ${m.maxRssMiB.toFixed(0)} MiB peak${exit}`);
        if (exit !== '' && peer.layout === 'ours') console.error(`!!! ${peer.name} exited ${m.exitCode ?? m.signal}: ${m.stderr.slice(-400)}`);
        if (peer.layout === 'ours' && (v.missing > 0 || v.extra > 0)) {
          console.error(`!!! ${peer.name} round ${round} (${fs.name}): ${describeCount(v, expected)}; missing e.g. ${v.missingExamples.join(' ')}; extra e.g. ${v.extraExamples.join(' ')}`);
        }
      }
    }
  }
  const result: FsResult[] = filesystems.map((fs) => {
    const tools = peers.map((p) => summarize(p, runs.get(`${fs.name}\0${p.name}`) ?? [], expected));
    const ours = tools[0]!;
    const ratios = peerRatios(peers, tools);
    const variantRatios = tools.filter((t) => t.available && t.tool.startsWith('ours') && t !== ours).map((t) => ({ ...peerRatio(t, ours), peer: t.tool }));
    return { fs: fs.name, dir: fs.dir, tools, ratios, variantRatios };
  });
  return { expectedPages: expected, rounds, filesystems: result };
}

/** Why a peer missed pages, when we know (printed under the table). */
export const KNOWN_MISSES: Record<string, string> = {
  wget2:
    'wget2 1.99.1 does not decode character references in href values: it requests `?page=2&amp;sort=desc` literally (saved under that name, an extra) and never the `?page=2&sort=desc` the page links, so it misses one query variant of every hub page',
  httrack: 'HTTrack stops itself after its -E time limit; it names query URLs by its own scheme, so those do not match',
};
