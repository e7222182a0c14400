/**
 * Fetch ahead, hand out in order: the private crawl's window. The crawl
 * consumes frontier entries one at a time, in breadth-first order; this
 * window takes entries ahead and starts their first requests early, so that
 * requests to different hosts run at once while each host keeps its own
 * politeness (its turn in Politeness) and its own order.
 *
 * Across hosts: in breadth-first order one host's pages often come one
 * after another, and each waits its interval, so a window of the next few
 * entries would keep one host busy and the others idle. This one takes
 * entries until it has work for as many hosts as the concurrency allows (up
 * to `maxTaken` entries), keeps each host's entries in a lane of their own,
 * and keeps the lanes in a heap by the time their host's turn comes: the
 * next host whose turn has come is found in O(log hosts), and a request is
 * started only when its host may be asked (so a request in flight is one on
 * the wire, not one waiting for its turn). Answers that arrive ahead of
 * their turn wait for it; beyond `memoryBudget` bytes of them, they wait in
 * the spill, on disk (held-answers.ts).
 *
 * With concurrency 1 the window holds one entry: exactly the sequential
 * crawl. With `fetchNext` it holds two: the next queued entry is requested
 * as soon as the head's answer has arrived and `fetchNext` allows it, so the
 * server works on it while the crawl saves and scans the head. Still one
 * request in flight at a time.
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
import type { FrontierEntry } from '../frontier/private-store.js';
import type { FetchResponse } from '../http/client.js';
import type { EarlyStagedPage } from '../sink/page-sink.js';
import type { HttpUrl } from '../url/http-url.js';
import type { BodySpill } from '../sink/body-spill.js';
import { HeldAnswers, type Held } from './held-answers.js';
import type { AheadLinks } from './links-on-rules.js';
import type { FetchOutcome } from './redirects.js';
import { HostLanes, type Lane } from './host-lanes.js';

/** A host whose turn is this close (ms) is asked now: the polite fetch waits out the rest precisely. */
const TURN_SLACK_MS = 5;

export interface LookaheadOptions {
  /** Takes the next frontier entry (undefined when none). */
  take: () => FrontierEntry | undefined;
  /** The URL of an entry. Throws CrawlerError for one that cannot be requested. */
  resolve: (entry: FrontierEntry) => HttpUrl;
  /** One polite request (its failure as a value). */
  fetch: (url: HttpUrl) => Promise<FetchOutcome>;
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
  /** Milliseconds until a request to `origin` may start (its politeness). Default: always 0. */
  waitTime?: (origin: string) => number;
  /**
   * Most entries taken and not yet handed out, whatever the hosts (default: 160 x concurrency, at
   * least 8 x concurrency): deep enough for a breadth-first depth of a broad crawl to give every host
   * work (a smaller bound started the last hosts late: docs/performance.md, The window and the fetch ahead).
   */
  maxTaken?: number;
  /** Where answers that arrived ahead wait beyond `memoryBudget` (default: none, all in memory). */
  spill?: BodySpill;
  /** Bytes of answers that arrived ahead kept in memory, bodies and fields (default DEFAULT_AHEAD_MEMORY of held-answers.ts). */
  memoryBudget?: number;
  /**
   * The page of an answer that arrived ahead of its turn, staged on disk at
   * once when the crawl will keep it (PageSink.stageEarly): its body leaves
   * memory, and in its turn only the publish is left. Undefined: not staged.
   */
  stageEarly?: (entry: FrontierEntry, url: HttpUrl, response: FetchResponse) => EarlyStagedPage | undefined;
  /**
   * Concurrency 1 only: whether the next queued entry may be requested once
   * the head's first hop ended this way (undefined: never). Answer false
   * where the crawl's visit of the head makes requests of its own (a
   * redirect hop), or the crawl may stop at the head.
   */
  fetchNext?: (outcome: FetchOutcome) => boolean;
  /** Links of an answered first hop that the crawl will follow when it reaches the page in order (see above). */
  discover?: (entry: FrontierEntry, url: HttpUrl, outcome: FetchOutcome) => AheadLinks;
}

interface Slot {
  entry: FrontierEntry;
  url: HttpUrl | undefined;
  resolveError: CrawlerError | undefined;
  outcome: Promise<FetchOutcome> | undefined;
  /** The outcome once it has arrived. */
  settled?: FetchOutcome;
  /** Its answer, while it waits for its turn. */
  held?: Held;
  /** In the queue (handed out in order), not only found ahead. */
  queued: boolean;
}

export interface Ready {
  entry: FrontierEntry;
  url: HttpUrl | undefined;
  /** The first hop's result; for an entry whose URL cannot be requested, its error. */
  outcome: FetchOutcome;
  /** The first hop's page, staged on disk while it waited (see `stageEarly`): publish it, or discard it. */
  staged?: EarlyStagedPage | undefined;
}

export class Lookahead {
  private readonly o: LookaheadOptions;
  /** Entries taken, in frontier order; `head` is the next to hand out. */
  private queue: Slot[] = [];
  private head = 0;
  /** Links found by scanning ahead, not yet queued, in the order found; by key. */
  private readonly ahead = new Map<string, Slot>();
  /** Each host's entries not started, and the heap of their turns (host-lanes.ts). */
  private readonly lanes: HostLanes<Slot>;
  private inFlight = 0;
  /** Answers that arrived ahead of their turn. */
  private readonly answers: HeldAnswers;
  private readonly size: number;
  private readonly maxTaken: number;
  private readonly waitTime: (origin: string) => number;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private closed = false;

  constructor(options: LookaheadOptions) {
    this.o = options;
    const c = options.concurrency;
    this.size = c > 1 ? c * 8 : options.fetchNext !== undefined ? 2 : 1;
    this.maxTaken = c > 1 ? Math.max(this.size, options.maxTaken ?? c * 160) : this.size;
    this.waitTime = options.waitTime ?? (() => 0);
    this.lanes = new HostLanes<Slot>({ perHost: options.perHost, maxAhead: options.maxAhead, waitTime: this.waitTime });
    this.answers = new HeldAnswers(options.spill, options.memoryBudget);
  }

  /** The next entry in frontier order with its first hop done, or undefined when the frontier is empty. */
  async next(): Promise<Ready | undefined> {
    this.fill();
    const head = this.queue[this.head];
    if (head === undefined) return undefined;
    this.pump();
    // The head is needed now: when its lane has not started it (its host's turn has not come, or links
    // found ahead hold the host's quota), it is started at once; the polite fetch waits for the turn.
    if (head.outcome === undefined) {
      if (head.url !== undefined) this.lanes.unlist(head, head.url.origin);
      this.start(head);
    }
    let outcome = await (head.outcome as unknown as Promise<FetchOutcome>);
    this.queue[this.head++] = undefined as unknown as Slot;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    const staged = this.restore(head, outcome);
    if (head.url !== undefined) {
      this.lanes.handedOut(head.url.origin);
      // The host may have been held back by maxAhead. Sequential: the crawl visits the head first.
      if (this.o.concurrency > 1) this.pump();
    }
    return { entry: head.entry, url: head.url, outcome, staged };
  }

  /**
   * The fetch of `url` started by scanning ahead, taken over by the caller
   * (a redirect's target fetched in its turn), or undefined when there is none.
   */
  takeOver(url: HttpUrl): Promise<FetchOutcome> | undefined {
    const slot = this.ahead.get(url.key);
    if (slot === undefined) return undefined;
    this.ahead.delete(url.key);
    if (slot.outcome === undefined) {
      this.lanes.unlist(slot, url.origin); // not started: the caller fetches it
      return undefined;
    }
    this.lanes.handedOut(url.origin);
    return slot.outcome.then((outcome) => (this.restore(slot, outcome, false), outcome));
  }

  /**
   * Links the crawl will follow once the page it is judging is completed
   * (PagePath's `ahead`: their host's robots.txt has come): fetched ahead
   * as links found by scanning ahead are, within the page budget, and at
   * most `concurrency` of them waiting at once (each answer waits for the
   * page to be completed, and a window's worth of them is memory at the
   * peak: docs/performance.md, Answers that wait).
   */
  fetchAhead(links: AheadLinks): void {
    if (this.closed) return;
    this.found(links, Math.min(this.o.budget() - this.taken, this.o.concurrency));
    this.pump();
  }

  /** True when a request other than the head's may be in flight. */
  get prefetching(): boolean {
    return this.inFlight > 0;
  }

  /** Stops the window: no request is started any more, the timer is cleared, the spill closed. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.answers.close();
  }

  /** Entries taken and not yet handed out. */
  private get taken(): number {
    return this.queue.length - this.head;
  }

  /**
   * Takes entries ahead: up to the window's size, and on, up to maxTaken,
   * while some host at hand waits for its turn and fewer hosts can start
   * now than requests could (a broad crawl's next depth, one host's pages
   * after another's, is taken far enough ahead to give every host work; an
   * entry waiting in a lane is a few hundred bytes). A crawl no interval
   * holds back (one host, delay 0) takes no further than the size: entries
   * held long are garbage that outlives the young generation, and the heap
   * grows for nothing.
   */
  private fill(): void {
    const budget = this.o.budget();
    const free = this.o.concurrency - this.inFlight;
    const soon = performance.now() + TURN_SLACK_MS;
    const heap = this.lanes.heap;
    let ready = this.maxTaken > this.size && free > 0 ? heap.countReady(soon, free) : free;
    // Counted in full when below `free`: the other lanes of the heap wait for their turn.
    let waiting = ready < free && heap.size > ready;
    while (this.taken < budget && this.taken < (waiting && ready < free ? this.maxTaken : this.size)) {
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
        found.queued = true;
        // The same key, but the host as this entry writes it (the output prints it).
        if (url !== undefined) found.url = url;
        this.queue.push(found);
        continue;
      }
      const slot: Slot = { entry, url, resolveError, outcome: undefined, queued: true };
      this.queue.push(slot);
      if (url === undefined) continue;
      // A lane already in the heap is counted above; one this entry puts there is counted now.
      const armed = this.lanes.armedAt(url.origin);
      const lane = this.lanes.list(slot, url.origin);
      if (armed === -1 && lane.at !== -1) {
        if (lane.readyAt <= soon) ready++;
        else waiting = true;
      }
    }
  }

  /** Records links found by scanning ahead (at most one window's worth waiting, and at most `most`). */
  private found(links: AheadLinks, most = Infinity): void {
    for (const { entry, url } of links) {
      if (this.ahead.size >= Math.min(this.size, most)) return;
      if (this.ahead.has(entry.key)) continue;
      const slot: Slot = { entry, url, resolveError: undefined, outcome: undefined, queued: false };
      this.ahead.set(entry.key, slot);
      this.lanes.list(slot, url.origin);
    }
  }

  /** Starts every slot whose host's turn has come, in the order of their turns, up to the concurrency. */
  private pump(): void {
    if (this.closed) return;
    // Requests could start and the hosts taken wait for their turn: take more (the crawl's consumer
    // may be waiting for the head's host, a second or more, and the hosts further on must not wait
    // for it). Out of entries instead (one host at delay 0), the crawl's next() takes them.
    if (this.startNow() && this.o.concurrency > 1 && this.maxTaken > this.size) {
      this.fill();
      this.startNow();
    }
  }

  /** Starts the ready lanes' next requests, up to the concurrency; true when it could start more but every host left waits for its turn. */
  private startNow(): boolean {
    const lanes = this.lanes;
    const heap = lanes.heap;
    while (this.inFlight < this.o.concurrency && heap.size > 0) {
      const lane = heap.top as Lane<Slot>;
      if (!lanes.startable(lane)) {
        heap.remove(lane); // its head was started out of turn (the crawl needed it): armed again when it ends
        continue;
      }
      const now = performance.now();
      if (lane.readyAt - now > TURN_SLACK_MS) {
        this.wake(lane.readyAt);
        return true;
      }
      // The key may be stale (a Crawl-delay learnt, a pause, back-off): ask again.
      const wait = this.waitTime(lane.origin);
      if (wait > TURN_SLACK_MS) {
        lane.readyAt = now + wait;
        heap.topLater();
        continue;
      }
      if (!this.sequentialAllows(lane.waiting[lane.next] as Slot)) return false;
      this.start(lanes.takeNext(lane));
      lanes.arm(lane);
    }
    return false;
  }

  /** Sequential (concurrency 1): a slot that is not the head waits for the head's answer and for fetchNext's leave. */
  private sequentialAllows(slot: Slot): boolean {
    if (this.o.concurrency > 1) return true;
    const head = this.queue[this.head];
    if (head === undefined || head === slot) return true;
    return head.settled !== undefined && this.o.fetchNext?.(head.settled) === true;
  }

  /** Runs pump when the earliest turn comes. */
  private wake(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.pump();
      },
      Math.max(0, at - performance.now() - TURN_SLACK_MS + 1),
    );
  }

  private start(slot: Slot): void {
    if (slot.url === undefined) {
      slot.outcome = Promise.resolve({ error: slot.resolveError as CrawlerError });
      return;
    }
    const url = slot.url;
    this.inFlight++;
    this.lanes.started(url.origin);
    slot.outcome = this.o.fetch(url);
    void slot.outcome.then((outcome) => {
      slot.settled = outcome;
      this.inFlight--;
      this.lanes.answered(url.origin);
      if (this.o.discover !== undefined && outcome.response !== undefined) this.found(this.o.discover(slot.entry, url, outcome));
      this.hold(slot, outcome);
      this.pump();
    });
  }

  /** An answer that waits for its turn (the head's is handed out at once); its page staged on disk when the crawl will keep it. */
  private hold(slot: Slot, outcome: FetchOutcome): void {
    const response = outcome.response;
    if (response === undefined || slot === this.queue[this.head]) return;
    let early: EarlyStagedPage | undefined;
    try {
      early = slot.url === undefined ? undefined : this.o.stageEarly?.(slot.entry, slot.url, response);
    } catch (err) {
      // Not staged (a full disk, say): it waits as any answer, and its turn's save says what is wrong.
      if (!isCrawlerError(err)) throw err;
    }
    slot.held = this.answers.hold(response, early);
  }

  /** Makes a slot's outcome whole again; returns its page staged early (kept only when `keepEarly`). */
  private restore(slot: Slot, outcome: FetchOutcome, keepEarly = true): EarlyStagedPage | undefined {
    const held = slot.held;
    slot.held = undefined;
    if (held === undefined || outcome.response === undefined) return undefined;
    return this.answers.restore(outcome.response, held, keepEarly);
  }
}
