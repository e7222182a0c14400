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
import type { PageAsk, PoliteFetcher } from './polite-fetch.js';
import { followRedirects, type FetchOutcome } from './redirects.js';
import type { RobotsGate } from './robots-gate.js';
import type { EarlierPages } from '../frontier/earlier-pages.js';
import type { PageCapture } from '../frontier/private-store.js';
import type { FetchedRequisite, RequisiteRef, RequisiteStore } from '../frontier/requisite-journal.js';
import { conditionalHeaders, validatorsOf } from './earlier-pages.js';
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
  /** The archive's capture of `key`'s last answer (a 304's: the earlier capture it revisits), kept in the state for a later refresh. */
  captureOf?: ((key: string) => PageCapture | undefined) | undefined;
  /**
   * A refresh's earlier crawl (crawler --since): a requisite it fetched is
   * asked with its validators, and a 304 stands for the earlier capture
   * (the archive writes a revisit), the URLs a stylesheet named read from
   * the earlier crawl's record.
   */
  earlier?: Pick<EarlierPages, 'requisite'> | undefined;
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
  readonly counts: Record<RequisiteOutcome, number> & { bytes: number; sparedBytes: number } = { fetched: 0, unchanged: 0, failed: 0, robots: 0, outside: 0, capped: 0, bytes: 0, sparedBytes: 0 };

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

  /** Queues `raw` (resolved against `base`) for `page` when it is new to the crawl; returns the URL, undefined when it is none. */
  private add(raw: string, base: HttpUrl, page: PageBudget, level: number, css: boolean): HttpUrl | undefined {
    let url: HttpUrl;
    try {
      url = this.o.resolve(raw, base);
    } catch {
      return undefined; // not an http(s) URL: never fetched (data:, javascript: are dropped by the reader)
    }
    if (this.seen.has(url.key) || this.o.store?.known(url.key) === true) return url;
    const outside = this.o.settings.outside?.(url);
    if (outside !== undefined) {
      this.seen.add(url.key);
      this.tell(url, page, 'outside', { reason: outside });
      return url;
    }
    if (page.taken >= this.o.settings.maxPerPage) {
      this.capped(page, `more than ${this.o.settings.maxPerPage} requisites`);
      return url;
    }
    this.seen.add(url.key);
    page.taken++;
    this.o.store?.queued({ key: url.key, url: url.href, page: page.url.href, depth: page.depth, level, css });
    this.enqueue({ url, page, level, css });
    return url;
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
    const fetched = await this.fetch(job);
    if (fetched === false) return;
    const key = job.url.key;
    await this.o.recorded?.(key);
    this.o.store?.done(key, fetched === true ? undefined : { ...fetched, capture: this.o.captureOf?.(key) });
  }

  /**
   * False when a stop cut it short (it is fetched again on resume); what a
   * later refresh needs of it when it was answered at its own URL (200 or
   * 304); else true.
   */
  private async fetch(job: Job): Promise<boolean | Omit<FetchedRequisite, 'capture'>> {
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
    const before = this.o.earlier?.requisite?.(url.key);
    const ask = conditionalHeaders(before);
    const end = await followRedirects(url, {
      // The validators are the earlier answer's at this URL: only its own request carries them.
      fetch: (u) => this.request(u, u.key === url.key && ask !== undefined ? { headers: ask } : undefined),
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
    if (response.status === 304 && before !== undefined && end.url.key === url.key) {
      const spared = before.bytes ?? 0;
      this.counts.sparedBytes += spared;
      this.tell(url, page, 'unchanged', { status: 304, sparedBytes: spared });
      // A 304 sends no body: what the stylesheet named is read from the earlier crawl's record.
      if (job.level + 1 <= this.o.settings.cssDepth) for (const ref of before.refs) this.add(ref.url, url, page, job.level + 1, ref.css);
      const { etag, lastModified } = validatorsOf(response);
      return { etag: etag ?? before.etag, lastModified: lastModified ?? before.lastModified, refs: before.refs, bytes: before.bytes };
    }
    if (response.status !== 200) {
      this.tell(url, page, 'failed', { status: response.status, reason: `HTTP ${response.status}` });
      return true;
    }
    this.counts.bytes += response.body.length;
    this.tell(url, page, 'fetched', { status: 200, bytes: response.body.length });
    const refs = job.level + 1 <= this.o.settings.cssDepth && isStylesheet(response, job.css) ? this.readStylesheet(end.url, response.body, headerValue(response.headers, 'content-type'), job) : [];
    // Redirected: the validators are another URL's, so a refresh asks this one in full.
    return end.url.key === url.key ? { ...validatorsOf(response), refs, bytes: response.wireBodyBytes ?? response.body.length } : true;
  }

  /** One request, in its host's turn (the store's, for a worker of a shared crawl); a stop before it is an ERR_ABORTED outcome. */
  private async request(url: HttpUrl, ask?: PageAsk): Promise<FetchOutcome> {
    const inTurn = this.o.inTurn;
    if (inTurn === undefined) return this.o.fetcher.outcome(url, this.o.signal, ask);
    try {
      return await inTurn(url.origin, () => this.o.fetcher.outcome(url, this.o.signal, ask));
    } catch (err) {
      if (isCrawlerError(err)) return { error: err };
      throw err;
    }
  }

  /** A stylesheet's url() and @import: requisites of the same page, one level down. Returns them, resolved (what a refresh's 304 stands for). */
  private readStylesheet(at: HttpUrl, body: Buffer, contentType: string | undefined, job: Job): RequisiteRef[] {
    const charset = /;\s*charset=("?)([^";\s]+)\1/i.exec(contentType ?? '')?.[2];
    const refs: RequisiteRef[] = [];
    for (const ref of readCssUrls(decodeCss(body, charset))) {
      const css = ref.kind === 'import';
      const url = this.add(ref.raw, at, job.page, job.level + 1, css);
      if (url !== undefined) refs.push({ url: url.href, css });
    }
    return refs;
  }

  private tell(url: HttpUrl, page: PageBudget, outcome: RequisiteOutcome, more: { status?: number; bytes?: number; sparedBytes?: number; reason?: string; error?: CrawlerError }): void {
    this.counts[outcome]++;
    this.o.onEvent({ type: 'requisite', url, page: page.url, depth: page.depth, outcome, ...more });
  }
}

/** Read as a stylesheet: named as one by the page or an @import, or served as text/css. */
function isStylesheet(response: FetchOutcome['response'] & object, named: boolean): boolean {
  const type = headerValue(response.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  return type === 'text/css' || (named && (type === undefined || type === 'text/plain'));
}


