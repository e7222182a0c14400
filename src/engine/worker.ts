/**
 * One worker of a shared crawl: claims what the shared frontier says may be
 * fetched now, fetches it, saves and scans it, and completes the claim with
 * the page's links. Any number of workers (processes, each with `lanes`
 * claims at once) run one crawl through one ClaimStore; the store keeps each
 * URL to one worker and each host's delay across all of them.
 *
 * A saved page is written under a temporary name first and renamed to its
 * document ID once the store has recorded it (the ID comes from the store,
 * so IDs are 1..N across workers). A claim whose lease ran out (this worker
 * was too slow, and another took the URL) is completed with nothing: its
 * staged page is dropped, so every page is saved once.
 *
 * Policy (scope, what is saved, robots.txt failures) is the program's; the
 * worker tells what happened to each claim through `onEvent`, in the crawl's
 * one event vocabulary (a page's events come together, once its claim is
 * completed: only then does the store say which links were new).
 */
import { CrawlerError, isCrawlerError } from '../errors.js';
import type { LinkExtractor } from '../extract/types.js';
import { storeTime, type Claim, type HostTiming, type ClaimCrawlConfig, type ClaimEntry, type ClaimOptions, type ClaimStore, type Completion, type StoredRobots } from '../frontier/claim-store.js';
import { systemClock, type Clock } from '../frontier/clock.js';
import type { Politeness } from '../frontier/politeness.js';
import type { FetchResponse } from '../http/client.js';
import { encodeTarget } from '../url/request-target.js';
import type { RobotsFetcher } from '../robots/policy.js';
import type { RobotsRules } from '../robots/rules.js';
import type { TsePageDirectory } from '../sink/tse-pagedir.js';
import type { HttpUrl } from '../url/http-url.js';
import type { CrawlEvent, CrawlEventSink } from './events.js';
import { LinkClassifier, type LinkAction } from './link-classifier.js';
import { pageLinks } from './page-links.js';
import { PageScan } from './page-scan.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { redirectStep, type FetchOutcome, type RedirectStep } from './redirects.js';
import { RobotsGate } from './robots-gate.js';

/** The program's policy. */
export interface WorkerProgram {
  /** Resolves a link found on `base`; throws CrawlerError when it is not a crawlable URL. */
  resolveLink(href: string, base: HttpUrl): HttpUrl;
  /** False for a URL the crawl must never request. */
  inScope(url: HttpUrl): boolean;
  /** Why a final response is not saved (a status, a type), or undefined to save it. */
  rejectReason(response: FetchResponse): string | undefined;
  /** The reason given for a URL that could not be fetched (the same words as a private crawl's). */
  failureReason(error: CrawlerError): string;
  /**
   * Whether a try that ended this way is made again later in the crawl (the
   * URL waits again at its depth, and nothing of this try but its response
   * event reaches the output), given the tries already given up. Absent: never.
   */
  retry?(attempts: number, outcome: FetchOutcome): boolean;
  /** Fetches a robots.txt URL (redirects followed politely). */
  robotsFetch: RobotsFetcher;
  /** The rules a stored robots.txt answer gives (the failure policy applied). */
  robotsRules(answer: StoredRobots): RobotsRules;
  /** Turns a fetched robots.txt body into what is stored (decoded, capped). */
  storedRobots(status: number, body: Buffer): StoredRobots;
}

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
  sink: TsePageDirectory;
  program: WorkerProgram;
  /** Receives the crawl's events; each claim's at once, when it is completed. */
  onEvent: CrawlEventSink;
  signal?: AbortSignal;
  /** The clock the politeness stamps request starts with (default: the system clock). */
  clock?: Clock;
  /** Asked before each claim: a promise while the output's reader is behind (the lane waits), else undefined. */
  outputRoom?: () => Promise<void> | undefined;
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
  /** Rules learnt from the store's host rows (or fetched in a robots claim); Crawl-delay is in the rows' delay. */
  private readonly gate: RobotsGate;
  /** Scope, then robots where known; duplicates are the store's to say, on completion. */
  private readonly classifier: LinkClassifier;
  private readonly halt = new AbortController();
  /** Hosts whose robots.txt this worker is learning now (lanes share one load). */
  private readonly loading = new Map<string, Promise<RobotsRules>>();
  private readonly signal: AbortSignal;
  private responses = 0;
  private saved = 0;

  constructor(options: WorkerOptions) {
    this.o = options;
    this.clock = options.clock ?? systemClock;
    this.signal = options.signal === undefined ? this.halt.signal : AbortSignal.any([options.signal, this.halt.signal]);
    this.gate = new RobotsGate({
      politeness: options.politeness,
      enabled: options.config.robots,
      onEvent: options.onEvent,
      // Links to a host whose rules this worker does not know yet: learnt from the store (or fetched through it) when found.
      load: (origin) => this.loadRobots(origin),
    });
    this.classifier = new LinkClassifier({ inScope: (url) => options.program.inScope(url), robots: this.gate });
  }

  async run(): Promise<WorkerSummary> {
    const { store, config } = this.o;
    await store.open(config);
    const ends: Array<WorkerSummary['stoppedBy']> = [];
    try {
      await Promise.all(Array.from({ length: Math.max(1, this.o.lanes) }, () => this.lane().then((end) => void ends.push(end))));
    } finally {
      this.halt.abort();
    }
    const stoppedBy = this.o.signal?.aborted === true ? 'signal' : ends.includes('max-pages') ? 'max-pages' : 'done';
    return { saved: this.saved, crawlDone: stoppedBy === 'done', stoppedBy };
  }

  /**
   * One claim at a time, until the crawl is done or this worker stops. A
   * saved page is published with the lane's next claim (one call to the
   * store, not two), or on its own when the lane stops.
   */
  private async lane(): Promise<WorkerSummary['stoppedBy']> {
    let published: Claim | undefined;
    const stop = async (why: WorkerSummary['stoppedBy']): Promise<WorkerSummary['stoppedBy']> => {
      if (published !== undefined) await this.o.store.published(published);
      return why;
    };
    try {
      for (;;) {
        if (this.signal.aborted) return await stop('signal');
        if (this.o.maxPages !== undefined && this.responses >= this.o.maxPages) return await stop('max-pages');
        const room = this.o.outputRoom?.();
        if (room !== undefined) {
          await room;
          continue;
        }
        const before = this.clock.now();
        const r = await this.o.store.claim(this.o.claim, published);
        published = undefined;
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
        if (claim.kind === 'robots') await this.robots(claim, before);
        else published = await this.page(claim, before);
      }
    } catch (err) {
      this.halt.abort(); // one lane's failure (the store, the disk) stops the others
      throw err;
    }
  }

  /** The request start of the claim's last request, in the store's time. */
  private startedAt(claim: Claim, before: number): number | undefined {
    const at = this.o.politeness.lastStartOf(claim.origin);
    return at === undefined || at < before ? undefined : storeTime(claim, before, at);
  }

  /** A robots.txt claim from the queue: fetched, and its rules learnt. */
  private async robots(claim: Claim, before: number): Promise<void> {
    const learnt = await this.fetchRobots(claim, before);
    if (learnt !== undefined) this.gate.learn(claim.origin, learnt.rules, learnt.delayMs);
  }

  /** Fetches a claimed robots.txt and completes the claim with its answer; undefined when a stop came first (the claim is given back). */
  private async fetchRobots(claim: Claim, before: number): Promise<{ rules: RobotsRules; delayMs: number } | undefined> {
    const { program, config } = this.o;
    this.takeHost(claim);
    const result = await program.robotsFetch(claim.url, claim.origin);
    if (this.signal.aborted && !('status' in result)) {
      await this.o.store.release(claim, this.startedAt(claim, before)); // stopped before (or while) asking: not an answer
      return undefined;
    }
    const answer = 'status' in result ? program.storedRobots(result.status, result.body) : { status: 0, body: '' };
    const rules = program.robotsRules(answer);
    const delayMs = Math.max(config.delayMs, (rules.crawlDelay ?? 0) * 1000);
    this.o.politeness.setHostDelay(claim.origin, delayMs);
    await this.o.store.complete(claim, { startedAt: this.startedAt(claim, before), links: [], saved: false, robots: { answer, delayMs }, host: this.hostTiming(claim, before) });
    this.o.onEvent({ type: 'robots-txt', url: claim.url, answer });
    return { rules, delayMs };
  }

  /**
   * The rules of a host a link leads to, when this worker does not know
   * them: from the host's row, or fetched now through a robots.txt claim
   * (waiting while another worker fetches them), so that the link is judged
   * when it is found, as a private crawl judges it. One load per host at a time.
   */
  private loadRobots(origin: string): Promise<RobotsRules> {
    let loading = this.loading.get(origin);
    if (loading === undefined) {
      loading = this.robotsFromStore(origin).finally(() => this.loading.delete(origin));
      this.loading.set(origin, loading);
    }
    return loading;
  }

  private async robotsFromStore(origin: string): Promise<RobotsRules> {
    for (;;) {
      if (this.signal.aborted) throw new CrawlerError('ERR_ABORTED', `stopped before learning the robots.txt of ${origin}`);
      const before = this.clock.now();
      // Depth 0: a robots.txt fetched for a link is no URL of the breadth-first order.
      const r = await this.o.store.robotsFor(origin, 0, this.o.claim);
      if ('answer' in r) return this.o.program.robotsRules(r.answer);
      if ('waitMs' in r) {
        await this.clock.sleep(r.waitMs, this.signal);
        continue;
      }
      const learnt = await this.fetchRobots(r.claim, before);
      if (learnt !== undefined) return learnt.rules;
    }
  }

  /** Fetches, saves and scans a claimed page; resolves with the claim when its page was saved (to be published: its file is in place). */
  private async page(claim: Claim, before: number): Promise<Claim | undefined> {
    const { program, store, onEvent } = this.o;
    const depth = claim.depth;
    const nothing = (over: Partial<Completion> = {}): Completion => ({ startedAt: this.startedAt(claim, before), links: [], saved: false, host: this.hostTiming(claim, before), ...over });
    let url: HttpUrl;
    try {
      url = program.resolveLink(claim.url, this.o.seed);
    } catch (err) {
      if (!isCrawlerError(err)) throw err;
      await this.o.store.complete(claim, nothing());
      onEvent({ type: 'failed', url: claim.key, depth, reason: program.failureReason(err) });
      return;
    }
    // The host's rules as its row in the store has them (another worker may have fetched them).
    if (claim.robots !== undefined && this.gate.rulesOf(claim.origin) === undefined) this.gate.learn(claim.origin, program.robotsRules(claim.robots), claim.delayMs);
    if (this.gate.allowsNow(url) === false) {
      await this.o.store.complete(claim, nothing());
      onEvent({ type: 'disallowed', url: url.key, depth });
      return;
    }
    this.takeHost(claim);
    let response: FetchResponse;
    try {
      response = await this.o.fetcher.fetch(url, this.signal);
    } catch (err) {
      if (!isCrawlerError(err)) throw err;
      if (err.code === 'ERR_ABORTED') {
        await store.release(claim, this.startedAt(claim, before));
        return;
      }
      if (program.retry?.(claim.attempts, { error: err }) === true) {
        await this.retryLater(claim, nothing({ retry: true }), { type: 'response', url, depth, status: 0, error: err });
        return;
      }
      await this.o.store.complete(claim, nothing());
      onEvent({ type: 'failed', url: url.key, depth, reason: program.failureReason(err) });
      return;
    }
    const answered: CrawlEvent = { type: 'response', url, depth, status: response.status, notes: response.notes };
    // A shared crawl follows no redirect in the same step: the target is queued (hop limit: the seen set ends loops).
    const step = redirectStep(response, url, 0, Infinity, program.resolveLink);
    if (step.kind === 'final' && program.retry?.(claim.attempts, { response }) === true) {
      await this.retryLater(claim, nothing({ retry: true }), answered);
      return;
    }
    onEvent(answered);
    if (step.kind !== 'final') {
      await this.redirect(claim, before, url, step);
      return;
    }
    this.responses++;
    const reject = program.rejectReason(response);
    if (reject !== undefined) {
      await this.o.store.complete(claim, nothing());
      onEvent({ type: 'failed', url: url.key, depth, reason: reject });
      return;
    }
    const staged = await this.o.sink.stage({ url: url.key, depth, body: response.body });
    let result;
    let scanned: PageScan<ClaimEntry> | undefined;
    try {
      scanned = depth < this.o.config.maxDepth ? await this.scan(url, depth, response.body) : undefined;
      result = await this.o.store.complete(claim, nothing({ links: scanned?.links ?? [], saved: true }));
    } catch (err) {
      staged.discard();
      // A stop while a link's robots.txt was being learnt: the page is redone by whoever claims it next.
      if (isCrawlerError(err) && err.code === 'ERR_ABORTED') {
        await store.release(claim, this.startedAt(claim, before));
        return;
      }
      throw err;
    }
    if (!result.ok || result.documentId === undefined) {
      staged.discard();
      onEvent({ type: 'lost', url: url.key, depth });
      return;
    }
    // Until the store hears the file is in place the claim is out: dying before the rename loses nothing.
    staged.publish(result.documentId);
    this.saved++;
    onEvent({ type: 'saved', url, depth, id: result.documentId });
    if (scanned !== undefined) for (const e of scanned.told(result.added)) onEvent(e);
    return claim;
  }

  /** The host's interval and back-off streak as its row has them (every worker's failures count). */
  private takeHost(claim: Claim): void {
    this.o.politeness.setHostDelay(claim.origin, claim.delayMs);
    this.o.politeness.setStreak(claim.origin, claim.streak);
    if (claim.refusal !== undefined) this.o.politeness.refuse(claim.origin, claim.refusal);
  }

  /** The host's politeness after this claim, for its row: the back-off streak, the interval, and a Retry-After pause in the store's time. */
  private hostTiming(claim: Claim, before: number): HostTiming {
    const p = this.o.politeness;
    const paused = p.pausedUntilOf(claim.origin);
    return {
      streak: p.streakOf(claim.origin),
      intervalMs: p.intervalFor(claim.origin),
      pausedUntil: paused === undefined || paused <= before ? undefined : storeTime(claim, before, paused),
      refusal: p.refusalOf(claim.origin),
    };
  }

  /** A push-back with tries left: the URL waits again (the store keeps the count); only its response is told. */
  private async retryLater(claim: Claim, completion: Completion, answered: CrawlEvent): Promise<void> {
    const result = await this.o.store.complete(claim, completion);
    this.o.onEvent(result.ok ? answered : { type: 'lost', url: claim.key, depth: claim.depth });
  }

  /** A redirect: its target is queued like a link of the page, at the same depth (and fetched in its turn). */
  private async redirect(claim: Claim, before: number, from: HttpUrl, step: Exclude<RedirectStep, { kind: 'final' }>): Promise<void> {
    const { onEvent } = this.o;
    const depth = claim.depth;
    const target = step.kind === 'invalid' ? undefined : step.target;
    let action: LinkAction | 'invalid';
    try {
      action = target === undefined ? 'invalid' : await this.classify(target);
    } catch (err) {
      if (!isCrawlerError(err) || err.code !== 'ERR_ABORTED') throw err;
      await this.o.store.release(claim, this.startedAt(claim, before));
      return;
    }
    const links: ClaimEntry[] = target !== undefined && action === 'follow' ? [{ key: target.key, url: target.href, depth, origin: target.origin }] : [];
    const result = await this.o.store.complete(claim, { startedAt: this.startedAt(claim, before), links, saved: false, host: this.hostTiming(claim, before) });
    if (!result.ok) {
      onEvent({ type: 'lost', url: from.key, depth });
      return;
    }
    if (action === 'follow' && result.added[0] !== true) action = 'duplicate';
    onEvent({ type: 'redirect', from, depth, target, raw: step.raw, action, error: step.kind === 'invalid' ? step.error : undefined });
  }

  /** external, then robots (learning the host's rules first when they are not known), else follow; duplicates are the store's to say. */
  private async classify(url: HttpUrl): Promise<LinkAction> {
    return this.classifier.now(url) ?? (await this.classifier.classify(url));
  }

  /** The links of a page in document order: those to queue, and a report for each. */
  private async scan(page: HttpUrl, depth: number, body: Buffer): Promise<PageScan<ClaimEntry>> {
    const scan = new PageScan<ClaimEntry>(page, depth);
    for (const { raw, url, error } of pageLinks(this.o.extractor.extract(body), page, this.o.program.resolveLink)) {
      if (url === undefined) scan.push({ type: 'link', depth, raw, url: undefined, action: 'invalid', error }, undefined);
      else scan.push({ type: 'link', depth, raw, url, action: await this.classify(url) }, { key: url.key, url: url.href, depth: depth + 1, origin: url.origin });
    }
    return scan;
  }
}
