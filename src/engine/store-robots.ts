/**
 * robots.txt through the store, for a worker of a shared crawl: a host's
 * robots.txt is an item of the shared frontier (a `robots` claim, under the
 * host's lease and delay), fetched by whichever worker claims it; its answer
 * is kept on the host's row, and every page claim of that host carries it.
 * A link to a host this worker knows nothing of is judged when it is found,
 * as a private crawl judges it: its rules are read from the row, or fetched
 * now through a robots claim (waiting while another worker fetches them).
 */
import { CrawlerError } from '../errors.js';
import type { Claim, ClaimOptions, ClaimStore, StoredRobots } from '../frontier/claim-store.js';
import type { Clock } from '../frontier/clock.js';
import type { Politeness } from '../frontier/politeness.js';
import type { RobotsFetcher } from '../robots/policy.js';
import type { RobotsRules } from '../robots/rules.js';
import type { ClaimTiming } from './claim-timing.js';
import type { CrawlEventSink } from './events.js';
import type { RobotsGate } from './robots-gate.js';

/** How a crawl fetches, stores and reads robots.txt answers (the program's policy). */
export interface StoredRobotsPolicy {
  /** Fetches a robots.txt URL (redirects followed politely). */
  fetch: RobotsFetcher;
  /** The rules a stored answer gives (the failure policy applied). */
  rules(answer: StoredRobots): RobotsRules;
  /** Turns a fetched body into what is stored (decoded, capped). */
  stored(status: number, body: Buffer): StoredRobots;
}

export interface StoreRobotsOptions {
  store: ClaimStore;
  claim: ClaimOptions;
  policy: StoredRobotsPolicy;
  politeness: Politeness;
  timing: ClaimTiming;
  clock: Clock;
  signal: AbortSignal;
  onEvent: CrawlEventSink;
  /** What this worker knows of each host's rules (the page path's gate), which learns what is fetched here. */
  gate: RobotsGate;
}

export class StoreRobots {
  /** Hosts whose robots.txt this worker is learning now (lanes share one load). */
  private readonly loading = new Map<string, Promise<RobotsRules>>();

  constructor(private readonly o: StoreRobotsOptions) {}

  /** A robots.txt claim from the queue: fetched, and its rules learnt. */
  async claimed(claim: Claim, before: number): Promise<void> {
    const learnt = await this.fetch(claim, before);
    if (learnt !== undefined) this.o.gate.learn(claim.origin, learnt.rules, learnt.delayMs);
  }

  /** The rules of a host a link leads to: from its row, or fetched now through a robots claim. One load per host at a time. */
  load(origin: string): Promise<RobotsRules> {
    let loading = this.loading.get(origin);
    if (loading === undefined) {
      loading = this.fromStore(origin).finally(() => this.loading.delete(origin));
      this.loading.set(origin, loading);
    }
    return loading;
  }

  /** The rules a page claim's row carries, learnt when this worker did not know them (another worker fetched them). */
  learnFrom(claim: Claim): void {
    const gate = this.o.gate;
    if (claim.robots !== undefined && gate.rulesOf(claim.origin) === undefined) gate.learn(claim.origin, this.o.policy.rules(claim.robots), claim.delayMs);
  }

  private async fromStore(origin: string): Promise<RobotsRules> {
    const { store, clock, signal } = this.o;
    for (;;) {
      if (signal.aborted) throw new CrawlerError('ERR_ABORTED', `stopped before learning the robots.txt of ${origin}`);
      const before = clock.now();
      // Depth 0: a robots.txt fetched for a link is no URL of the breadth-first order.
      const r = await store.robotsFor(origin, 0, this.o.claim);
      if ('answer' in r) return this.o.policy.rules(r.answer);
      if ('waitMs' in r) {
        await clock.sleep(r.waitMs, signal);
        continue;
      }
      const learnt = await this.fetch(r.claim, before);
      if (learnt !== undefined) return learnt.rules;
    }
  }

  /**
   * Runs `request` in `origin`'s turn as the store keeps it for every
   * worker (RFC 9309 §2.3.1.2: a robots.txt redirect to another host of the
   * crawl is followed): waits until the store gives the host's turn, makes
   * the request, and gives the turn back with the request's start, which
   * the host's next request waits its interval from.
   */
  async inTurn<T>(origin: string, request: () => Promise<T>): Promise<T> {
    const { store, clock, signal, timing } = this.o;
    for (;;) {
      if (signal.aborted) throw new CrawlerError('ERR_ABORTED', `stopped before requesting from ${origin}`);
      const before = clock.now();
      const r = await store.turn(origin, this.o.claim);
      if ('waitMs' in r) {
        await clock.sleep(r.waitMs, signal);
        continue;
      }
      const claim = r.claim;
      timing.take(claim);
      try {
        return await request();
      } finally {
        await store.release(claim, timing.startedAt(claim, before));
      }
    }
  }

  /** Fetches a claimed robots.txt and completes the claim with its answer; undefined when a stop came first (the claim is given back). */
  private async fetch(claim: Claim, before: number): Promise<{ rules: RobotsRules; delayMs: number } | undefined> {
    const { policy, store, timing } = this.o;
    timing.take(claim);
    // A redirect to another host of the crawl is followed in that host's turn, across every worker.
    const result = await policy.fetch(claim.url, claim.origin, (origin, request) => this.inTurn(origin, request));
    if (this.o.signal.aborted && !('status' in result)) {
      await store.release(claim, timing.startedAt(claim, before)); // stopped before (or while) asking: not an answer, but a request sent counts
      return undefined;
    }
    const answer = 'status' in result ? policy.stored(result.status, result.body) : { status: 0, body: '' };
    const rules = policy.rules(answer);
    this.o.politeness.setHostDelay(claim.origin, rules.crawlDelayMs);
    const delayMs = this.o.politeness.hostInterval(claim.origin); // kept on the host's row: every worker's interval
    await store.complete(claim, { startedAt: timing.startedAt(claim, before), links: [], saved: false, robots: { answer, delayMs }, host: timing.after(claim, before) });
    this.o.onEvent({ type: 'robots-txt', url: claim.url, answer });
    return { rules, delayMs };
  }
}
