/**
 * Fetch ahead, hand out in order. The crawl consumes frontier entries one at
 * a time, in breadth-first order; this window takes a few entries ahead and
 * starts their first requests early when their hosts are free, so requests
 * to different hosts run concurrently while each host keeps its own
 * politeness (the per-host turn in Politeness) and its own order.
 *
 * With concurrency 1 the window holds one entry: exactly the sequential crawl.
 * With `fetchNext` it holds two: the next queued entry is requested as soon
 * as the head's answer has arrived and `fetchNext` allows it, so the server
 * works on it while the crawl saves and scans the head. Still one request in
 * flight at a time.
 * Entries already queued are fetched ahead; they passed the robots check
 * when they were queued, so nothing disallowed is ever requested.
 *
 * Scanning ahead (`discover`): as each answer arrives, out of order, the
 * crawl may name links of it that it will certainly follow when it reaches
 * that page in order (in scope, not seen, allowed by robots.txt rules
 * already known). They are fetched ahead too, after the queued entries of
 * their host, and a frontier entry with the same key takes over that fetch
 * when it is queued, so no URL is requested twice.
 */
import { CrawlerError, isCrawlerError } from '../errors.js';
import type { FrontierEntry } from '../frontier/store.js';
import type { FetchResponse } from '../http/client.js';
import type { HttpUrl } from '../url/http-url.js';
import type { FetchOutcome } from './redirects.js';

/** A first hop's result, never a rejection. */

export interface LookaheadOptions {
  /** Takes the next frontier entry (undefined when none). */
  take: () => FrontierEntry | undefined;
  /** The URL of an entry. Throws CrawlerError for one that cannot be requested. */
  resolve: (entry: FrontierEntry) => HttpUrl;
  /** One polite request. */
  fetch: (url: HttpUrl) => Promise<FetchResponse>;
  /** Most first-hop requests in flight at once. */
  concurrency: number;
  /** Most requests in flight to one origin. */
  perHost: (origin: string) => number;
  /**
   * Most entries of one origin started and not yet handed out (in flight, or
   * answered and waiting for their turn in order). Bounds how far a fast host
   * runs ahead of the crawl: every waiting response is memory, and one held
   * long enough to outlive the young GC generation costs a full collection.
   */
  maxAhead: (origin: string) => number;
  /** How many more entries may be taken (the page budget). */
  budget: () => number;
  /**
   * Concurrency 1 only: whether the next queued entry may be requested once
   * the head's first hop ended this way (undefined: never). Answer false
   * where the crawl's visit of the head makes requests of its own (a
   * redirect hop), or the crawl may stop at the head.
   */
  fetchNext?: (outcome: FetchOutcome) => boolean;
  /** Links of an answered first hop that the crawl will follow when it reaches the page in order (see above). */
  discover?: (entry: FrontierEntry, url: HttpUrl, outcome: FetchOutcome) => Array<{ entry: FrontierEntry; url: HttpUrl }>;
}

interface Slot {
  entry: FrontierEntry;
  url: HttpUrl | undefined;
  resolveError: CrawlerError | undefined;
  outcome: Promise<FetchOutcome> | undefined;
  /** The outcome once it has arrived. */
  settled?: FetchOutcome;
}

export interface Ready {
  entry: FrontierEntry;
  url: HttpUrl | undefined;
  /** The first hop's result; for an entry whose URL cannot be requested, its error. */
  outcome: FetchOutcome;
}

export class Lookahead {
  private readonly o: LookaheadOptions;
  private readonly slots: Slot[] = [];
  /** Links found by scanning ahead, not yet queued, in the order found; by key. */
  private readonly ahead = new Map<string, Slot>();
  private readonly inFlightByHost = new Map<string, number>();
  /** Started and not yet handed out, per origin. */
  private readonly aheadByHost = new Map<string, number>();
  private inFlight = 0;
  private readonly size: number;

  constructor(options: LookaheadOptions) {
    this.o = options;
    this.size = options.concurrency > 1 ? options.concurrency * 8 : options.fetchNext !== undefined ? 2 : 1;
  }

  /** The next entry in frontier order with its first hop done, or undefined when the frontier is empty. */
  async next(): Promise<Ready | undefined> {
    this.fill();
    const head = this.slots[0];
    if (head === undefined) return undefined;
    this.schedule();
    if (head.outcome === undefined) this.start(head); // only when its URL could not be resolved
    const outcome = await (head.outcome as Promise<FetchOutcome>);
    this.slots.shift();
    if (head.url !== undefined) {
      this.handedOut(head.url.origin);
      // The host may have been held back by maxAhead. Sequential: the crawl visits the head first.
      if (this.o.concurrency > 1) this.schedule();
    }
    return { entry: head.entry, url: head.url, outcome };
  }

  /**
   * The fetch of `url` started by scanning ahead, taken over by the caller
   * (a redirect's target fetched in its turn), or undefined when there is none.
   */
  claim(url: HttpUrl): Promise<FetchOutcome> | undefined {
    const slot = this.ahead.get(url.key);
    if (slot === undefined) return undefined;
    this.ahead.delete(url.key);
    if (slot.outcome === undefined) return undefined; // not started: the caller fetches it
    this.handedOut(url.origin);
    return slot.outcome;
  }

  private handedOut(host: string): void {
    const n = (this.aheadByHost.get(host) ?? 1) - 1;
    if (n === 0) this.aheadByHost.delete(host);
    else this.aheadByHost.set(host, n);
  }

  /** True when a request other than the head's may be in flight. */
  get prefetching(): boolean {
    return this.inFlight > 0;
  }

  private fill(): void {
    let room = Math.min(this.size, this.o.budget()) - this.slots.length;
    while (room-- > 0) {
      const entry = this.o.take();
      if (entry === undefined) return;
      let url: HttpUrl | undefined;
      let resolveError: CrawlerError | undefined;
      try {
        url = this.o.resolve(entry);
      } catch (err) {
        if (!isCrawlerError(err)) throw err;
        resolveError = err;
      }
      const found = this.ahead.get(entry.key);
      if (found !== undefined) {
        // Found by scanning ahead, maybe fetched already: this entry takes it over.
        this.ahead.delete(entry.key);
        found.entry = entry;
        // The same key, but the host as this entry writes it (the output prints it).
        if (url !== undefined) found.url = url;
        this.slots.push(found);
      } else this.slots.push({ entry, url, resolveError, outcome: undefined });
    }
  }

  /** Records links found by scanning ahead (at most one window's worth waiting). */
  private found(links: Array<{ entry: FrontierEntry; url: HttpUrl }>): void {
    for (const { entry, url } of links) {
      if (this.ahead.size >= this.size) return;
      if (!this.ahead.has(entry.key)) this.ahead.set(entry.key, { entry, url, resolveError: undefined, outcome: undefined });
    }
  }

  /** Starts every slot whose host is free, in order (queued entries, then links found ahead), up to the concurrency. */
  private schedule(): void {
    if (this.o.concurrency <= 1 && this.slots.length > 1) {
      // Sequential: the second slot waits for the head's answer, and for fetchNext's leave.
      const head = this.slots[0] as Slot;
      if (head.outcome !== undefined && (head.settled === undefined || this.o.fetchNext?.(head.settled) !== true)) return;
    }
    const waiting = new Set<string>(); // hosts with an earlier slot not yet started
    for (const slot of this.ahead.size === 0 ? this.slots : [...this.slots, ...this.ahead.values()]) {
      if (slot.outcome !== undefined) continue;
      if (slot.url === undefined) {
        this.start(slot);
        continue;
      }
      const host = slot.url.origin;
      if (waiting.has(host)) continue;
      const busy = this.inFlightByHost.get(host) ?? 0;
      const ahead = this.aheadByHost.get(host) ?? 0;
      if (this.inFlight >= this.o.concurrency || busy >= this.o.perHost(host) || ahead >= this.o.maxAhead(host)) {
        waiting.add(host);
        continue;
      }
      this.start(slot);
    }
  }

  private start(slot: Slot): void {
    if (slot.url === undefined) {
      slot.outcome = Promise.resolve({ error: slot.resolveError as CrawlerError });
      return;
    }
    const url = slot.url;
    const host = url.origin;
    this.inFlight++;
    this.inFlightByHost.set(host, (this.inFlightByHost.get(host) ?? 0) + 1);
    this.aheadByHost.set(host, (this.aheadByHost.get(host) ?? 0) + 1);
    slot.outcome = this.o.fetch(url).then(
      (response): FetchOutcome => ({ response }),
      (err: unknown): FetchOutcome => {
        if (isCrawlerError(err)) return { error: err };
        return { error: new CrawlerError('ERR_SOCKET', `unexpected failure: ${String(err)}`, { cause: err }) };
      },
    );
    void slot.outcome.then((outcome) => {
      slot.settled = outcome;
      this.inFlight--;
      const n = (this.inFlightByHost.get(host) ?? 1) - 1;
      if (n === 0) this.inFlightByHost.delete(host);
      else this.inFlightByHost.set(host, n);
      if (this.o.discover !== undefined && outcome.response !== undefined) this.found(this.o.discover(slot.entry, url, outcome));
      this.schedule();
    });
  }
}
