/**
 * The private crawl: one process takes URLs from its own frontier in strict
 * breadth-first order. It queues the seeds robots.txt allows, opens the
 * ordered window (lookahead.ts) and runs the one loop (loop.ts) over its
 * turns (window-turns.ts). Both programs run it: the crawler (a SQLite
 * frontier, resumable) and KeywordHunter (in memory).
 *
 * Policy is the program's (PagePolicy); durability is the program's too:
 * `beforeComplete` runs once a visit is told and before its entry is completed.
 */
import type { LinkExtractor } from '../extract/types.js';
import type { FrontierStore, PageCapture } from '../frontier/private-store.js';
import type { Politeness } from '../frontier/politeness.js';
import type { RobotsRules } from '../robots/rules.js';
import type { PageSink } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import type { EarlierPages } from '../frontier/earlier-pages.js';
import type { CrawlEventSink } from './events.js';
import type { BodySpill } from '../sink/body-spill.js';
import { LinkClassifier } from './link-classifier.js';
import { linksOnRules, type AheadLinks } from './links-on-rules.js';
import { Lookahead } from './lookahead.js';
import { openSitemaps, runLoop } from './loop.js';
import { PagePath } from './page-path.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { RobotsGate } from './robots-gate.js';
import type { SitemapSettings } from './sitemap-links.js';
import { redirectLocation, type FetchOutcome } from './redirects.js';
import type { CompletingPage } from './turns.js';
import type { PagePolicy } from './page-policy.js';
import { WindowTurns } from './window-turns.js';
import { Requisites, type RequisiteSettings } from './requisites.js';
import { connectionsFor } from './host-slots.js';
import type { RequisiteStore } from '../frontier/requisite-journal.js';

export interface CrawlOptions {
  seed: HttpUrl;
  /**
   * Seeds after `seed` (crawler --seeds), queued after it at the same depth,
   * in order. Each is checked against robots.txt first, like `seed`: one
   * that is disallowed is told (`disallowed`) and not queued.
   */
  moreSeeds?: readonly HttpUrl[];
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
  /** Loads an origin's robots.txt rules; undefined ignores robots.txt. */
  loadRobots: ((origin: string) => Promise<RobotsRules>) | undefined;
  frontier: FrontierStore;
  policy: PagePolicy;
  /** Where kept pages go, published under IDs in order from the frontier's last one + 1. */
  sink: PageSink;
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
  /**
   * Awaited once a visit is told (its page published under its ID) and
   * before its entry is completed: a program whose frontier commits in
   * groups waits here for what must be in place first (page files written by
   * a thread, archive records). The same contract as a shared worker's.
   */
  beforeComplete?: (page: CompletingPage) => Promise<void>;
  /**
   * A refresh's earlier crawl (crawler --since): every page request, those
   * the window sends ahead included, carries the validators it saved for
   * the URL, and a 304 keeps its earlier copy (see PagePath).
   */
  earlier?: EarlierPages | undefined;
  /**
   * The crawl archive's record of the response a page was saved from, asked
   * after `beforeComplete` and kept with the page in the crawl state, for a
   * later refresh's revisit records to refer to. Absent: none is kept.
   */
  captureOf?: (url: HttpUrl) => PageCapture | undefined;
  /**
   * Where pages answered ahead of their turn wait beyond `aheadMemory` bytes
   * (a broad crawl fetches far ahead across hosts): e.g. a FileBodySpill in
   * the page directory. Absent: they wait in memory. Closed when the crawl ends.
   */
  spill?: BodySpill;
  /** Bytes of pages answered ahead kept in memory before the spill is used (default: held-answers.ts, DEFAULT_AHEAD_MEMORY). */
  aheadMemory?: number;
  /** Read the sitemaps of each seed's host once its page is saved, and queue their URLs after its links (crawler --sitemaps). */
  sitemaps?: SitemapSettings | undefined;
  /** --page-requisites: each kept page's requisites are fetched after it, for the archive (requisites.ts). */
  requisites?: RequisiteSettings | undefined;
  /** A private crawl's state of its requisites (a resumed crawl goes on with them), and when the archive holds one's records. */
  requisiteStore?: { store: RequisiteStore; recorded?: ((key: string) => Promise<void>) | undefined; captureOf?: ((key: string) => PageCapture | undefined) | undefined } | undefined;
}


export interface CrawlSummary {
  pages: number;
  stoppedBy: 'done' | 'program' | 'signal' | 'max-pages' | 'seed-disallowed';
}

/** Runs a crawl to its end. Resolves with a summary; rejects only on errors that stop it (the store's, the disk's). */
export class Crawl {
  private readonly o: CrawlOptions;
  private readonly robots: RobotsGate;
  private readonly classifier: LinkClassifier;
  private readonly path: PagePath;
  /** Aborted when the crawl stops (signal or program): ends every wait for a turn. */
  private readonly halt = new AbortController();
  private readonly fetchSignal: AbortSignal;
  /** The window, while the crawl runs (the page path fetches ahead through it). */
  private window: Lookahead | undefined;
  /** Where links whose host's robots.txt has come are fetched ahead while a page (or the seeds) waits for the rest; undefined at concurrency 1. */
  private readonly ahead: ((links: AheadLinks) => void) | undefined;
  /** --page-requisites: what the kept pages need to be displayed, fetched beside the crawl. */
  readonly requisites: Requisites | undefined;

  constructor(options: CrawlOptions) {
    this.o = options;
    this.fetchSignal = options.signal === undefined ? this.halt.signal : AbortSignal.any([options.signal, this.halt.signal]);
    const frontier = options.frontier;
    const load = options.loadRobots;
    this.ahead = (options.concurrency ?? 1) > 1 ? (links) => this.window?.fetchAhead(links) : undefined;
    this.robots = new RobotsGate({ politeness: options.politeness, enabled: load !== undefined, onEvent: options.onEvent, ...(load === undefined ? {} : { load }) });
    // The seen set is this process's frontier: a link is a duplicate as soon as it is judged.
    this.classifier = new LinkClassifier({ inScope: (url) => options.policy.inScope(url), robots: this.robots, isSeen: (key) => frontier.isSeen(key) });
    this.requisites =
      options.requisites === undefined
        ? undefined
        : new Requisites({
            fetcher: options.fetcher,
            robots: this.robots,
            resolve: (href, base) => options.policy.resolveLink(href, base),
            maxRedirects: options.maxRedirects,
            settings: options.requisites,
            onEvent: options.onEvent,
            signal: this.fetchSignal,
            concurrency: Math.max(1, options.concurrency ?? 1),
            store: options.requisiteStore?.store,
            recorded: options.requisiteStore?.recorded,
            captureOf: options.requisiteStore?.captureOf,
            earlier: options.earlier,
          });
    this.path = new PagePath({
      policy: options.policy,
      extractor: options.extractor,
      fetcher: options.fetcher,
      robots: this.robots,
      classifier: this.classifier,
      maxDepth: options.maxDepth,
      maxRedirects: options.maxRedirects,
      sink: options.sink,
      earlier: options.earlier,
      robotsConcurrency: Math.max(1, options.concurrency ?? 1),
      // A page waiting for its new hosts' robots.txt: each host's pages are fetched ahead once its rules are in.
      ...(this.ahead === undefined ? {} : { ahead: this.ahead }),
      onEvent: options.onEvent,
      signal: this.fetchSignal,
      requisites: this.requisites,
    });
  }

  async run(): Promise<CrawlSummary> {
    // Opened first: the seeds' pages may be fetched ahead while the robots.txt of other seeds' hosts come.
    const window = this.openWindow();
    this.window = window;
    try {
      return await this.crawl(window);
    } finally {
      this.halt.abort();
      this.window = undefined;
      window.close();
    }
  }

  /** The window: fetches ahead across hosts, hands out in frontier order. */
  private openWindow(): Lookahead {
    const { frontier } = this.o;
    const path = this.path;
    const perHost = Math.max(1, this.o.connectionsPerHost ?? 1);
    const politeness = this.o.politeness;
    const connections = connectionsFor(politeness, perHost);
    return new Lookahead({
      take: () => frontier.take(),
      resolve: (entry) => this.o.policy.resolveLink(entry.url, this.o.seed),
      fetch: (url) => path.request(url),
      concurrency: Math.max(1, this.o.concurrency ?? 1),
      // A second connection to one host only where the host asks for no interval.
      perHost: connections,
      // A host without an interval answers as fast as we ask: one response
      // waiting beyond those in flight keeps it busy while we work, and more
      // would only be memory. A host with an interval is slow enough as it is.
      maxAhead: (origin) => (politeness.intervalFor(origin) === 0 ? perHost + 1 : Infinity),
      budget: () => (this.o.maxPages === undefined ? Infinity : this.o.maxPages - path.answered),
      waitTime: (origin) => politeness.waitTime(origin),
      ...(this.o.spill === undefined ? {} : { spill: this.o.spill }),
      ...(this.o.aheadMemory === undefined ? {} : { memoryBudget: this.o.aheadMemory }),
      ...(this.o.fetchNext === true ? { fetchNext: (outcome: FetchOutcome) => outcome.response !== undefined && redirectLocation(outcome.response) === undefined } : {}),
      ...(this.o.scanAhead === true && (this.o.concurrency ?? 1) > 1 ? { discover: path.linksAhead.bind(path) } : {}),
      // Answers that wait for their turn have their pages written meanwhile (where the sink can): in their turn, a rename.
      stageEarly: path.stageEarly.bind(path),
    });
  }

  private async crawl(window: Lookahead): Promise<CrawlSummary> {
    const { seed, frontier } = this.o;
    const path = this.path;
    const seeds = [seed, ...(this.o.moreSeeds ?? [])];
    // The seeds are queued together, in the same unit as the first page (a durable frontier commits them
    // with it): when one of them is seen, a resumed crawl has queued them all already.
    const seeded = seeds.some((s) => frontier.isSeen(s.key));
    // A resumed crawl's requisites queued and not fetched before the stop are fetched beside its pages.
    this.requisites?.resume();
    if (seeded && frontier.pending === 0) {
      await this.requisites?.drain();
      return { pages: 0, stoppedBy: 'done' };
    }
    if (!seeded) {
      const queued = await this.seed(seeds);
      if (queued === undefined) return { pages: 0, stoppedBy: 'signal' };
      if (queued === 0) return { pages: 0, stoppedBy: 'seed-disallowed' };
    }
    const turns = new WindowTurns({ frontier, window, path, maxPages: this.o.maxPages, beforeComplete: this.o.beforeComplete, captureOf: this.o.captureOf });
    const sitemaps = this.o.sitemaps === undefined ? undefined : await openSitemaps(this.o.sitemaps, { fetcher: this.o.fetcher, robots: this.robots, classifier: this.classifier, resolve: (href, base) => this.o.policy.resolveLink(href, base), maxRedirects: this.o.maxRedirects, robotsConcurrency: Math.max(1, this.o.concurrency ?? 1), onEvent: this.o.onEvent, signal: this.fetchSignal });
    const end = await runLoop(turns, { path, onEvent: this.o.onEvent, signal: this.o.signal, seedDepth: this.o.seedDepth, maxDepth: this.o.maxDepth, outputRoom: this.o.outputRoom, sitemaps });
    // The last pages' requisites are fetched before the crawl ends (a stop cuts them short: their fetches abort).
    await this.requisites?.drain();
    return { pages: path.answered, stoppedBy: end };
  }

  /**
   * Queues the seeds robots.txt allows, in order, after loading the rules of
   * every seed's host at once (--concurrency at a time); meanwhile each
   * seed whose host's rules have come is fetched ahead (a seed file of 2,000
   * hosts: the first seed's page does not wait for the last robots.txt).
   * Resolves with how many were queued, or undefined when a stop came first.
   */
  private async seed(seeds: readonly HttpUrl[]): Promise<number | undefined> {
    const robots = this.robots;
    const depth = this.o.seedDepth;
    if (seeds.length > 1) {
      try {
        await robots.learnAll(
          seeds.map((s) => s.origin),
          Math.max(1, this.o.concurrency ?? 1),
          this.ahead === undefined ? undefined : linksOnRules(seeds.map((s) => ({ raw: s.href, url: s })), [], depth, this.fetchSignal, this.ahead),
        );
      } catch (err) {
        if (this.o.signal?.aborted) return undefined;
        throw err;
      }
    }
    let queued = 0;
    for (const s of seeds) {
      const allowed = await robots.allows(s);
      if (this.o.signal?.aborted) return undefined;
      if (!allowed) this.o.onEvent({ type: 'disallowed', url: s.key, depth });
      else if (this.o.frontier.add({ key: s.key, url: s.href, depth })) queued++;
    }
    return queued;
  }
}
