/**
 * The crawl loop both programs share: take the next URL breadth first, wait
 * for the host's turn, fetch it (following redirects hop by hop, each hop a
 * request start), hand the response to the program, and classify every link
 * of the page (external, duplicate, robots-disallowed, followed).
 *
 * Policy lives in the program's configuration (`CrawlProgram`): which links
 * are in scope, what to do with a response, when to stop. The engine only
 * reports what happened through `CrawlEvents`; formatting is the front end's.
 */
import { isCrawlerError, type CrawlerError } from '../errors.js';
import type { LinkExtractor } from '../extract/types.js';
import type { FrontierEntry, FrontierStore } from '../frontier/store.js';
import type { Politeness } from '../frontier/politeness.js';
import type { FetchResponse } from '../http/client.js';
import { ExchangeError } from '../http/connection.js';
import type { RobotsPolicy } from '../robots/policy.js';
import type { HttpUrl } from '../url/http-url.js';
import type { CrawlEventSink } from './events.js';
import { PageScan } from './page-scan.js';
import { LinkClassifier, type LinkAction } from './link-classifier.js';
import { Lookahead, type Ready } from './lookahead.js';
import { pageLinks, type PageLink } from './page-links.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { followRedirects, redirectLocation, type FetchOutcome } from './redirects.js';
import { RobotsGate } from './robots-gate.js';

export type { LinkAction };

/** A page as handed to the program. */
export interface FetchedPage {
  entry: FrontierEntry;
  /** The URL finally answered (after redirects). */
  url: HttpUrl;
  depth: number;
  response: FetchResponse;
  /** Set by the program when it saved the page: the frontier records the ID with the page's links, as one unit. */
  documentId?: number;
}

/** What the program wants after seeing a final response. */
export type PageVerdict = 'scan' | 'done' | 'stop';

/** How the visit of one frontier entry ended: `aborted` means it is to be redone (released); `retried`, queued again. */
type VisitEnd = 'done' | 'stop' | 'aborted' | 'retried';

type Scan = PageScan<FrontierEntry>;

/** What a visit gives the scheduler to complete the entry with. */
interface Visit {
  end: VisitEnd;
  scan?: Scan | undefined;
  documentId?: number | undefined;
}

/** The program's policy. */
export interface CrawlProgram {
  /** Resolves a link found on `page`; throws CrawlerError when it is not a crawlable URL. */
  resolveLink(href: string, page: HttpUrl): HttpUrl;
  /** False for a URL the crawl must never request (out of scope, not a page). */
  inScope(url: HttpUrl): boolean;
  /** Handles a final (non-redirect) response: save it, search it. */
  onResponse(page: FetchedPage): Promise<PageVerdict>;
  /**
   * Whether `onResponse` will answer 'scan' for this page, decided without
   * side effects (for scanning ahead; see CrawlOptions.scanAhead). Absent: never.
   */
  willScan?(page: FetchedPage): boolean;
  /** Handles a URL that could not be fetched at all (no status line). */
  onFailure(entry: FrontierEntry, url: HttpUrl, error: CrawlerError): Promise<void> | void;
  /** Robots.txt disallows the seed. */
  onSeedDisallowed(seed: HttpUrl): void;
  /**
   * Whether a try that ended this way is made again later in the crawl (the
   * entry is queued again at its depth, and nothing of this try reaches the
   * program). Absent: never.
   */
  retry?(entry: FrontierEntry, outcome: FetchOutcome): boolean;
}

export interface CrawlOptions {
  seed: HttpUrl;
  /** The seed's depth: 0 for crawler, 1 for KeywordHunter. */
  seedDepth: number;
  /** Pages at this depth are fetched but their links are not followed. */
  maxDepth: number;
  maxRedirects: number;
  /** Stop after this many final responses (undefined: no cap). */
  maxPages: number | undefined;
  extractor: LinkExtractor;
  fetcher: PoliteFetcher;
  politeness: Politeness;
  robots: RobotsPolicy | undefined;
  frontier: FrontierStore;
  program: CrawlProgram;
  /** Receives the crawl's events, in the order they happen. */
  onEvent: CrawlEventSink;
  signal?: AbortSignal;
  /** Most first requests in flight at once, to different hosts (default 1: sequential). */
  concurrency?: number;
  /** Most requests in flight to one host whose interval is 0 (default 1). */
  connectionsPerHost?: number;
  /**
   * Scan pages fetched ahead as they arrive, and fetch ahead the links the
   * crawl will follow when it reaches them in order (see Lookahead). The
   * output is unchanged; only the order of requests at different hosts is.
   */
  scanAhead?: boolean;
  /**
   * With concurrency 1: request the next queued entry as soon as a page's
   * final answer has arrived, so the server works while the page is saved
   * and scanned. Still one request at a time: a redirect is followed before
   * anything else is requested. The program's choice, since the crawl then
   * asks for a page it may never hand out (a program that stops at a page
   * must not). Output is unchanged, and so is the order of requests when
   * scanning a page asks nothing of the network (robots.txt rules known).
   */
  fetchNext?: boolean;
  /**
   * Asked before each page is taken: a promise while the output's reader is
   * behind (the crawl waits for it, so a stalled reader holds the crawl back
   * instead of filling memory), else undefined.
   */
  outputRoom?: () => Promise<void> | undefined;
}

export interface CrawlSummary {
  pages: number;
  stoppedBy: 'done' | 'program' | 'signal' | 'max-pages' | 'seed-disallowed';
}

/** Runs a crawl to its end. Resolves with a summary; rejects only on errors that stop it (the program's). */
export class Crawl {
  private readonly o: CrawlOptions;
  private pages = 0;
  /** Aborted when the crawl stops (signal or program): ends every wait for a turn. */
  private readonly halt = new AbortController();
  private readonly fetchSignal: AbortSignal;
  private window: Lookahead | undefined;
  private readonly robots: RobotsGate;
  private readonly classifier: LinkClassifier;

  constructor(options: CrawlOptions) {
    this.o = options;
    this.fetchSignal = options.signal === undefined ? this.halt.signal : AbortSignal.any([options.signal, this.halt.signal]);
    const policy = options.robots;
    this.robots = new RobotsGate({
      politeness: options.politeness,
      enabled: policy !== undefined,
      onEvent: options.onEvent,
      ...(policy === undefined ? {} : { load: (origin) => policy.rulesFor(origin) }),
    });
    this.classifier = new LinkClassifier({ inScope: (url) => options.program.inScope(url), isSeen: (key) => options.frontier.isSeen(key), robots: this.robots });
  }

  async run(): Promise<CrawlSummary> {
    const { seed, frontier } = this.o;
    if (frontier.isSeen(seed.key) && frontier.pending === 0) return { pages: 0, stoppedBy: 'done' };
    if (!frontier.isSeen(seed.key)) {
      const allowed = await this.robots.allows(seed);
      if (this.o.signal?.aborted) return { pages: 0, stoppedBy: 'signal' };
      if (!allowed) {
        this.o.program.onSeedDisallowed(seed);
        return { pages: 0, stoppedBy: 'seed-disallowed' };
      }
      frontier.add({ key: seed.key, url: seed.href, depth: this.o.seedDepth });
    }
    const perHost = Math.max(1, this.o.connectionsPerHost ?? 1);
    const window = new Lookahead({
      take: () => frontier.take(),
      resolve: (entry) => this.o.program.resolveLink(entry.url, seed),
      fetch: (url) => this.o.fetcher.fetch(url, this.fetchSignal),
      concurrency: Math.max(1, this.o.concurrency ?? 1),
      // A second connection to one host only where the host asks for no interval.
      perHost: (origin) => (this.o.politeness.intervalFor(origin) === 0 ? perHost : 1),
      // A host without an interval answers as fast as we ask: one response
      // waiting beyond those in flight keeps it busy while we work, and more
      // would only be memory. A host with an interval is slow enough as it is.
      maxAhead: (origin) => (this.o.politeness.intervalFor(origin) === 0 ? perHost + 1 : Infinity),
      budget: () => (this.o.maxPages === undefined ? Infinity : this.o.maxPages - this.pages),
      ...(this.o.fetchNext === true ? { fetchNext: (outcome: FetchOutcome) => outcome.response !== undefined && redirectLocation(outcome.response) === undefined } : {}),
      ...(this.o.scanAhead === true && (this.o.concurrency ?? 1) > 1 ? { discover: (entry, url, outcome) => this.linksAhead(entry, url, outcome) } : {}),
    });
    this.window = window;
    try {
      for (;;) {
        if (this.o.signal?.aborted) return { pages: this.pages, stoppedBy: 'signal' };
        if (this.o.maxPages !== undefined && this.pages >= this.o.maxPages) return { pages: this.pages, stoppedBy: 'max-pages' };
        const room = this.o.outputRoom?.();
        if (room !== undefined) {
          await room;
          continue; // the stop checks again: the wait may have been long
        }
        const ready = await window.next();
        if (ready === undefined) return { pages: this.pages, stoppedBy: 'done' };
        // Let the window's next request reach the socket before this page is
        // saved and scanned (synchronous work): the server then works while we do.
        if (window.prefetching) await new Promise<void>((resolve) => setImmediate(resolve));
        const { end, scan, documentId } = await this.visit(ready);
        if (end === 'aborted') {
          frontier.release(ready.entry);
          return { pages: this.pages, stoppedBy: 'signal' };
        }
        const added = frontier.complete(ready.entry, end === 'retried' ? { links: [], retry: true } : { links: scan?.links ?? [], documentId });
        if (scan !== undefined) for (const e of scan.told(added)) this.o.onEvent(e);
        if (end === 'stop') return { pages: this.pages, stoppedBy: 'program' };
      }
    } finally {
      this.halt.abort();
    }
  }

  /** Fetches one frontier entry, following redirects hop by hop in the same step, and scans it. */
  private async visit(ready: Ready): Promise<Visit> {
    const { program, onEvent } = this.o;
    const entry = ready.entry;
    if (ready.url === undefined) {
      await program.onFailure(entry, this.o.seed, ready.outcome.error as CrawlerError);
      return { end: 'done' };
    }
    let aborted = false;
    const end = await followRedirects(ready.url, {
      // Hop 0 was started by the window; a later hop takes over a request the window started ahead, if any.
      fetch: async (url, hop) => (hop === 0 ? ready.outcome : await (this.window?.claim(url) ?? this.o.fetcher.outcome(url, this.fetchSignal))),
      maxRedirects: this.o.maxRedirects,
      resolve: (href, base) => program.resolveLink(href, base),
      onOutcome: (url, outcome) => {
        const response = outcome.response;
        if (response !== undefined) onEvent({ type: 'response', url, depth: entry.depth, status: response.status, notes: response.notes });
      },
      // A redirect's target is handled like a link of the page, at the same depth.
      follow: async (step, from) => {
        if (step.kind === 'invalid') {
          onEvent({ type: 'redirect', from, depth: entry.depth, target: undefined, raw: step.raw, action: 'invalid', error: step.error });
          return false;
        }
        if (step.kind === 'limit') {
          onEvent({ type: 'redirect', from, depth: entry.depth, target: step.target, raw: step.raw, action: 'invalid', error: step.error });
          await program.onFailure(entry, step.target, step.error);
          return false;
        }
        const action = await this.classifier.classify(step.target);
        if (this.o.signal?.aborted) {
          aborted = true;
          return false;
        }
        onEvent({ type: 'redirect', from, depth: entry.depth, target: step.target, raw: step.raw, action });
        if (action !== 'follow') return false;
        this.o.frontier.markSeen(step.target.key);
        return true;
      },
    });
    if (aborted) return { end: 'aborted' };
    const { url, outcome } = end;
    const response = outcome.response;
    if (response === undefined) {
      const err = outcome.error;
      if (!isCrawlerError(err)) throw err;
      if (err.code === 'ERR_ABORTED') return { end: 'aborted' };
      // Status 0 means no status line arrived; a response that failed after its head keeps its status.
      onEvent({ type: 'response', url, depth: entry.depth, status: err instanceof ExchangeError ? (err.status ?? 0) : 0, error: err });
      if (program.retry?.(entry, outcome) === true) return { end: 'retried' };
      await program.onFailure(entry, url, err);
      return { end: 'done' };
    }
    if (end.step?.kind !== 'final') return { end: 'done' };
    if (program.retry?.(entry, outcome) === true) return { end: 'retried' };
    this.pages++;
    const page: FetchedPage = { entry, url, depth: entry.depth, response };
    const verdict = await program.onResponse(page);
    let scan: Scan | undefined;
    if (verdict === 'scan' && entry.depth < this.o.maxDepth) {
      scan = await this.scan(url, entry.depth, response.body);
      if (scan === undefined) return { end: 'aborted' };
    }
    return { end: verdict === 'stop' ? 'stop' : 'done', scan, documentId: page.documentId };
  }

  /**
   * Extracts, resolves and classifies the links of a page, in document
   * order: those to queue, and an event for each. Undefined when a stop
   * signal cut it short (robots.txt answers fetched after the signal cannot
   * be trusted, so the page is redone).
   */
  private async scan(page: HttpUrl, depth: number, body: Buffer): Promise<Scan | undefined> {
    const scan: Scan = new PageScan(page, depth);
    for (const { raw, url, error } of this.links(page, body)) {
      if (url === undefined) {
        scan.push({ type: 'link', depth, raw, url: undefined, action: 'invalid', error }, undefined);
        continue;
      }
      // Most links are decided without waiting (robots.txt already known):
      // no promise per link then.
      const action = this.classifier.now(url) ?? (await this.classifier.classify(url));
      if (this.o.signal?.aborted) return undefined;
      scan.push({ type: 'link', depth, raw, url, action }, { key: url.key, url: url.href, depth: depth + 1 });
    }
    return scan;
  }

  /** The links of a page in document order, resolved against its base. */
  private links(page: HttpUrl, body: Buffer): Generator<PageLink> {
    return pageLinks(this.o.extractor.extract(body), page, (href, base) => this.o.program.resolveLink(href, base));
  }

  /**
   * Scanning ahead: the links of a page answered out of order that the scan
   * in order will certainly follow (the page will be scanned, and each link
   * is in scope, not seen, and allowed by robots.txt rules already known).
   */
  private linksAhead(entry: FrontierEntry, url: HttpUrl, outcome: FetchOutcome): Array<{ entry: FrontierEntry; url: HttpUrl }> {
    const response = outcome.response;
    if (response === undefined || entry.depth >= this.o.maxDepth || redirectLocation(response) !== undefined) return [];
    if (this.o.program.willScan?.({ entry, url, depth: entry.depth, response }) !== true) return [];
    const out: Array<{ entry: FrontierEntry; url: HttpUrl }> = [];
    for (const { url: link } of this.links(url, response.body)) {
      if (link !== undefined && this.classifier.now(link) === 'follow') out.push({ entry: { key: link.key, url: link.href, depth: entry.depth + 1 }, url: link });
    }
    return out;
  }
}
