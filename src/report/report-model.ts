/**
 * The crawl report's model: built record by record (report-records.ts) as
 * the crawl goes, or read back from a resumed crawl's records first, and
 * read by the renderers. Pages are keyed by URL, so a page done again after
 * a crash (saved again under the same ID) counts once. A link followed is
 * kept only until its page is requested (then the page is placed under the
 * page it was found on), and only MAX_CHILDREN of them per page: a crawl
 * that queues a million URLs does not hold a million pages here.
 */
import { bareReason } from '../output/cs50-log.js';
import { originOf, type RefreshState, type ReportRecord, type RunInfo, type SkipReason } from './report-records.js';

/** Links kept per page to place the pages they lead to in the tree; the rest are counted. */
export const MAX_CHILDREN = 200;

/** One request on the wire. */
export interface Exchange {
  url: string;
  start: number;
  end: number;
  status: number;
  bytes: number;
  error: string | undefined;
}

/** A change of a host's pacing. */
export interface Pacing {
  at: number;
  intervalMs: number;
  /** Epoch ms, 0 when no pause. */
  pausedUntil: number;
  failures: number;
}

export interface HostData {
  origin: string;
  exchanges: Exchange[];
  pacing: Pacing[];
  robots: { source: string; group: string; rules: number; crawlDelay: number | undefined } | undefined;
  /** The robots.txt status, when a record said it (a shared store's answer). */
  robotsStatus: number | undefined;
}

/** A page of the crawl: a URL requested (or that failed), with where it was found. */
export interface PageNode {
  url: string;
  depth: number;
  /** The URL of the page it was found on, or of the URL that redirected to it. */
  parent: string | undefined;
  /** crawler: its document ID once saved. */
  id: number | undefined;
  /** crawler --since: what the saved page was to the earlier crawl. */
  refresh?: RefreshState | undefined;
  /** crawler --since: for an unchanged page, the bytes the server did not send again. */
  spared?: number | undefined;
  /** Its last answer's status (0: none came). */
  status: number | undefined;
  error: string | undefined;
  /** Why it failed (crawler's reason). */
  failed: string | undefined;
  skips: Partial<Record<SkipReason, number>> | undefined;
  children: string[];
  /** Links followed from this page beyond MAX_CHILDREN (their pages are not placed in the tree). */
  more: number;
}

export class ReportModel {
  readonly runs: RunInfo[] = [];
  /** When each run ended (epoch ms) and why, in order. */
  readonly ends: Array<{ at: number; why: string }> = [];
  readonly hosts = new Map<string, HostData>();
  readonly pages = new Map<string, PageNode>();
  /** Answers to page requests by status (a retried page counts each try). */
  readonly statuses = new Map<number, number>();
  /** Requests that got no answer, by error. */
  readonly errors = new Map<string, number>();
  match: { url: string; depth: number; line: string } | undefined;
  /** --page-requisites: requisites fetched per page, and those not fetched by reason. */
  readonly requisites = { fetched: new Map<string, number>(), notFetched: new Map<string, number>() };
  /** crawler --since, once the refresh ran to its end: the earlier crawl's pages not saved, and the first of them. */
  gone: { count: number; listed: string[] } | undefined;
  /** Links followed whose pages are not requested yet: the page each was found on. */
  private readonly parentOf = new Map<string, string>();
  /** Links kept per page (up to MAX_CHILDREN). */
  private readonly kept = new Map<string, number>();

  /** The first run's settings. */
  get run(): RunInfo | undefined {
    return this.runs[0];
  }

  host(origin: string): HostData {
    let h = this.hosts.get(origin);
    if (h === undefined) {
      h = { origin, exchanges: [], pacing: [], robots: undefined, robotsStatus: undefined };
      this.hosts.set(origin, h);
    }
    return h;
  }

  /** The page of `url`, made when it is first requested (or fails): placed under the page it was found on. */
  page(url: string, depth: number): PageNode {
    let p = this.pages.get(url);
    if (p === undefined) {
      const parent = this.parentOf.get(url);
      this.parentOf.delete(url);
      p = { url, depth, parent, id: undefined, status: undefined, error: undefined, failed: undefined, skips: undefined, children: [], more: 0 };
      this.pages.set(url, p);
      if (parent !== undefined) this.pages.get(parent)?.children.push(url);
    }
    return p;
  }

  /** Whether a followed link is kept (see the module comment); false for one that is not new or over the page's count. */
  private follow(url: string, from: string): boolean {
    // Found first elsewhere, or a page known already (the seed): it keeps its place.
    if (url === from || this.pages.has(url) || this.parentOf.has(url)) return false;
    const n = this.kept.get(from) ?? 0;
    if (n >= MAX_CHILDREN) {
      const p = this.pages.get(from);
      if (p !== undefined) p.more++;
      return false;
    }
    this.kept.set(from, n + 1);
    this.parentOf.set(url, from);
    return true;
  }

  /** Applies a record; false when it changed nothing worth keeping (a followed link not kept). */
  apply(r: ReportRecord): boolean {
    switch (r[0]) {
      case 'run':
        this.runs.push(r[1]);
        break;
      case 'end':
        this.ends.push({ at: r[1], why: r[2] });
        break;
      case 'x':
        this.host(r[1]).exchanges.push({ url: r[2], start: r[3], end: r[4], status: r[5], bytes: r[6], error: r[7] });
        break;
      case 'resp': {
        const p = this.page(r[1], r[2]);
        p.status = r[3];
        p.error = r[4];
        if (r[4] === undefined) this.statuses.set(r[3], (this.statuses.get(r[3]) ?? 0) + 1);
        else this.errors.set(r[4], (this.errors.get(r[4]) ?? 0) + 1);
        break;
      }
      case 'saved': {
        const p = this.page(r[1], r[2]);
        p.id = r[3];
        p.failed = undefined;
        p.refresh = r[4];
        p.spared = r[5];
        break;
      }
      case 'gone':
        this.gone = { count: r[1], listed: r[2] };
        break;
      case 'failed':
        this.page(r[1], r[2]).failed = r[3];
        break;
      case 'follow':
        return this.follow(r[1], r[3]);
      case 'skips': {
        const p = this.pages.get(r[1]);
        if (p !== undefined) p.skips = r[2];
        break;
      }
      case 'robots':
        this.host(r[1]).robots = { source: r[2], group: r[3], rules: r[4], crawlDelay: r[5] ?? undefined };
        break;
      case 'robots-status':
        this.host(r[1]).robotsStatus = r[2];
        break;
      case 'host':
        this.host(r[1]).pacing.push({ at: r[2], intervalMs: r[3], pausedUntil: r[4], failures: r[5] });
        break;
      case 'match':
        this.match = { url: r[1], depth: r[2], line: r[3] };
        break;
      case 'req': {
        const { fetched, notFetched } = this.requisites;
        // An unchanged one (a refresh's 304) is in the archive as a revisit: fetched for the page as well.
        if (r[2] === 'fetched' || r[2] === 'unchanged') fetched.set(r[1], (fetched.get(r[1]) ?? 0) + 1);
        else {
          const why = r[3] ?? r[2];
          notFetched.set(why, (notFetched.get(why) ?? 0) + 1);
        }
        break;
      }
    }
    return true;
  }

  /** Pages saved (crawler) or answered 200 (KeywordHunter). */
  get savedPages(): PageNode[] {
    const kh = this.run?.program === 'KeywordHunter';
    const saved = [...this.pages.values()].filter((p) => (kh ? p.status === 200 : p.id !== undefined));
    return kh ? saved : saved.sort((a, b) => (a.id as number) - (b.id as number));
  }

  /** Failed pages by reason: crawler's Failed reasons (without the log's parentheses); KeywordHunter's answers other than 200 and 3xx. */
  failures(): Map<string, number> {
    const out = new Map<string, number>();
    const kh = this.run?.program === 'KeywordHunter';
    for (const p of this.pages.values()) {
      const why = kh ? khFailure(p) : p.id === undefined ? bareReason(p.failed) : undefined;
      if (why !== undefined) out.set(why, (out.get(why) ?? 0) + 1);
    }
    return out;
  }

  /** Links not followed, by reason, over every page scanned. */
  skipped(): Map<SkipReason, number> {
    const out = new Map<SkipReason, number>();
    for (const p of this.pages.values()) {
      for (const [k, n] of Object.entries(p.skips ?? {}) as Array<[SkipReason, number]>) out.set(k, (out.get(k) ?? 0) + n);
    }
    return out;
  }

  /** Every request on the wire, in no particular order. */
  *exchanges(): Generator<Exchange> {
    for (const h of this.hosts.values()) yield* h.exchanges;
  }

  /** Response bytes read, over every request. */
  get bytes(): number {
    let n = 0;
    for (const x of this.exchanges()) n += x.bytes;
    return n;
  }

  /** Time the runs took, in ms: each from its start to its end (or to `now` for one not ended). */
  wallMs(now: number): number {
    let total = 0;
    this.runs.forEach((run, i) => {
      const next = this.runs[i + 1];
      const end = this.ends.find((e) => e.at >= run.startedAt && (next === undefined || e.at <= next.startedAt));
      total += (end?.at ?? (next === undefined ? now : run.startedAt)) - run.startedAt;
    });
    return total;
  }

  /** The chain of pages from the first to `url` (parents first). */
  chainTo(url: string): PageNode[] {
    const chain: PageNode[] = [];
    const seen = new Set<string>();
    for (let p = this.pages.get(url); p !== undefined && !seen.has(p.url); p = p.parent === undefined ? undefined : this.pages.get(p.parent)) {
      seen.add(p.url);
      chain.unshift(p);
    }
    return chain;
  }

  /** The tree's roots: the pages at the first depth without a parent (the seed). Others without a parent were not kept (MAX_CHILDREN). */
  roots(): PageNode[] {
    let first = Infinity;
    for (const p of this.pages.values()) first = Math.min(first, p.depth);
    return [...this.pages.values()].filter((p) => p.depth === first && (p.parent === undefined || !this.pages.has(p.parent)));
  }
}

function khFailure(p: PageNode): string | undefined {
  if (p.status === undefined) return undefined;
  if (p.status === 0) return p.error ?? 'no answer';
  return p.status === 200 || (p.status >= 300 && p.status < 400) ? undefined : `HTTP ${p.status}`;
}

export { originOf };
