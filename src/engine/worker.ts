/**
 * A worker of a shared crawl: one process of any number that run one crawl
 * through one ClaimStore, with `lanes` claims at once. Each lane is the one
 * loop (loop.ts) over this worker's claims (claim-turns.ts); the store keeps
 * each URL to one worker, each host's timing on its row (claim-timing.ts),
 * each host's robots.txt (store-robots.ts) and the crawl's page budget.
 */
import type { LinkExtractor } from '../extract/types.js';
import type { ClaimCrawlConfig, ClaimOptions, ClaimStore } from '../frontier/claim-store.js';
import { systemClock, type Clock } from '../frontier/clock.js';
import type { Politeness } from '../frontier/politeness.js';
import type { PageSink } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import { ClaimGate } from './claim-gate.js';
import { ClaimTiming } from './claim-timing.js';
import { ClaimTurns } from './claim-turns.js';
import { KnownLinks } from './known-links.js';
import type { CrawlEventSink } from './events.js';
import { GroupPublish } from './group-publish.js';
import { LinkClassifier } from './link-classifier.js';
import { openSitemaps, runLoop, type LoopEnd } from './loop.js';
import { Requisites, type RequisiteSettings } from './requisites.js';
import { PagePath } from './page-path.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { RobotsGate } from './robots-gate.js';
import { StoreRobots, type StoredRobotsPolicy } from './store-robots.js';
import type { SitemapSettings } from './sitemap-links.js';
import type { CompletingPage } from './turns.js';
import type { PagePolicy } from './page-policy.js';

export interface WorkerOptions {
  store: ClaimStore;
  /** The crawl's seed (what queued URLs are resolved against). */
  seed: HttpUrl;
  config: ClaimCrawlConfig;
  claim: ClaimOptions;
  /** Claims this process works on at once. */
  lanes: number;
  extractor: LinkExtractor;
  fetcher: PoliteFetcher;
  politeness: Politeness;
  /** Where kept pages go: staged, then published under the ID the store gives. */
  sink: PageSink;
  policy: PagePolicy;
  /** How robots.txt answers are fetched, stored and read (used when the crawl obeys robots.txt). */
  robots: StoredRobotsPolicy;
  /** Receives the crawl's events; each claim's page events at once, when it is completed. */
  onEvent: CrawlEventSink;
  signal?: AbortSignal;
  /** The clock the politeness stamps request starts with (default: the system clock). */
  clock?: Clock;
  /** Asked before each claim: a promise while the output's reader is behind (the lane waits), else undefined. */
  outputRoom?: () => Promise<void> | undefined;
  /** Awaited once a visit's page has its ID and before it is published: what must be in place first (its archive records). The same contract as a private crawl's. */
  beforeComplete?: (page: CompletingPage) => Promise<void>;
  /** Read the sitemaps of the seed's host once its page is saved (crawler --sitemaps): the worker that completes it does. */
  sitemaps?: SitemapSettings | undefined;
  /** --page-requisites: each kept page's requisites, fetched in their hosts' turns for this worker's archive. */
  requisites?: RequisiteSettings | undefined;
  /** The most redirect hops of one chain, queued hops included (--max-redirects), and of a sitemap's or robots.txt's request. */
  maxRedirects: number;
}

export interface WorkerSummary {
  /** Pages this worker saved. */
  saved: number;
  /** True when the crawl is finished (nothing waiting, no claim out), false when this worker stopped early. */
  crawlDone: boolean;
  stoppedBy: 'done' | 'signal' | 'max-pages';
}

export class Worker {
  private readonly o: WorkerOptions;
  private readonly clock: Clock;
  private readonly halt = new AbortController();
  private readonly signal: AbortSignal;
  private readonly robotsGate: RobotsGate;
  private readonly classifier: LinkClassifier;
  private readonly path: PagePath;
  private readonly turns: ClaimTurns;
  /** --page-requisites: this worker's pages' requisites, fetched beside its lanes. */
  readonly requisites: Requisites | undefined;

  constructor(options: WorkerOptions) {
    this.o = options;
    const clock = (this.clock = options.clock ?? systemClock);
    const signal = (this.signal = options.signal === undefined ? this.halt.signal : AbortSignal.any([options.signal, this.halt.signal]));
    const gate = new ClaimGate(clock, signal, Math.max(1, options.lanes));
    const timing = new ClaimTiming(options.politeness);
    // Links to a host whose rules this worker does not know yet: learnt from the store (or fetched through it) when found.
    this.robotsGate = new RobotsGate({ politeness: options.politeness, enabled: options.config.robots, onEvent: options.onEvent, load: (origin) => robots.load(origin) });
    const robots = new StoreRobots({
      store: options.store,
      claim: options.claim,
      policy: options.robots,
      politeness: options.politeness,
      timing,
      clock,
      signal,
      onEvent: options.onEvent,
      gate: this.robotsGate,
    });
    // The store says which links were new when a claim is completed: no seen set here.
    this.classifier = new LinkClassifier({ inScope: (url) => options.policy.inScope(url), robots: this.robotsGate });
    this.requisites =
      options.requisites === undefined
        ? undefined
        : new Requisites({
            fetcher: options.fetcher,
            robots: this.robotsGate,
            resolve: (href, base) => options.policy.resolveLink(href, base),
            maxRedirects: options.maxRedirects,
            settings: options.requisites,
            onEvent: options.onEvent,
            signal,
            concurrency: Math.max(1, options.lanes),
            // Every worker keeps each host's interval: a requisite waits for its host's turn in the store.
            inTurn: (origin, request) => robots.inTurn(origin, request),
          });
    this.path = new PagePath({
      policy: options.policy,
      extractor: options.extractor,
      fetcher: options.fetcher,
      robots: this.robotsGate,
      classifier: this.classifier,
      maxDepth: options.config.maxDepth,
      maxRedirects: options.maxRedirects,
      sink: options.sink,
      robotsConcurrency: Math.max(1, options.lanes),
      onEvent: options.onEvent,
      signal,
      requisites: this.requisites,
    });
    this.turns = new ClaimTurns({
      store: options.store,
      claim: options.claim,
      gate,
      clock,
      signal,
      robots,
      timing,
      known: new KnownLinks(),
      publisher: new GroupPublish(options.store),
      resolve: (url) => options.policy.resolveLink(url, options.seed),
      onEvent: options.onEvent,
      beforeComplete: options.beforeComplete,
    });
  }

  async run(): Promise<WorkerSummary> {
    const { store, config } = this.o;
    await store.open(config);
    const o = this.o;
    const sitemaps = o.sitemaps === undefined ? undefined : await openSitemaps(o.sitemaps, { fetcher: o.fetcher, robots: this.robotsGate, classifier: this.classifier, resolve: (href, base) => o.policy.resolveLink(href, base), maxRedirects: o.maxRedirects, robotsConcurrency: Math.max(1, o.lanes), onEvent: o.onEvent, signal: this.signal });
    const loop = { path: this.path, onEvent: o.onEvent, signal: this.signal, seedDepth: config.seed.depth, maxDepth: config.maxDepth, outputRoom: o.outputRoom, sitemaps };
    let ends: LoopEnd[];
    try {
      ends = await Promise.all(
        Array.from({ length: Math.max(1, o.lanes) }, () =>
          runLoop(this.turns, loop).catch((err: unknown) => {
            this.halt.abort(); // one lane's failure (the store, the disk) stops the others
            throw err;
          }),
        ),
      );
      await this.turns.publishWaiting();
      // This worker's last pages' requisites are fetched before it ends (each worker archives its own).
      await this.requisites?.drain();
    } finally {
      this.halt.abort();
    }
    const stoppedBy = o.signal?.aborted === true ? 'signal' : ends.includes('max-pages') ? 'max-pages' : 'done';
    return { saved: this.turns.saved, crawlDone: stoppedBy === 'done', stoppedBy };
  }
}
