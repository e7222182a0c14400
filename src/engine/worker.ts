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
 * worker reports what happened to each claim through `onReport`.
 */
import { isCrawlerError } from '../errors.js';
import type { LinkExtractor } from '../extract/types.js';
import { storeTime, type Claim, type ClaimCrawlConfig, type ClaimEntry, type ClaimOptions, type ClaimStore, type Completion, type StoredRobots } from '../frontier/claim-store.js';
import { systemClock, type Clock } from '../frontier/clock.js';
import type { Politeness } from '../frontier/politeness.js';
import type { FetchResponse } from '../http/client.js';
import { ExchangeError } from '../http/connection.js';
import { encodeTarget } from '../http/request.js';
import type { RobotsFetcher } from '../robots/policy.js';
import type { RobotsRules } from '../robots/rules.js';
import type { TsePageDirectory } from '../sink/tse-pagedir.js';
import type { HttpUrl } from '../url/http-url.js';
import type { LinkAction } from './crawl.js';
import { pageLinks } from './page-links.js';
import { redirectLocation, type PoliteFetcher } from './polite-fetch.js';

/** A link of a scanned page, as it was classified. */
export interface LinkReport {
  /** The resolved URL's key, or the raw href (request-target encoded) when it did not resolve. */
  shown: string;
  action: LinkAction | 'invalid';
}

/** What became of one claim. */
export type WorkerReport =
  | { kind: 'saved'; url: HttpUrl; depth: number; id: number; links: LinkReport[] | undefined }
  | { kind: 'failed'; url: string; depth: number; reason: string }
  | { kind: 'robots'; url: string; depth: number }
  | { kind: 'redirect'; url: string; depth: number; target: string; action: LinkAction | 'invalid'; reason: string | undefined }
  | { kind: 'lost'; url: string; depth: number }
  | { kind: 'robots-txt'; url: string; answer: StoredRobots; rules: RobotsRules };

/** The program's policy. */
export interface WorkerProgram {
  /** Resolves a link found on `base`; throws CrawlerError when it is not a crawlable URL. */
  resolveLink(href: string, base: HttpUrl): HttpUrl;
  /** False for a URL the crawl must never request. */
  inScope(url: HttpUrl): boolean;
  /** Why a final response is not saved (a status, a type), or undefined to save it. */
  rejectReason(response: FetchResponse): string | undefined;
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
  onReport(report: WorkerReport): void;
  signal?: AbortSignal;
  /** The clock the politeness stamps request starts with (default: the system clock). */
  clock?: Clock;
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
  private readonly rules = new Map<string, RobotsRules>();
  private readonly halt = new AbortController();
  private readonly signal: AbortSignal;
  private responses = 0;
  private saved = 0;

  constructor(options: WorkerOptions) {
    this.o = options;
    this.clock = options.clock ?? systemClock;
    this.signal = options.signal === undefined ? this.halt.signal : AbortSignal.any([options.signal, this.halt.signal]);
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

  /** One claim at a time, until the crawl is done or this worker stops. */
  private async lane(): Promise<WorkerSummary['stoppedBy']> {
    try {
      for (;;) {
        if (this.signal.aborted) return 'signal';
        if (this.o.maxPages !== undefined && this.responses >= this.o.maxPages) return 'max-pages';
        const before = this.clock.now();
        const r = await this.o.store.claim(this.o.claim);
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
        else await this.page(claim, before);
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

  private async robots(claim: Claim, before: number): Promise<void> {
    const { program, config } = this.o;
    this.o.politeness.setHostDelay(claim.origin, claim.delayMs);
    const result = await program.robotsFetch(claim.url, claim.origin);
    if (this.signal.aborted && !('status' in result)) {
      await this.o.store.release(claim); // stopped before (or while) asking: not an answer
      return;
    }
    const answer = 'status' in result ? program.storedRobots(result.status, result.body) : { status: 0, body: '' };
    const rules = program.robotsRules(answer);
    this.rules.set(claim.origin, rules);
    const delayMs = Math.max(config.delayMs, (rules.crawlDelay ?? 0) * 1000);
    await this.o.store.complete(claim, { startedAt: this.startedAt(claim, before), links: [], saved: false, robots: { answer, delayMs } });
    this.o.onReport({ kind: 'robots-txt', url: claim.url, answer, rules });
  }

  private rulesOf(origin: string, answer: StoredRobots | undefined): RobotsRules | undefined {
    if (answer === undefined) return this.rules.get(origin);
    let rules = this.rules.get(origin);
    if (rules === undefined) {
      rules = this.o.program.robotsRules(answer);
      this.rules.set(origin, rules);
    }
    return rules;
  }

  private async page(claim: Claim, before: number): Promise<void> {
    const { program, store, onReport } = this.o;
    const depth = claim.depth;
    const nothing = (): Completion => ({ startedAt: this.startedAt(claim, before), links: [], saved: false });
    let url: HttpUrl;
    try {
      url = program.resolveLink(claim.url, this.o.seed);
    } catch (err) {
      if (!isCrawlerError(err)) throw err;
      await this.o.store.complete(claim, nothing());
      onReport({ kind: 'failed', url: claim.key, depth, reason: `(${err.message})` });
      return;
    }
    const rules = this.rulesOf(claim.origin, claim.robots);
    if (rules !== undefined && !rules.isAllowed(encodeTarget(url.pathAndQuery))) {
      await this.o.store.complete(claim, nothing());
      onReport({ kind: 'robots', url: url.key, depth });
      return;
    }
    this.o.politeness.setHostDelay(claim.origin, claim.delayMs);
    let response: FetchResponse;
    try {
      response = await this.o.fetcher.fetch(url, this.signal);
    } catch (err) {
      if (!isCrawlerError(err)) throw err;
      if (err.code === 'ERR_ABORTED') {
        await store.release(claim);
        return;
      }
      await this.o.store.complete(claim, nothing());
      const status = err instanceof ExchangeError ? err.status : undefined;
      onReport({ kind: 'failed', url: url.key, depth, reason: status === undefined ? `(${err.message})` : `(HTTP ${status}: ${err.message})` });
      return;
    }
    const location = redirectLocation(response);
    if (location !== undefined) {
      await this.redirect(claim, before, url, location);
      return;
    }
    this.responses++;
    const reject = program.rejectReason(response);
    if (reject !== undefined) {
      await this.o.store.complete(claim, nothing());
      onReport({ kind: 'failed', url: url.key, depth, reason: reject });
      return;
    }
    const staged = await this.o.sink.stage({ url: url.key, depth, body: response.body });
    let result;
    let scanned: { links: ClaimEntry[]; reports: LinkReport[]; queued: number[] } | undefined;
    try {
      scanned = depth < this.o.config.maxDepth ? this.scan(url, depth, response.body) : undefined;
      result = await this.o.store.complete(claim, { startedAt: this.startedAt(claim, before), links: scanned?.links ?? [], saved: true });
    } catch (err) {
      staged.discard();
      throw err;
    }
    if (!result.ok || result.documentId === undefined) {
      staged.discard();
      onReport({ kind: 'lost', url: url.key, depth });
      return;
    }
    staged.publish(result.documentId);
    await store.published(claim); // until now the claim is out: dying before the rename loses nothing
    this.saved++;
    if (scanned !== undefined) {
      scanned.queued.forEach((at, i) => {
        if (!result.added[i]) (scanned.reports[at] as LinkReport).action = 'duplicate';
      });
    }
    onReport({ kind: 'saved', url, depth, id: result.documentId, links: scanned?.reports });
  }

  /** A redirect: its target is queued like a link of the page, at the same depth (and fetched in its turn). */
  private async redirect(claim: Claim, before: number, from: HttpUrl, location: string): Promise<void> {
    const { program, onReport } = this.o;
    const depth = claim.depth;
    let target: HttpUrl | undefined;
    let action: LinkAction | 'invalid';
    let reason: string | undefined;
    let links: ClaimEntry[] = [];
    try {
      target = program.resolveLink(location, from);
      action = this.classify(target);
      if (action === 'follow') links = [{ key: target.key, url: target.href, depth, origin: target.origin }];
    } catch (err) {
      if (!isCrawlerError(err)) throw err;
      action = 'invalid';
      reason = err.message;
    }
    const result = await this.o.store.complete(claim, { startedAt: this.startedAt(claim, before), links, saved: false });
    if (!result.ok) {
      onReport({ kind: 'lost', url: from.key, depth });
      return;
    }
    if (action === 'follow' && result.added[0] !== true) action = 'duplicate';
    onReport({ kind: 'redirect', url: from.key, depth, target: target?.key ?? encodeTarget(location), action, reason });
  }

  /** external, then robots (when this worker knows the host's rules), else follow; duplicates are the store's to say. */
  private classify(url: HttpUrl): LinkAction {
    if (!this.o.program.inScope(url)) return 'external';
    const rules = this.rules.get(url.origin);
    if (rules !== undefined && !rules.isAllowed(encodeTarget(url.pathAndQuery))) return 'robots';
    return 'follow';
  }

  /** The links of a page in document order: those to queue, and a report for each. */
  private scan(page: HttpUrl, depth: number, body: Buffer): { links: ClaimEntry[]; reports: LinkReport[]; queued: number[] } {
    const links: ClaimEntry[] = [];
    const reports: LinkReport[] = [];
    const queued: number[] = [];
    for (const { raw, url } of pageLinks(this.o.extractor.extract(body), page, this.o.program.resolveLink)) {
      if (url === undefined) {
        reports.push({ shown: encodeTarget(raw), action: 'invalid' });
        continue;
      }
      const action = this.classify(url);
      if (action === 'follow') {
        queued.push(reports.length);
        links.push({ key: url.key, url: url.href, depth: depth + 1, origin: url.origin });
      }
      reports.push({ shown: url.key, action });
    }
    return { links, reports, queued };
  }
}
