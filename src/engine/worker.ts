/**
 * The shared crawl's scheduler: one worker of a crawl that any number of
 * workers (processes, each with `lanes` claims at once) run through one
 * ClaimStore. Each lane claims what the store says may be fetched now (the
 * host's delay has passed and no other worker holds the host), has the page
 * path visit it, and completes the claim with what the visit gives. The
 * store keeps each URL to one worker, each host's timing on its row
 * (claim-timing.ts) and each host's robots.txt (store-robots.ts).
 *
 * A kept page is staged under a temporary name and published under its
 * document ID once the store has recorded it (IDs come from the store, so
 * they are 1..N across workers). A claim whose lease ran out (this worker
 * was too slow, and another took the URL) is completed with nothing: its
 * staged page is dropped, so every page is saved once. A redirect's target
 * is queued at the same depth, not followed (a lane holds one host's turn).
 */
import type { LinkExtractor } from '../extract/types.js';
import type { Claim, ClaimCrawlConfig, ClaimOptions, ClaimStore } from '../frontier/claim-store.js';
import { systemClock, type Clock } from '../frontier/clock.js';
import type { FrontierEntry } from '../frontier/store.js';
import type { Politeness } from '../frontier/politeness.js';
import type { PageSink } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import { ClaimGate } from './claim-gate.js';
import { ClaimTiming } from './claim-timing.js';
import { KnownLinks } from './known-links.js';
import type { CrawlEventSink } from './events.js';
import { GroupPublish } from './group-publish.js';
import { PagePath } from './page-path.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { RobotsGate } from './robots-gate.js';
import { StoreRobots, type StoredRobotsPolicy } from './store-robots.js';
import type { SitemapLinks, SitemapSettings } from './sitemap-links.js';
import type { PagePolicy } from './visit-types.js';

export interface WorkerOptions {
  store: ClaimStore;
  /** The crawl's seed (what queued URLs are resolved against). */
  seed: HttpUrl;
  config: ClaimCrawlConfig;
  claim: ClaimOptions;
  /** Claims this process works on at once. */
  lanes: number;
  /** Stop claiming after this many final responses (undefined: no cap). */
  maxPages: number | undefined;
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
  /** Awaited before a kept page's claim is completed, with its URL: what must be in place first (its archive records). */
  beforeComplete?: (url: HttpUrl) => Promise<void>;
  /** Read the sitemaps of the seed's host once its page is saved (crawler --sitemaps): the worker that completes it does. */
  sitemaps?: SitemapSettings | undefined;
  /** The most redirect hops a sitemap request follows. */
  maxRedirects?: number;
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
  private readonly path: PagePath;
  private readonly timing: ClaimTiming;
  private readonly robots: StoreRobots;
  private readonly gate: ClaimGate;
  private sitemaps: SitemapLinks | undefined;
  private saved = 0;
  /** The links the store is known to have seen: a completion leaves them out. */
  private readonly known = new KnownLinks();
  /** Saved pages whose files are in place, waiting to be published with the next claim. */
  private readonly unpublished: Claim[] = [];
  /** Saved pages published on their own while the lanes wait in line: in groups. */
  private readonly publisher: GroupPublish;

  constructor(options: WorkerOptions) {
    this.o = options;
    this.clock = options.clock ?? systemClock;
    this.signal = options.signal === undefined ? this.halt.signal : AbortSignal.any([options.signal, this.halt.signal]);
    this.gate = new ClaimGate(this.clock, this.signal, Math.max(1, options.lanes));
    this.publisher = new GroupPublish(options.store);
    this.timing = new ClaimTiming(options.politeness);
    // Links to a host whose rules this worker does not know yet: learnt from the store (or fetched through it) when found.
    const gate = new RobotsGate({ politeness: options.politeness, enabled: options.config.robots, onEvent: options.onEvent, load: (origin) => this.robots.load(origin) });
    this.robots = new StoreRobots({
      store: options.store,
      claim: options.claim,
      policy: options.robots,
      politeness: options.politeness,
      timing: this.timing,
      delayMs: options.config.delayMs,
      clock: this.clock,
      signal: this.signal,
      onEvent: options.onEvent,
      gate,
    });
    this.path = new PagePath({
      seed: options.seed,
      policy: options.policy,
      extractor: options.extractor,
      fetcher: options.fetcher,
      robots: gate,
      maxDepth: options.config.maxDepth,
      maxRedirects: 0,
      redirects: 'queue',
      sink: options.sink,
      robotsConcurrency: Math.max(1, options.lanes),
      onEvent: options.onEvent,
      signal: this.signal,
    });
  }

  async run(): Promise<WorkerSummary> {
    const { store, config } = this.o;
    await store.open(config);
    if (this.o.sitemaps !== undefined) this.sitemaps = await this.path.sitemapLinks(this.o.sitemaps, this.o.maxRedirects ?? 5);
    const ends: Array<WorkerSummary['stoppedBy']> = [];
    try {
      await Promise.all(Array.from({ length: Math.max(1, this.o.lanes) }, () => this.lane().then((end) => void ends.push(end))));
      await this.publishWaiting();
    } finally {
      this.halt.abort();
    }
    const stoppedBy = this.o.signal?.aborted === true ? 'signal' : ends.includes('max-pages') ? 'max-pages' : 'done';
    return { saved: this.saved, crawlDone: stoppedBy === 'done', stoppedBy };
  }

  /**
   * One claim at a time, until the crawl is done or this worker stops. A
   * saved page is published with the lane's next claim when the lane may
   * ask at once (with any other lane's waiting for it: one call to the
   * store), else on its own at once.
   * A lane that stops publishes what waits on its own.
   */
  private async lane(): Promise<WorkerSummary['stoppedBy']> {
    const stop = async (why: WorkerSummary['stoppedBy']): Promise<WorkerSummary['stoppedBy']> => {
      await this.publishWaiting();
      return why;
    };
    try {
      for (;;) {
        if (this.signal.aborted) return await stop('signal');
        if (this.o.maxPages !== undefined && this.path.answered >= this.o.maxPages) return await stop('max-pages');
        const room = this.o.outputRoom?.();
        if (room !== undefined) {
          await room;
          continue;
        }
        // Read just before the ask that brings the claim (the store's clock is mapped from it): not before
        // the lane's turn in line, which would put the request's start, and the host's next turn, later.
        let before = 0;
        const r = await this.gate.claim(() => {
          before = this.clock.now();
          return this.o.store.claim(this.o.claim, this.unpublished.splice(0));
        });
        if ('done' in r) return 'done';
        if ('waitMs' in r) {
          await this.clock.sleep(r.waitMs, this.signal);
          continue;
        }
        const claim = r.claim;
        if (this.signal.aborted) {
          await this.o.store.release(claim);
          return 'signal';
        }
        if (claim.kind === 'robots') await this.robots.claimed(claim, before);
        else {
          const saved = await this.page(claim, before);
          // A page saved and not yet published is the window in which this worker's death makes another
          // worker fetch and save it again (its lease runs out): it rides on this lane's next claim when
          // the lane may ask at once, else it is published now, with those other lanes saved while this
          // worker's last such call was out (GroupPublish).
          if (saved !== undefined) {
            if (this.gate.busy) await this.publisher.publish(saved);
            else this.unpublished.push(saved);
          }
        }
      }
    } catch (err) {
      this.halt.abort(); // one lane's failure (the store, the disk) stops the others
      throw err;
    }
  }

  /** Publishes on their own the saved pages still waiting to ride on a claim. */
  private async publishWaiting(): Promise<void> {
    const rest = this.unpublished.splice(0);
    if (rest.length > 0) await this.o.store.published(rest);
  }

  /** Visits a claimed page and completes the claim; resolves with the claim when its page was saved (to be published: its file is in place). */
  private async page(claim: Claim, before: number): Promise<Claim | undefined> {
    const { store } = this.o;
    const path = this.path;
    // The host's rules and timing as its row in the store has them (another worker may have fetched them).
    this.robots.learnFrom(claim);
    this.timing.take(claim);
    const entry: FrontierEntry = claim.attempts === 0 ? { key: claim.key, url: claim.url, depth: claim.depth } : { key: claim.key, url: claim.url, depth: claim.depth, attempts: claim.attempts };
    const visit = await path.visit(entry);
    if (visit.end === 'aborted') {
      // A request already sent still counts for the host's next turn.
      await store.release(claim, this.timing.startedAt(claim, before));
      return undefined;
    }
    const done = visit.end === 'done' ? visit : undefined;
    const page = done?.page;
    // Only the links the store may not have (see KnownLinks); the others were not added, as it would say.
    const unknown = this.known.unknownOf(done?.links ?? []);
    let result;
    try {
      if (page !== undefined && done?.url !== undefined) await this.o.beforeComplete?.(done.url);
      result = await store.complete(claim, {
        startedAt: this.timing.startedAt(claim, before),
        links: unknown.links,
        saved: page !== undefined,
        host: this.timing.after(claim, before),
        ...(done === undefined ? { retry: true } : {}),
      });
    } catch (err) {
      page?.discard(); // the store failed (or the archive): no page file is left without its record
      throw err;
    }
    if (!result.ok || (page !== undefined && result.documentId === undefined)) {
      path.lost(entry, visit);
      return undefined;
    }
    if (done === undefined) return undefined; // queued again; only its response was told
    this.known.learn(unknown.links);
    const added = unknown.spread(result.added);
    // Until the store hears the file is in place the claim is out: dying before the rename loses nothing.
    if (page !== undefined) {
      await page.publish(result.documentId as number);
      this.saved++;
    }
    path.told(done, { documentId: result.documentId, added });
    if (result.added.includes(true)) this.gate.nudge(); // a new host may be ready now
    // The seed's page is in: its host's sitemaps give links at depth 1 (after the seed's own), through the store.
    if (this.sitemaps !== undefined && page !== undefined && done.url !== undefined && claim.depth === 0 && claim.depth < this.o.config.maxDepth) {
      await this.sitemaps.queueLinks(done.url.origin, 1, (links) => store.add(links));
    }
    return page === undefined ? undefined : claim;
  }
}
