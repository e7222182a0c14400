/**
 * A shared worker's turns: claims from a ClaimStore, which hands any worker
 * the next URL that may be fetched now (the host's delay has passed and no
 * other worker holds it). robots.txt claims are served here and never reach
 * the loop; a page claim brings its host's rules and timing from the store's
 * row. A redirect's target is queued at the same depth, one hop further, not
 * followed (a claim holds one host's turn). The store gives the document ID
 * on completion (IDs are 1..N across workers) and holds the page budget; a
 * saved page's claim stays out until its file is in place (`published`),
 * riding on this worker's next claim when it can. A claim whose lease ran
 * out (another worker took the URL) is told as `lost`, its page discarded.
 */
import { isCrawlerError } from '../errors.js';
import type { Claim, ClaimEntry, ClaimOptions, ClaimStore } from '../frontier/claim-store.js';
import type { Clock } from '../frontier/clock.js';
import type { FrontierEntry } from '../frontier/private-store.js';
import type { HttpUrl } from '../url/http-url.js';
import type { ClaimGate } from './claim-gate.js';
import type { ClaimTiming } from './claim-timing.js';
import type { CrawlEventSink } from './events.js';
import type { GroupPublish } from './group-publish.js';
import type { KnownLinks } from './known-links.js';
import type { StoreRobots } from './store-robots.js';
import type { CompletingPage, Turn, Turns, TurnsEnd } from './turns.js';
import type { Completed, VisitDone } from './visit-types.js';

/** A turn under a claim: the claim, and this worker's clock just before it asked for it (for the store's time). */
export interface ClaimTurn extends Turn {
  claim: Claim;
  before: number;
}

export interface ClaimTurnsOptions {
  store: ClaimStore;
  claim: ClaimOptions;
  gate: ClaimGate;
  clock: Clock;
  signal: AbortSignal;
  robots: StoreRobots;
  timing: ClaimTiming;
  /** The links the store is known to have seen: a completion leaves them out. */
  known: KnownLinks;
  /** Saved pages published on their own while the lanes wait in line: in groups. */
  publisher: GroupPublish;
  /** A queued URL resolved to what is requested (the program's resolution, against the seed). */
  resolve: (url: string) => HttpUrl;
  onEvent: CrawlEventSink;
  /** Awaited once a visit's page has its ID and before it is published: what must be in place first (its archive records). */
  beforeComplete?: ((page: CompletingPage) => Promise<void>) | undefined;
}

export class ClaimTurns implements Turns<ClaimTurn> {
  /** Pages this worker saved. */
  saved = 0;
  /** Saved pages whose files are in place, waiting to be published with the next claim. */
  private readonly unpublished: Claim[] = [];

  constructor(private readonly o: ClaimTurnsOptions) {}

  async next(): Promise<ClaimTurn | TurnsEnd> {
    const { store, gate, clock, signal } = this.o;
    for (;;) {
      if (signal.aborted) return this.end('signal');
      // Read just before the ask that brings the claim (the store's clock is mapped from it): not before
      // the lane's turn in line, which would put the request's start, and the host's next turn, later.
      let before = 0;
      const r = await gate.claim(() => {
        before = clock.now();
        return store.claim(this.o.claim, this.unpublished.splice(0));
      });
      if ('done' in r) return this.end(r.spent === true ? 'max-pages' : 'done');
      if ('waitMs' in r) {
        await clock.sleep(r.waitMs, signal);
        continue;
      }
      const claim = r.claim;
      if (signal.aborted) {
        await store.release(claim);
        return this.end('signal');
      }
      if (claim.kind === 'robots') {
        await this.o.robots.claimed(claim, before);
        continue;
      }
      // The host's rules and timing as its row in the store has them (another worker may have fetched them).
      this.o.robots.learnFrom(claim);
      this.o.timing.take(claim);
      const entry: FrontierEntry = claim.attempts === 0 ? { key: claim.key, url: claim.url, depth: claim.depth } : { key: claim.key, url: claim.url, depth: claim.depth, attempts: claim.attempts };
      let target: Turn['target'];
      try {
        target = { url: this.o.resolve(claim.url) };
      } catch (err) {
        if (!isCrawlerError(err)) throw err;
        target = { error: err };
      }
      return { entry, target, hops: claim.hops, claim, before };
    }
  }

  async complete(turn: ClaimTurn, visit: VisitDone | undefined, settle: (documentId: number | undefined) => void): Promise<Completed | undefined> {
    const { store, timing, known } = this.o;
    const { claim, before } = turn;
    const page = visit?.page;
    // Only the links the store may not have (see KnownLinks); the others were not added, as it would say.
    const unknown = known.unknownOf(visit?.links ?? []);
    let result;
    try {
      result = await store.complete(claim, {
        startedAt: timing.startedAt(claim, before),
        links: unknown.links,
        saved: page !== undefined,
        answered: visit?.answered === true,
        host: timing.after(claim, before),
        ...(visit === undefined ? { retry: true } : {}),
      });
      if (result.ok && visit !== undefined) await this.o.beforeComplete?.({ key: visit.url?.key ?? turn.target.url?.key ?? turn.entry.key, documentId: result.documentId });
    } catch (err) {
      page?.discard(); // the store failed (or the archive): no page file is left without its record
      throw err;
    }
    if (!result.ok || (page !== undefined && result.documentId === undefined)) {
      page?.discard();
      this.o.onEvent({ type: 'lost', url: turn.entry.key, depth: turn.entry.depth });
      return undefined;
    }
    if (visit === undefined) return undefined; // queued again; only its response was told
    known.learn(unknown.links);
    // Until the store hears the file is in place the claim is out: dying before the rename loses nothing.
    if (page !== undefined) {
      await page.publish(result.documentId as number);
      this.saved++;
    }
    settle(result.documentId);
    if (result.added.includes(true)) this.o.gate.nudge(); // a new host may be ready now
    // A page saved and not yet published is the window in which this worker's death makes another
    // worker fetch and save it again (its lease runs out): it rides on this lane's next claim when the
    // lane may ask at once, else it is published now, with those other lanes saved while this worker's
    // last such call was out (GroupPublish).
    if (page !== undefined) {
      if (this.o.gate.busy) await this.o.publisher.publish(claim);
      else this.unpublished.push(claim);
    }
    return { documentId: result.documentId, added: unknown.spread(result.added) };
  }

  async release(turn: ClaimTurn): Promise<void> {
    // A request already sent still counts for the host's next turn.
    await this.o.store.release(turn.claim, this.o.timing.startedAt(turn.claim, turn.before));
  }

  add(links: ClaimEntry[]): Promise<readonly boolean[]> {
    return this.o.store.add(links);
  }

  /** Publishes on their own the saved pages still waiting to ride on a claim. */
  async publishWaiting(): Promise<void> {
    const rest = this.unpublished.splice(0);
    if (rest.length > 0) await this.o.store.published(rest);
  }

  /** A lane that stops publishes what waits on its own. */
  private async end(why: TurnsEnd): Promise<TurnsEnd> {
    await this.publishWaiting();
    return why;
  }
}
