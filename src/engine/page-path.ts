/**
 * The visit of one turn, the same under every scheduler (style.md, "The
 * seam is the visit"): check robots.txt, fetch politely, follow or queue
 * its redirects, ask the program's policy what the final answer is worth,
 * stage the page in the sink, classify its links in document order. How a
 * turn was taken and how it is completed is the scheduler's (turns.ts); the
 * loop around a visit is loop.ts.
 *
 * Events: a request's `response` (and each redirect followed in the visit)
 * is told as it happens; everything that depends on the completion (the
 * page's ID, which links were new) waits in the visit's `pending`, told by
 * visit-events.ts once the scheduler has completed the turn.
 */
import { isCrawlerError } from '../errors.js';
import type { LinkExtractor } from '../extract/types.js';
import type { ClaimEntry } from '../frontier/claim-store.js';
import type { FrontierEntry } from '../frontier/private-store.js';
import type { FetchResponse } from '../http/client.js';
import { ExchangeError } from '../http/connection.js';
import type { EarlyStagedPage, PageSink } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import { conditionalHeaders, earlierAnswer, freshened, refreshed, savedPage, unkeptAnswer } from './earlier-pages.js';
import type { EarlierPage, EarlierPages } from '../frontier/earlier-pages.js';
import type { CrawlEvent, CrawlEventSink, LinkAction } from './events.js';
import type { LinkClassifier } from './link-classifier.js';
import { linksOnRules, type AheadLinks } from './links-on-rules.js';
import { pageLinks, type PageLink } from './page-links.js';
import { PageScan } from './page-scan.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { followRedirects, redirectLocation, type FetchOutcome } from './redirects.js';
import type { RobotsGate } from './robots-gate.js';
import type { Turn } from './turns.js';
import type { PagePolicy, Verdict } from './page-policy.js';
import type { Pending, Visit, VisitDone } from './visit-types.js';

export interface PagePathOptions {
  policy: PagePolicy;
  extractor: LinkExtractor;
  fetcher: PoliteFetcher;
  /** robots.txt: each host's rules, loaded when a URL of it is first met (or learnt from a shared store). */
  robots: RobotsGate;
  /** What becomes of a link: the scheduler's, which knows where the seen set is (its frontier, or the store on completion). */
  classifier: LinkClassifier;
  /** Pages at this depth are kept but not scanned. */
  maxDepth: number;
  /** The most redirect hops of one chain, counted across queued hops too (Turn.hops). */
  maxRedirects: number;
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
   * allowed): a scheduler that fetches ahead starts them, so that a host's
   * first page does not wait for the slowest robots.txt of the page. Absent:
   * nothing is fetched before the page's links are judged.
   */
  ahead?: (links: AheadLinks) => void;
  onEvent: CrawlEventSink;
  /** The scheduler's stop: ends every wait of a visit. */
  signal: AbortSignal;
  /** --page-requisites: told each kept page, whose requisites it fetches beside the crawl. */
  requisites?: { page(url: HttpUrl, depth: number, body: Buffer): void } | undefined;
}

const NOTHING: ClaimEntry[] = [];

export class PagePath {
  /** Final answers seen (the page budget counts them). */
  answered = 0;
  private readonly o: PagePathOptions;
  private readonly resolve: (href: string, base: HttpUrl) => HttpUrl;
  /** Each answer's verdict, asked once whoever asks (the window ahead of the turn, the visit in it). */
  private readonly verdicts = new WeakMap<FetchResponse, Verdict>();

  constructor(options: PagePathOptions) {
    this.o = options;
    const policy = options.policy;
    this.resolve = (href, base) => policy.resolveLink(href, base);
  }

  /** Visits a turn; its staged page, when it is not the visit's, is discarded. */
  async visit(turn: Turn): Promise<Visit> {
    const staged = turn.staged;
    if (staged === undefined) return this.visitOn(turn, undefined);
    let visit: Visit | undefined;
    try {
      visit = await this.visitOn(turn, staged);
      return visit;
    } finally {
      if (visit?.end !== 'done' || visit.page !== staged) staged.discard();
    }
  }

  /** One request for a page URL, in its host's turn, with a refresh's validators: the one way a page is asked for. */
  request(url: HttpUrl): Promise<FetchOutcome> {
    const earlier = this.o.earlier;
    const headers = earlier === undefined ? undefined : conditionalHeaders(earlierAnswer(earlier, url.key));
    return this.o.fetcher.outcome(url, this.o.signal, { headers, wantsBody: this.o.policy.wantsBody });
  }

  /**
   * What a final answer is worth to the program, asked of its policy once
   * per answer (the policy is pure: asked again, it would say the same).
   * A refresh's unchanged page is judged on its own.
   */
  judge(entry: FrontierEntry, url: HttpUrl, response: FetchResponse, unchanged?: EarlierPage): Verdict {
    if (unchanged !== undefined) return this.o.policy.verdict({ entry, url, depth: entry.depth, response, unchanged });
    let verdict = this.verdicts.get(response);
    if (verdict === undefined) {
      verdict = this.o.policy.verdict({ entry, url, depth: entry.depth, response });
      this.verdicts.set(response, verdict);
    }
    return verdict;
  }

  /**
   * The page of an answer that arrived ahead of its turn, staged on disk at
   * once (the sink's stageEarly) when the program will keep it: a final
   * answer its verdict keeps. Not in a refresh, whose kept page may be an
   * earlier copy. Undefined: not staged.
   */
  stageEarly(entry: FrontierEntry, url: HttpUrl, response: FetchResponse): EarlyStagedPage | undefined {
    const { sink } = this.o;
    if (sink.stageEarly === undefined || this.o.earlier !== undefined || redirectLocation(response) !== undefined) return undefined;
    if (!this.judge(entry, url, response).keep) return undefined;
    return sink.stageEarly({ url, depth: entry.depth, body: response.body });
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
    const verdict = this.judge(entry, url, response);
    if (!verdict.keep || !verdict.scan || verdict.match !== undefined) return [];
    const out: AheadLinks = [];
    for (const { url: link } of this.links(url, response.body)) {
      if (link !== undefined && this.o.classifier.now(link) === 'follow') out.push({ entry: { key: link.key, url: link.href, depth: entry.depth + 1 }, url: link });
    }
    return out;
  }

  private async visitOn(turn: Turn, staged: EarlyStagedPage | undefined): Promise<Visit> {
    const { policy, onEvent } = this.o;
    const entry = turn.entry;
    const depth = entry.depth;
    const start = turn.target.url;
    if (start === undefined) return this.failed(entry, entry.key, turn.target.error as NonNullable<Turn['target']['error']>);
    // A turn fetched ahead passed robots.txt when it was queued; any other is checked now (a shared worker's claim).
    if (turn.first === undefined && this.o.robots.allowsNow(start) === false) return this.done([{ type: 'disallowed', url: start.key, depth }]);
    const signal = this.o.signal;
    let aborted = false;
    let queued: Pending['redirect'];
    const links: ClaimEntry[] = [];
    const end = await followRedirects(start, {
      fetch: async (url, hop) => (hop === turn.hops ? (turn.first ?? (await this.request(url))) : await (turn.hop as (url: HttpUrl) => Promise<FetchOutcome>)(url)),
      maxRedirects: this.o.maxRedirects,
      firstHop: turn.hops,
      resolve: this.resolve,
      onOutcome: (url, outcome) => {
        const response = outcome.response;
        if (response !== undefined) onEvent({ type: 'response', url, depth, status: response.status, notes: response.notes });
      },
      follow: async (step, from, hop) => {
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
        if (turn.hop === undefined) {
          // Queued at the same depth, one hop further down the chain; told once the frontier says whether it was new.
          queued = { type: 'redirect', from, depth, target, raw: step.raw, action };
          if (action === 'follow') links.push({ key: target.key, url: target.href, depth, origin: target.origin, hops: hop + 1 });
          return false;
        }
        onEvent({ type: 'redirect', from, depth, target, raw: step.raw, action });
        return action === 'follow';
      },
    });
    if (aborted) return { end: 'aborted' };
    if (queued !== undefined) return { end: 'done', links, page: undefined, stop: false, answered: false, pending: { events: [], redirect: queued } };
    const { url, outcome } = end;
    const response = outcome.response;
    if (response === undefined) return this.failed(entry, url.key, outcome.error, url);
    if (end.step?.kind !== 'final') return this.done([]); // a redirect not followed: its event said why
    if (policy.retry?.(entry.attempts ?? 0, outcome) === true) return { end: 'retry' };
    this.answered++;
    const earlier = this.o.earlier?.page(url.key);
    // A 304 means "the copy you have is current" only when we asked with that copy's validators.
    const unchanged = response.status === 304 && conditionalHeaders(earlier) !== undefined ? earlier : undefined;
    // A 304 to the validators of an answer the earlier crawl did not keep (not HTML) stands for that answer.
    const before = response.status === 304 && earlier === undefined ? this.o.earlier?.unkept?.(url.key) : undefined;
    const answer = before !== undefined && conditionalHeaders(before) !== undefined ? freshened(response, before) : response;
    // Read when needed: a page staged early has its body on disk, and one at the depth limit is not scanned.
    let earlierBody: Buffer | undefined;
    const body = (): Buffer => earlierBody ?? response.body;
    if (unchanged !== undefined) {
      try {
        earlierBody = await (this.o.earlier as EarlierPages).body(unchanged);
      } catch (err) {
        if (!isCrawlerError(err)) throw err;
        return this.done([{ type: 'failed', url: url.key, depth, reason: policy.failureReason(err), error: err }], true);
      }
    }
    const verdict = this.judge(entry, url, answer, unchanged);
    if (!verdict.keep) {
      const events: CrawlEvent[] = verdict.reason === undefined ? [] : [{ type: 'failed', url: url.key, depth, reason: verdict.reason }];
      // Recorded for a later refresh, which asks for it again with its validators.
      return { ...this.done(events, true), unkept: unkeptAnswer(url.key, answer, policy.wantsBody) };
    }
    const early = staged !== undefined && outcome === turn.first && staged.key === url.key && staged.depth === depth && unchanged === undefined;
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
    // Its requisites are asked after the page (the archive keeps them; a page is never one).
    this.o.requisites?.page(url, depth, body());
    return {
      end: 'done',
      links: scan?.links ?? NOTHING,
      page,
      url,
      saved: savedPage(url, response, unchanged, refresh),
      stop: verdict.match !== undefined,
      answered: true,
      pending: { kept: { url, depth, match: verdict.match, refresh }, events: [], scan },
    };
  }

  /**
   * A URL that got no (whole) answer, or could not be requested at all: its
   * response event when a request went out (status 0 unless the head had
   * arrived), then a retry or a failure.
   */
  private failed(entry: FrontierEntry, key: string, err: NonNullable<FetchOutcome['error']>, asked?: HttpUrl): Visit {
    if (err.code === 'ERR_ABORTED') return { end: 'aborted' };
    if (asked !== undefined) {
      this.o.onEvent({ type: 'response', url: asked, depth: entry.depth, status: err instanceof ExchangeError ? (err.status ?? 0) : 0, error: err });
      if (this.o.policy.retry?.(entry.attempts ?? 0, { error: err }) === true) return { end: 'retry' };
    }
    return this.done([{ type: 'failed', url: asked?.key ?? key, depth: entry.depth, reason: this.o.policy.failureReason(err), error: err }]);
  }

  private done(events: CrawlEvent[], answered = false): VisitDone {
    return { end: 'done', links: NOTHING, page: undefined, stop: false, answered, pending: { events } };
  }

  /**
   * external, then duplicate (where the classifier knows), then robots
   * (loading the host's rules when unknown), else follow. Undefined when a
   * stop ended the wait for the host's rules.
   */
  private async classify(url: HttpUrl): Promise<LinkAction | undefined> {
    const classifier = this.o.classifier;
    const now = classifier.now(url);
    if (now !== undefined) return now;
    try {
      return await classifier.classify(url);
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
    const classifier = this.o.classifier;
    // Most links are decided at once (robots.txt already known). The robots.txt of every host the page
    // leads to that is not known yet is fetched at once, before any link is judged: a page that links to
    // 500 new hosts waits for the slowest of them, not for their sum.
    const actions: Array<LinkAction | undefined> = new Array<LinkAction | undefined>(links.length);
    let unknown: string[] | undefined;
    for (let i = 0; i < links.length; i++) {
      const url = (links[i] as PageLink).url;
      if (url === undefined) continue;
      const action = classifier.now(url);
      if (action === undefined) (unknown ??= []).push(url.origin);
      else actions[i] = action;
    }
    if (unknown !== undefined) {
      try {
        await this.o.robots.learnAll(unknown, this.o.robotsConcurrency ?? 1, this.o.ahead === undefined ? undefined : linksOnRules(links, actions, depth + 1, this.o.signal, this.o.ahead));
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
      const action = actions[i] ?? classifier.now(url) ?? (await this.classify(url));
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
