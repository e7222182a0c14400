/**
 * Fetch ahead, hand out in order. The crawl consumes frontier entries one at
 * a time, in breadth-first order; this window takes a few entries ahead and
 * starts their first requests early when their hosts are free, so requests
 * to different hosts run concurrently while each host keeps its own
 * politeness (the per-host turn in Politeness) and its own order.
 *
 * With concurrency 1 the window holds one entry: exactly the sequential crawl.
 * Only entries already queued are fetched ahead; they passed the robots check
 * when they were queued, so nothing disallowed is ever requested.
 */
import { CrawlerError, isCrawlerError } from '../errors.js';
import type { FrontierEntry } from '../frontier/store.js';
import type { FetchResponse } from '../http/client.js';
import type { HttpUrl } from '../url/http-url.js';

/** A first hop's result, never a rejection. */
export type FetchOutcome = { response: FetchResponse; error?: undefined } | { response?: undefined; error: CrawlerError };

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
}

interface Slot {
  entry: FrontierEntry;
  url: HttpUrl | undefined;
  resolveError: CrawlerError | undefined;
  outcome: Promise<FetchOutcome> | undefined;
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
  private readonly inFlightByHost = new Map<string, number>();
  /** Started and not yet handed out, per origin. */
  private readonly aheadByHost = new Map<string, number>();
  private inFlight = 0;
  private readonly size: number;

  constructor(options: LookaheadOptions) {
    this.o = options;
    this.size = options.concurrency <= 1 ? 1 : options.concurrency * 8;
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
      const host = head.url.origin;
      const n = (this.aheadByHost.get(host) ?? 1) - 1;
      if (n === 0) this.aheadByHost.delete(host);
      else this.aheadByHost.set(host, n);
      this.schedule(); // the host may have been held back by maxAhead
    }
    return { entry: head.entry, url: head.url, outcome };
  }

  /** True when a request other than the head's may be in flight. */
  get prefetching(): boolean {
    return this.inFlight > 0;
  }

  /** Entries taken from the frontier and not yet handed out (to be redone after a stop). */
  get held(): number {
    return this.slots.length;
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
      this.slots.push({ entry, url, resolveError, outcome: undefined });
    }
  }

  /** Starts every slot whose host is free, in order, up to the concurrency. */
  private schedule(): void {
    const waiting = new Set<string>(); // hosts with an earlier slot not yet started
    for (const slot of this.slots) {
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
    void slot.outcome.then(() => {
      this.inFlight--;
      const n = (this.inFlightByHost.get(host) ?? 1) - 1;
      if (n === 0) this.inFlightByHost.delete(host);
      else this.inFlightByHost.set(host, n);
      this.schedule();
    });
  }
}
