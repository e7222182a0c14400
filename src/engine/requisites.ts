/**
 * Page requisites (`crawler --page-requisites`, spec decision "Page
 * requisites"): what a kept page needs to be displayed (its stylesheets and
 * what they `@import` or `url()`, images and their `srcset`, scripts, icons,
 * media, fonts), fetched after the page for the crawl archive only. They
 * are never a page: no ID, no line of the CS50 log, no link followed from
 * them (a stylesheet's `@import` and `url()` are requisites of the same
 * page, followed `cssDepth` stylesheets deep).
 *
 * Politeness is not relaxed for them: each goes through the crawl's polite
 * fetcher (its host's interval between request starts, Retry-After pauses,
 * back-off and refusals), robots.txt of its host is obeyed, and its host
 * has one requisite request at a time. Each URL is fetched once per crawl,
 * whichever page names it first. A page's requisites are capped in number
 * and bytes; what the caps leave out is told once per page.
 *
 * The requisite reader (extract/requisites.ts, extract/css-urls.ts) reads
 * the page; the archive records every exchange, as for pages, through the
 * client's wire tap; this module decides what is asked, in what order.
 */
import { CrawlerError, isCrawlerError } from '../errors.js';
import { decodeCss } from '../extract/css-decode.js';
import { readCssUrls } from '../extract/css-urls.js';
import { readRequisites } from '../extract/requisites.js';
import { headerValue } from '../http/response-parser.js';
import type { HttpUrl } from '../url/http-url.js';
import type { CrawlEventSink, RequisiteOutcome } from './events.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { followRedirects, type FetchOutcome } from './redirects.js';
import type { RobotsGate } from './robots-gate.js';
import type { RequisiteStore } from '../frontier/requisite-journal.js';
import { parseHttpUrl } from '../url/http-url.js';

/** What --page-requisites is run with. */
export interface RequisiteSettings {
  /** Most requisite URLs fetched for one page (its stylesheets' included). */
  maxPerPage: number;
  /** Most body bytes of one page's requisites; past it the rest are left out. */
  maxBytesPerPage: number;
  /** Stylesheets read for more requisites this deep: 1 reads the page's stylesheets, 2 what they @import too. */
  cssDepth: number;
  /** Whether a requisite URL may be fetched (--exclude, and the crawl's hosts when kept to them); undefined: yes. */
  outside?: ((url: HttpUrl) => string | undefined) | undefined;
}

export const DEFAULT_REQUISITES: RequisiteSettings = { maxPerPage: 200, maxBytesPerPage: 50_000_000, cssDepth: 3 };

export interface RequisitesOptions {
  fetcher: PoliteFetcher;
  robots: RobotsGate;
  resolve: (href: string, base: HttpUrl) => HttpUrl;
  maxRedirects: number;
  settings: RequisiteSettings;
  onEvent: CrawlEventSink;
  signal: AbortSignal;
  /** Most requisite requests in flight at once, across hosts (the crawl's --concurrency). */
  concurrency: number;
  /**
   * A worker of a shared crawl: runs a request in its host's turn as the
   * store keeps it for every worker (StoreRobots.inTurn), so that the
   * host's interval holds across workers. Absent: the fetcher's own turn.
   */
  inTurn?: (<T>(origin: string, request: () => Promise<T>) => Promise<T>) | undefined;
  /**
   * A private crawl's state (crawler --resume): what an earlier run queued
   * and fetched. Absent: this run's memory only (a worker's, whose archive
   * is its own).
   */
  store?: RequisiteStore | undefined;
  /** Resolves once the archive holds the records of `key`'s exchanges: a requisite is done in the state only then. */
  recorded?: ((key: string) => Promise<void>) | undefined;
}


interface Job {
  url: HttpUrl;
  page: PageBudget;
  /** Stylesheets above it: 0 for what the page names. */
  level: number;
  css: boolean;
}

/** One page's share: how many of its requisites and bytes are taken, and whether its cap was told. */
interface PageBudget {
  url: HttpUrl;
  depth: number;
  taken: number;
  bytes: number;
  capTold: boolean;
}

const CSS_KINDS = new Set(['stylesheet', 'style-import', 'import']);

/** The requisite fetches of a crawl: `page()` queues a kept page's, `drain()` waits for all of them. */
export class Requisites {
  /** URL keys queued or fetched this crawl: each is asked once. */
  private readonly seen = new Set<string>();
  /** Per host, its requisites in order; a host has one in flight at a time. */
  private readonly queues = new Map<string, Job[]>();
  private readonly busy = new Set<string>();
  private inFlight = 0;
  private idle: Array<() => void> = [];
  /** Requisite URLs by how they ended (`capped`: each URL a cap left out), and the bytes fetched: the summary's. */
  readonly counts: Record<RequisiteOutcome, number> & { bytes: number } = { fetched: 0, failed: 0, robots: 0, outside: 0, capped: 0, bytes: 0 };

  constructor(private readonly o: RequisitesOptions) {}

  /** A resumed crawl: queues again what its earlier run queued and did not fetch (each page's caps start afresh). */
  resume(): void {
    const pages = new Map<string, PageBudget>();
    for (const r of this.o.store?.pending() ?? []) {
      let url: HttpUrl;
      let page: PageBudget | undefined;
      try {
        url = parseHttpUrl(r.url);
        page = pages.get(r.page);
        if (page === undefined) pages.set(r.page, (page = { url: parseHttpUrl(r.page), depth: r.depth, taken: 0, bytes: 0, capTold: false }));
      } catch {
        continue; // a row this version cannot read: left as it is
      }
      if (this.seen.has(url.key)) continue;
      this.seen.add(url.key);
      page.taken++;
      this.enqueue({ url, page, level: r.level, css: r.css });
    }
    this.pump();
  }

  /** Queues the requisites of a kept page (its body as saved). */
  page(url: HttpUrl, depth: number, body: Buffer): void {
    const budget: PageBudget = { url, depth, taken: 0, bytes: 0, capTold: false };
    const found = readRequisites(body);
    let base = url;
    if (found.base !== undefined) {
      try {
        base = this.o.resolve(found.base, url);
      } catch {
        base = url; // a base that is no URL is ignored, as a browser does
      }
    }
    for (const ref of found.refs) this.add(ref.raw, base, budget, 0, CSS_KINDS.has(ref.kind));
    this.pump();
  }

  /** Resolves once every queued requisite is done (or the stop came). */
  drain(): Promise<void> {
    if (this.inFlight === 0 && this.queues.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private add(raw: string, base: HttpUrl, page: PageBudget, level: number, css: boolean): void {
    let url: HttpUrl;
    try {
      url = this.o.resolve(raw, base);
    } catch {
      return; // not an http(s) URL: never fetched (data:, javascript: are dropped by the reader)
    }
    if (this.seen.has(url.key) || this.o.store?.known(url.key) === true) return;
    const outside = this.o.settings.outside?.(url);
    if (outside !== undefined) {
      this.seen.add(url.key);
      this.tell(url, page, 'outside', { reason: outside });
      return;
    }
    if (page.taken >= this.o.settings.maxPerPage) {
      this.capped(page, `more than ${this.o.settings.maxPerPage} requisites`);
      return;
    }
    this.seen.add(url.key);
    page.taken++;
    this.o.store?.queued({ key: url.key, url: url.href, page: page.url.href, depth: page.depth, level, css });
    this.enqueue({ url, page, level, css });
  }

  private enqueue(job: Job): void {
    let queue = this.queues.get(job.url.origin);
    if (queue === undefined) this.queues.set(job.url.origin, (queue = []));
    queue.push(job);
  }

  /** The page's cap was reached: said once per page, each URL left out counted. */
  private capped(page: PageBudget, why: string): void {
    this.counts.capped++;
    if (page.capTold) return;
    page.capTold = true;
    this.o.onEvent({ type: 'requisite', url: page.url, page: page.url, depth: page.depth, outcome: 'capped', reason: why });
  }

  /** Starts what may start: one request per host, `concurrency` in all. */
  private pump(): void {
    if (this.o.signal.aborted) {
      this.queues.clear();
      this.settle();
      return;
    }
    for (const [origin, queue] of this.queues) {
      if (this.inFlight >= this.o.concurrency) break;
      if (this.busy.has(origin)) continue;
      const job = queue.shift();
      if (queue.length === 0) this.queues.delete(origin);
      if (job === undefined) continue;
      this.busy.add(origin);
      this.inFlight++;
      void this.fetchAndRecord(job).finally(() => {
        this.busy.delete(origin);
        this.inFlight--;
        this.pump();
        this.settle();
      });
    }
  }

  private settle(): void {
    if (this.inFlight > 0 || (this.queues.size > 0 && !this.o.signal.aborted)) return;
    const waiting = this.idle;
    this.idle = [];
    for (const resolve of waiting) resolve();
  }

  /** Fetches a requisite; once the archive holds its records, it is done in the state (a stop leaves it to a resume). */
  private async fetchAndRecord(job: Job): Promise<void> {
    if (!(await this.fetch(job))) return;
    await this.o.recorded?.(job.url.key);
    this.o.store?.done(job.url.key);
  }

  /** False when a stop cut it short (it is fetched again on resume). */
  private async fetch(job: Job): Promise<boolean> {
    const { url, page } = job;
    if (page.bytes >= this.o.settings.maxBytesPerPage) {
      this.capped(page, `more than ${this.o.settings.maxBytesPerPage} bytes of requisites`);
      return true;
    }
    let allowed: boolean;
    try {
      allowed = await this.o.robots.allows(url);
    } catch (err) {
      if (isCrawlerError(err, 'ERR_ABORTED')) return false;
      throw err;
    }
    if (!allowed) {
      this.tell(url, page, 'robots', { reason: 'disallowed by robots.txt' });
      return true;
    }
    const end = await followRedirects(url, {
      fetch: (u) => this.request(u),
      maxRedirects: this.o.maxRedirects,
      resolve: this.o.resolve,
      // A requisite's redirect is followed where robots.txt allows the target (any host: requisites live on CDNs).
      follow: async (step) => step.kind === 'target' && this.o.settings.outside?.(step.target) === undefined && (await this.o.robots.allows(step.target)),
    });
    const response = end.outcome.response;
    if (response === undefined) {
      const error = end.outcome.error as CrawlerError;
      if (error.code === 'ERR_ABORTED') return false;
      this.tell(url, page, 'failed', { reason: error.message, error });
      return true;
    }
    page.bytes += response.body.length;
    if (response.status !== 200) {
      this.tell(url, page, 'failed', { status: response.status, reason: `HTTP ${response.status}` });
      return true;
    }
    this.counts.bytes += response.body.length;
    this.tell(url, page, 'fetched', { status: 200, bytes: response.body.length });
    if (job.level + 1 <= this.o.settings.cssDepth && isStylesheet(response, job.css)) this.readStylesheet(end.url, response.body, headerValue(response.headers, 'content-type'), job);
    return true;
  }

  /** One request, in its host's turn (the store's, for a worker of a shared crawl); a stop before it is an ERR_ABORTED outcome. */
  private async request(url: HttpUrl): Promise<FetchOutcome> {
    const inTurn = this.o.inTurn;
    if (inTurn === undefined) return this.o.fetcher.outcome(url, this.o.signal);
    try {
      return await inTurn(url.origin, () => this.o.fetcher.outcome(url, this.o.signal));
    } catch (err) {
      if (isCrawlerError(err)) return { error: err };
      throw err;
    }
  }

  /** A stylesheet's url() and @import: requisites of the same page, one level down. */
  private readStylesheet(at: HttpUrl, body: Buffer, contentType: string | undefined, job: Job): void {
    const charset = /;\s*charset=("?)([^";\s]+)\1/i.exec(contentType ?? '')?.[2];
    for (const ref of readCssUrls(decodeCss(body, charset))) this.add(ref.raw, at, job.page, job.level + 1, ref.kind === 'import');
  }

  private tell(url: HttpUrl, page: PageBudget, outcome: RequisiteOutcome, more: { status?: number; bytes?: number; reason?: string; error?: CrawlerError }): void {
    this.counts[outcome]++;
    this.o.onEvent({ type: 'requisite', url, page: page.url, depth: page.depth, outcome, ...more });
  }
}

/** Read as a stylesheet: named as one by the page or an @import, or served as text/css. */
function isStylesheet(response: FetchOutcome['response'] & object, named: boolean): boolean {
  const type = headerValue(response.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  return type === 'text/css' || (named && (type === undefined || type === 'text/plain'));
}


