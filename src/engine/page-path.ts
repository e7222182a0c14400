/**
 * The visit of one taken URL, the same under both schedulers (style.md, "The
 * seam is the visit"): resolve it, check robots.txt, fetch it politely,
 * follow or queue its redirects, ask the program's policy what the final
 * answer is worth, stage the page in the sink, classify its links in
 * document order, and tell every event. What differs between a private crawl
 * and a worker of a shared one is only how URLs are taken and completed (an
 * ordered window; claim lanes): the scheduler takes an entry, calls `visit`,
 * completes the entry with what the visit gives, then calls `told` (or
 * `lost`) with what the frontier answered.
 *
 * Events: a request's `response` (and, when redirects are followed in the
 * visit, each `redirect`) is told as it happens; everything that depends on
 * the completion (the page's ID, which links were new) is told by `told`:
 * `saved`, `match`, `scanning` then each link; or `failed`, `disallowed`, a
 * queued `redirect`.
 */
import { isCrawlerError } from '../errors.js';
import type { LinkExtractor } from '../extract/types.js';
import type { ClaimEntry } from '../frontier/claim-store.js';
import type { FrontierEntry } from '../frontier/store.js';
import type { FetchResponse } from '../http/client.js';
import { ExchangeError } from '../http/connection.js';
import type { EarlyStagedPage, PageSink } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import { conditionalHeaders, refreshed, savedPage } from './earlier-pages.js';
import type { EarlierPages } from '../frontier/earlier-pages.js';
import type { CrawlEvent, CrawlEventSink, LinkAction } from './events.js';
import { LinkClassifier } from './link-classifier.js';
import { linksOnRules, type AheadLinks } from './links-on-rules.js';
import { pageLinks, type PageLink } from './page-links.js';
import { PageScan } from './page-scan.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { followRedirects, redirectLocation, type FetchOutcome } from './redirects.js';
import type { RobotsGate } from './robots-gate.js';
import type { SitemapLinks, SitemapSettings } from './sitemap-links.js';
import type { Completed, PagePolicy, Pending, Visit, VisitDone } from './visit-types.js';

export interface PagePathOptions {
  /** The crawl's seed: what queued URLs are resolved against. */
  seed: HttpUrl;
  policy: PagePolicy;
  extractor: LinkExtractor;
  fetcher: PoliteFetcher;
  /** robots.txt: each host's rules, loaded when a URL of it is first met (or learnt from a shared store). */
  robots: RobotsGate;
  /** Pages at this depth are kept but not scanned. */
  maxDepth: number;
  maxRedirects: number;
  /**
   * `follow`: a redirect's target is fetched within the visit, hop by hop
   * (a private crawl, KeywordHunter). `queue`: it is queued at the same
   * depth and fetched in its turn (a worker of a shared crawl, which holds
   * one host's turn at a time; the frontier's seen set ends loops).
   */
  redirects: 'follow' | 'queue';
  /** The seen set, where the visit asks it (a private frontier); absent where the store says so on completion. */
  seen?: { isSeen(key: string): boolean; markSeen(key: string): boolean };
  sink: PageSink;
  /**
   * A refresh's earlier crawl (crawler --since): each page request carries
   * the validators it saved for the URL, and a 304 to such a request keeps
   * its earlier copy. Absent: plain requests.
   */
  earlier?: EarlierPages | undefined;
  /** Most robots.txt files fetched at once for the new hosts of one page (the crawl's --concurrency). Default 1. */
  robotsConcurrency?: number;
  /**
   * Told, while a page waits for the robots.txt of its new hosts, the links
   * it will follow to each host whose rules have come (in scope, not seen,
   * allowed): a private crawl's window fetches them ahead, so that a host's
   * first page does not wait for the slowest robots.txt of the page. Absent:
   * nothing is fetched before the page's links are judged.
   */
  ahead?: (links: AheadLinks) => void;
  onEvent: CrawlEventSink;
  /** The scheduler's stop: ends every wait of a visit. */
  signal: AbortSignal;
}

const NOTHING: ClaimEntry[] = [];

export class PagePath {
  readonly robots: RobotsGate;
  readonly classifier: LinkClassifier;
  /** Final answers seen (the page budget counts them). */
  answered = 0;
  private readonly o: PagePathOptions;
  private readonly resolve: (href: string, base: HttpUrl) => HttpUrl;

  constructor(options: PagePathOptions) {
    this.o = options;
    const policy = options.policy;
    this.resolve = (href, base) => policy.resolveLink(href, base);
    this.robots = options.robots;
    const seen = options.seen;
    this.classifier = new LinkClassifier({ inScope: (url) => options.policy.inScope(url), robots: this.robots, ...(seen === undefined ? {} : { isSeen: (key: string) => seen.isSeen(key) }) });
  }

  /**
   * Visits a taken entry. `first` is its first request's outcome when the
   * scheduler fetched it ahead (undefined: fetched now); `fetchHop`, where a
   * redirect's target may have been fetched ahead too; `staged`, the first
   * answer's page staged on disk while it waited (see `stageEarly`): the
   * visit's page when it is that page, else discarded.
   */
  async visit(entry: FrontierEntry, first?: FetchOutcome, fetchHop?: (url: HttpUrl) => Promise<FetchOutcome> | undefined, staged?: EarlyStagedPage): Promise<Visit> {
    if (staged === undefined) return this.visitOn(entry, first, fetchHop, undefined);
    let visit: Visit | undefined;
    try {
      visit = await this.visitOn(entry, first, fetchHop, staged);
      return visit;
    } finally {
      if (visit?.end !== 'done' || visit.page !== staged) staged.discard();
    }
  }

  /**
   * The page of an answer that arrived ahead of its turn, staged on disk at
   * once (the sink's stageEarly) when the program will keep it: a final
   * answer its verdict keeps. Not in a refresh, whose kept page may be an
   * earlier copy. Undefined: not staged.
   */
  stageEarly(entry: FrontierEntry, url: HttpUrl, response: FetchResponse): EarlyStagedPage | undefined {
    const { sink, policy } = this.o;
    if (sink.stageEarly === undefined || this.o.earlier !== undefined || redirectLocation(response) !== undefined) return undefined;
    if (!policy.verdict({ entry, url, depth: entry.depth, response }).keep) return undefined;
    return sink.stageEarly({ url, depth: entry.depth, body: response.body });
  }

  private async visitOn(entry: FrontierEntry, first: FetchOutcome | undefined, fetchHop: ((url: HttpUrl) => Promise<FetchOutcome> | undefined) | undefined, staged: EarlyStagedPage | undefined): Promise<Visit> {
    const { policy, onEvent } = this.o;
    const depth = entry.depth;
    let start: HttpUrl;
    try {
      start = policy.resolveLink(entry.url, this.o.seed);
    } catch (err) {
      if (!isCrawlerError(err)) throw err;
      return this.done([{ type: 'failed', url: entry.key, depth, reason: policy.failureReason(err), error: err }]);
    }
    if (first === undefined && this.robots.allowsNow(start) === false) return this.done([{ type: 'disallowed', url: start.key, depth }]);
    const signal = this.o.signal;
    let aborted = false;
    let queued: Pending['redirect'];
    const links: ClaimEntry[] = [];
    const end = await followRedirects(start, {
      fetch: async (url, hop) => (hop === 0 && first !== undefined ? first : await (fetchHop?.(url) ?? this.o.fetcher.outcome(url, signal, this.conditional(url)))),
      maxRedirects: this.o.redirects === 'follow' ? this.o.maxRedirects : Infinity,
      resolve: this.resolve,
      onOutcome: (url, outcome) => {
        const response = outcome.response;
        if (response !== undefined) onEvent({ type: 'response', url, depth, status: response.status, notes: response.notes });
      },
      follow: async (step, from) => {
        if (step.kind !== 'target') {
          onEvent({ type: 'redirect', from, depth, target: step.kind === 'limit' ? step.target : undefined, raw: step.raw, action: 'invalid', error: step.error });
          return false;
        }
        const target = step.target;
        const action = await this.classify(target);
        if (action === undefined || signal.aborted) {
          aborted = true;
          return false;
        }
        if (this.o.redirects === 'queue') {
          // Told once the frontier says whether the target was new.
          queued = { type: 'redirect', from, depth, target, raw: step.raw, action };
          if (action === 'follow') links.push({ key: target.key, url: target.href, depth, origin: target.origin });
          return false;
        }
        onEvent({ type: 'redirect', from, depth, target, raw: step.raw, action });
        if (action !== 'follow') return false;
        this.o.seen?.markSeen(target.key);
        return true;
      },
    });
    if (aborted) return { end: 'aborted' };
    if (queued !== undefined) return { end: 'done', links, page: undefined, stop: false, pending: { events: [], redirect: queued } };
    const { url, outcome } = end;
    const response = outcome.response;
    if (response === undefined) return this.failed(entry, url, outcome.error);
    if (end.step?.kind !== 'final') return this.done([]); // a redirect not followed: its event said why
    if (policy.retry?.(entry.attempts ?? 0, outcome) === true) return { end: 'retry' };
    this.answered++;
    const earlier = this.o.earlier?.page(url.key);
    // A 304 means "the copy you have is current" only when we asked with that copy's validators.
    const unchanged = response.status === 304 && conditionalHeaders(earlier) !== undefined ? earlier : undefined;
    // Read when needed: a page staged early has its body on disk, and one at the depth limit is not scanned.
    let earlierBody: Buffer | undefined;
    const body = (): Buffer => earlierBody ?? response.body;
    if (unchanged !== undefined) {
      try {
        earlierBody = await (this.o.earlier as EarlierPages).body(unchanged);
      } catch (err) {
        if (!isCrawlerError(err)) throw err;
        return this.done([{ type: 'failed', url: url.key, depth, reason: policy.failureReason(err), error: err }]);
      }
    }
    const verdict = policy.verdict({ entry, url, depth, response, unchanged });
    if (!verdict.keep) return this.done(verdict.reason === undefined ? [] : [{ type: 'failed', url: url.key, depth, reason: verdict.reason }]);
    const early = staged !== undefined && outcome === first && staged.key === url.key && staged.depth === depth && unchanged === undefined;
    const page = early ? staged : await this.o.sink.stage({ url, depth, body: body() });
    let scan: PageScan<ClaimEntry> | undefined;
    if (verdict.scan && verdict.match === undefined && depth < this.o.maxDepth) {
      scan = await this.scan(url, depth, body());
      if (scan === undefined) {
        page.discard();
        return { end: 'aborted' };
      }
    }
    const refresh = this.o.earlier === undefined ? undefined : refreshed(earlier, unchanged, body());
    return {
      end: 'done',
      links: scan?.links ?? NOTHING,
      page,
      url,
      saved: savedPage(url, response, unchanged, refresh),
      stop: verdict.match !== undefined,
      pending: { kept: { url, depth, match: verdict.match, refresh }, events: [], scan },
    };
  }

  /** The validators a request for `url` carries: those the earlier crawl saved for it (a refresh), else none. */
  conditional(url: HttpUrl): ReturnType<typeof conditionalHeaders> {
    return this.o.earlier === undefined ? undefined : conditionalHeaders(this.o.earlier.page(url.key));
  }

  /** Tells a completed visit's events: `settled`, then `scanned`. */
  told(visit: VisitDone, completed: Completed): void {
    this.settled(visit, completed.documentId);
    this.scanned(visit, completed.added);
  }

  /**
   * Tells what a visit came to, which the frontier's answer about links
   * does not change: why it failed, or the page saved under its ID (and a
   * match). A private crawl tells it before its entry is completed, so that
   * a page the crawl state holds as done has been told (the report's journal).
   */
  settled(visit: VisitDone, documentId: number | undefined): void {
    const { onEvent } = this.o;
    const p = visit.pending;
    for (const e of p.events) onEvent(e);
    const kept = p.kept;
    if (kept !== undefined) {
      if (documentId !== undefined) onEvent(kept.refresh === undefined ? { type: 'saved', url: kept.url, depth: kept.depth, id: documentId } : { type: 'saved', url: kept.url, depth: kept.depth, id: documentId, refresh: kept.refresh });
      if (kept.match !== undefined) onEvent({ type: 'match', url: kept.url, depth: kept.depth, line: kept.match });
    }
  }

  /** Tells what depends on which links were new (`added`, from completing the entry): a queued redirect, then the scan. */
  scanned(visit: VisitDone, added: readonly boolean[]): void {
    const { onEvent } = this.o;
    const p = visit.pending;
    if (p.redirect !== undefined) {
      const e = p.redirect;
      onEvent(e.action === 'follow' && added[0] !== true ? { ...e, action: 'duplicate' } : e);
    }
    if (p.scan !== undefined) for (const e of p.scan.told(added)) onEvent(e);
  }

  /** A visit whose completion the frontier refused (a shared crawl's lease ran out): nothing of it is told but that. */
  lost(entry: FrontierEntry, visit: Visit): void {
    if (visit.end === 'done') visit.page?.discard();
    this.o.onEvent({ type: 'lost', url: entry.key, depth: entry.depth });
  }

  /** Tells that robots.txt disallows an entry, without visiting it (a seed checked before it is queued). */
  disallowed(url: HttpUrl, depth: number): void {
    this.o.onEvent({ type: 'disallowed', url: url.key, depth });
  }

  /**
   * Sitemap reading (--sitemaps) with this path's fetcher, robots.txt,
   * classifier, events and stop. Loaded only then: a crawl without sitemaps
   * never loads the XML parser or zlib.
   */
  async sitemapLinks(settings: SitemapSettings, maxRedirects: number): Promise<SitemapLinks> {
    const { SitemapLinks } = await import('./sitemap-links.js');
    const o = this.o;
    return new SitemapLinks({ fetcher: o.fetcher, robots: this.robots, classifier: this.classifier, resolve: this.resolve, maxRedirects, maxUrlLength: settings.maxUrlLength, robotsConcurrency: o.robotsConcurrency ?? 1, limits: settings.limits, onEvent: o.onEvent, signal: o.signal });
  }

  /**
   * The links of an answer that the scan will certainly follow when the
   * page's turn comes (it will be kept and scanned, and each link is in
   * scope, not seen, and allowed by robots.txt rules already known): for
   * fetching ahead. No event, no side effect.
   */
  linksAhead(entry: FrontierEntry, url: HttpUrl, outcome: FetchOutcome): AheadLinks {
    const response = outcome.response;
    if (response === undefined || entry.depth >= this.o.maxDepth || redirectLocation(response) !== undefined) return [];
    const verdict = this.o.policy.verdict({ entry, url, depth: entry.depth, response });
    if (!verdict.keep || !verdict.scan || verdict.match !== undefined) return [];
    const out: AheadLinks = [];
    for (const { url: link } of this.links(url, response.body)) {
      if (link !== undefined && this.classifier.now(link) === 'follow') out.push({ entry: { key: link.key, url: link.href, depth: entry.depth + 1 }, url: link });
    }
    return out;
  }

  /** A request that got no (whole) answer: its response event (status 0 unless the head had arrived), then a retry or a failure. */
  private failed(entry: FrontierEntry, url: HttpUrl, err: unknown): Visit {
    if (!isCrawlerError(err)) throw err;
    if (err.code === 'ERR_ABORTED') return { end: 'aborted' };
    this.o.onEvent({ type: 'response', url, depth: entry.depth, status: err instanceof ExchangeError ? (err.status ?? 0) : 0, error: err });
    if (this.o.policy.retry?.(entry.attempts ?? 0, { error: err }) === true) return { end: 'retry' };
    return this.done([{ type: 'failed', url: url.key, depth: entry.depth, reason: this.o.policy.failureReason(err), error: err }]);
  }

  private done(events: CrawlEvent[]): VisitDone {
    return { end: 'done', links: NOTHING, page: undefined, stop: false, pending: { events } };
  }

  /**
   * external, then duplicate (where the visit knows), then robots (loading
   * the host's rules when unknown), else follow. Undefined when a stop ended
   * the wait for the host's rules (a shared crawl's loader then gives up).
   */
  private async classify(url: HttpUrl): Promise<LinkAction | undefined> {
    const now = this.classifier.now(url);
    if (now !== undefined) return now;
    try {
      return await this.classifier.classify(url);
    } catch (err) {
      if (isCrawlerError(err, 'ERR_ABORTED')) return undefined;
      throw err;
    }
  }

  /**
   * Extracts, resolves and classifies the links of a page, in document
   * order. Undefined when a stop cut it short (a robots.txt answer fetched
   * after the stop cannot be trusted, so the page is redone).
   */
  private async scan(page: HttpUrl, depth: number, body: Buffer): Promise<PageScan<ClaimEntry> | undefined> {
    const scan = new PageScan<ClaimEntry>(page, depth);
    const links = [...this.links(page, body)];
    // Most links are decided at once (robots.txt already known). The robots.txt of every host the page
    // leads to that is not known yet is fetched at once, before any link is judged: a page that links to
    // 500 new hosts waits for the slowest of them, not for their sum.
    const actions: Array<LinkAction | undefined> = new Array<LinkAction | undefined>(links.length);
    let unknown: string[] | undefined;
    for (let i = 0; i < links.length; i++) {
      const url = (links[i] as PageLink).url;
      if (url === undefined) continue;
      const action = this.classifier.now(url);
      if (action === undefined) (unknown ??= []).push(url.origin);
      else actions[i] = action;
    }
    if (unknown !== undefined) {
      try {
        await this.robots.learnAll(unknown, this.o.robotsConcurrency ?? 1, this.o.ahead === undefined ? undefined : linksOnRules(links, actions, depth + 1, this.o.signal, this.o.ahead));
      } catch (err) {
        if (isCrawlerError(err, 'ERR_ABORTED')) return undefined;
        throw err;
      }
      if (this.o.signal.aborted) return undefined;
    }
    for (let i = 0; i < links.length; i++) {
      const { raw, url, error } = links[i] as PageLink;
      if (url === undefined) {
        scan.push({ type: 'link', depth, raw, url: undefined, action: 'invalid', error }, undefined);
        continue;
      }
      const action = actions[i] ?? this.classifier.now(url) ?? (await this.classify(url));
      if (action === undefined || this.o.signal.aborted) return undefined;
      scan.push({ type: 'link', depth, raw, url, action }, { key: url.key, url: url.href, depth: depth + 1, origin: url.origin });
    }
    return scan;
  }

  /** The links of a page in document order, resolved against its base. */
  private links(page: HttpUrl, body: Buffer): Generator<PageLink> {
    return pageLinks(this.o.extractor.extract(body), page, this.resolve);
  }
}
