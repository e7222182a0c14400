/**
 * The broad section's arithmetic, pure so that it is unit-tested
 * (test/bench/broad.test.ts): the politeness bound of a crawl (its ideal
 * time), the least gap between request starts per host as the server saw
 * them, and the check that a crawl saved every page once under IDs 1..N.
 */
import type { BroadShape } from './broad-shape.js';

/** One host's part of the ideal: when its first request can leave, and how many it must send. */
export interface HostPlan {
  /** Seconds from the crawl's first request to the earliest start of this host's first one. */
  ready: number;
  /** Requests to this host (robots.txt included). */
  requests: number;
}

/**
 * The least time a polite crawl can take, first request to last answer:
 * each host sends its requests one at a time, each start at least `step`
 * after the one before, the last answered `latency` after it starts, hosts
 * in parallel. That is the max over hosts of ready + (requests - 1) x step
 * + latency; 0 for no hosts.
 */
export function idealSeconds(plans: readonly HostPlan[], step: number, latency: number): number {
  let worst = 0;
  for (const p of plans) if (p.requests > 0) worst = Math.max(worst, p.ready + (p.requests - 1) * step + latency);
  return worst;
}

/** The bound of a crawl of the broad site. */
export interface BroadIdeal {
  /** Pages a crawl to depth 2 saves: hosts x pages + the hub. */
  pages: number;
  /** Requests it sends: every page and one robots.txt per host. */
  requests: number;
  seconds: number;
  pagesPerSecond: number;
  /** Least time between two request starts to one host: the delay, or the latency when that is longer (one request at a time). */
  stepSeconds: number;
}

/**
 * The politeness bound of a crawl of the broad site from its hub to depth 2,
 * with `delay` seconds between request starts to one host and every answer
 * `latency` seconds late. Host 0 sends its robots.txt at 0 and the hub one
 * step later; every other host can start when the hub's answer is in (it is
 * the first the crawl hears of them): robots.txt, then the root, then the
 * other pages, one step apart (a root's links are known `latency` after it
 * starts, within the step). Host 0's own pages also follow the hub.
 */
export function broadIdeal(shape: BroadShape, delay: number, latency: number): BroadIdeal {
  const step = Math.max(delay, latency);
  const hubDone = step + latency;
  // Host 0: robots.txt, the hub, then its P pages, the first of them (its root) one step after the hub.
  const plans: HostPlan[] = [{ ready: 0, requests: shape.pages + 2 }];
  if (shape.hosts > 1) plans.push({ ready: hubDone, requests: shape.pages + 1 }); // every other host is alike
  const seconds = idealSeconds(plans, step, latency);
  const pages = shape.hosts * shape.pages + 1;
  return { pages, requests: pages + shape.hosts, seconds, pagesPerSecond: pages / seconds, stepSeconds: step };
}

/**
 * A request's arrival at the server as a window (test/helpers/arrivals.ts):
 * it arrived after `after` and by `at`, ms on the server's clock.
 */
export interface ArrivalWindow {
  at: number;
  after: number;
  /** The request's path, when recorded. */
  path?: string;
}

/** The gaps between request starts to one host. */
export interface HostGaps {
  host: number;
  requests: number;
  /**
   * The least of the longest gaps the arrival windows allow between two
   * consecutive request starts (ms): below the interval means two starts
   * were certainly closer than it. Infinity for fewer than 2 requests.
   */
  leastGapMs: number;
  /** The least gap between the times the server noted (ms): jitter included. Infinity for fewer than 2. */
  leastNotedGapMs: number;
  /** The paths of the two requests with the least gap (when recorded). */
  leastPair?: [string, string];
}

/** Per-host least gaps, and which hosts went below the interval. */
export interface GapSummary {
  /** Hosts with at least two requests. */
  hostsMeasured: number;
  /** The least leastGapMs over hosts (Infinity when no host had two requests). */
  leastGapMs: number;
  leastNotedGapMs: number;
  /** The host with the least gap, or -1. */
  worstHost: number;
  /** The paths of the two requests with the least gap there (when recorded). */
  worstPair?: [string, string];
  /** Hosts whose least gap is below the interval. */
  hostsBelow: number;
}

/** One host's gaps; its arrivals in any order (sorted here by when the server noted them). */
export function hostGaps(host: number, arrivals: readonly ArrivalWindow[]): HostGaps {
  const sorted = [...arrivals].sort((a, b) => a.at - b.at);
  let least = Infinity;
  let noted = Infinity;
  let pair: [string, string] | undefined;
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (b.at - a.after < least) {
      least = b.at - a.after;
      pair = a.path !== undefined && b.path !== undefined ? [a.path, b.path] : undefined;
    }
    noted = Math.min(noted, b.at - a.at);
  }
  return { host, requests: sorted.length, leastGapMs: least, leastNotedGapMs: noted, ...(pair === undefined ? {} : { leastPair: pair }) };
}

/** Sums up per-host gaps against the interval (ms). */
export function gapSummary(hosts: readonly HostGaps[], intervalMs: number): GapSummary {
  const s: GapSummary = { hostsMeasured: 0, leastGapMs: Infinity, leastNotedGapMs: Infinity, worstHost: -1, hostsBelow: 0 };
  for (const h of hosts) {
    if (h.requests < 2) continue;
    s.hostsMeasured++;
    if (h.leastGapMs < s.leastGapMs) {
      s.leastGapMs = h.leastGapMs;
      s.worstHost = h.host;
      if (h.leastPair !== undefined) s.worstPair = h.leastPair;
      else delete s.worstPair;
    }
    s.leastNotedGapMs = Math.min(s.leastNotedGapMs, h.leastNotedGapMs);
    if (h.leastGapMs < intervalMs) s.hostsBelow++;
  }
  return s;
}

/** What the page IDs of a crawl (one directory, or all of a shared crawl's workers) say. */
export interface IdCheck {
  files: number;
  /** The highest ID. */
  highest: number;
  /** IDs in 1..highest that no file has. */
  gaps: number;
  /** IDs that more than one file has (two workers' directories). */
  twice: number;
  /** Files are exactly 1..N, each once. */
  dense: boolean;
}

/** Checks that `ids` (every numbered file's ID) are 1..N, each once. */
export function checkIds(ids: readonly number[]): IdCheck {
  const seen = new Set<number>();
  let twice = 0;
  let highest = 0;
  for (const id of ids) {
    if (seen.has(id)) twice++;
    else seen.add(id);
    highest = Math.max(highest, id);
  }
  const gaps = highest - [...seen].filter((id) => id >= 1 && id <= highest).length;
  return { files: ids.length, highest, gaps, twice, dense: gaps === 0 && twice === 0 && ids.every((id) => Number.isInteger(id) && id >= 1) };
}
