/**
 * The window's lanes (lookahead.ts): each host's entries not started yet,
 * in order, with what the host has going, and the heap of the lanes that
 * may start one now, keyed by the time their host's turn comes. The next
 * host whose turn has come is the heap's top: O(log hosts).
 */
import { TurnHeap, type Turn } from './turn-heap.js';

/** One host's entries not started yet, in order, and what it has going. */
export interface Lane<S> extends Turn {
  origin: string;
  waiting: Array<S | undefined>;
  /** Index of the first slot of `waiting` not started (those before it are started, and cleared). */
  next: number;
  inFlight: number;
  /** Started and not yet handed out. */
  ahead: number;
}

/** What the crawl allows each host. */
export interface LaneRules {
  /** Most requests in flight to one origin. */
  perHost: (origin: string) => number;
  /** Most entries of one origin started and not yet handed out. */
  maxAhead: (origin: string) => number;
  /** Milliseconds until a request to `origin` may start. */
  waitTime: (origin: string) => number;
}

export class HostLanes<S> {
  private readonly lanes = new Map<string, Lane<S>>();
  /** Lanes with a slot they may start, by readyAt. */
  readonly heap = new TurnHeap<Lane<S>>();

  constructor(private readonly rules: LaneRules) {}

  /** Puts a slot at the end of its host's lane; returns the lane. */
  list(slot: S, origin: string): Lane<S> {
    let lane = this.lanes.get(origin);
    if (lane === undefined) {
      lane = { origin, waiting: [], next: 0, inFlight: 0, ahead: 0, at: -1, readyAt: 0 };
      this.lanes.set(origin, lane);
    }
    lane.waiting.push(slot);
    this.arm(lane);
    return lane;
  }

  /** Whether `origin`'s lane is in the heap now (-1 when it is not, or there is no lane). */
  armedAt(origin: string): number {
    return this.lanes.get(origin)?.at ?? -1;
  }

  /** Takes a slot not started off its lane (it is started, or fetched by the caller, out of the lane's order). */
  unlist(slot: S, origin: string): void {
    const lane = this.lanes.get(origin);
    if (lane === undefined) return;
    const i = lane.waiting.indexOf(slot, lane.next);
    if (i !== -1) lane.waiting.splice(i, 1);
    if (lane.at !== -1 && !this.startable(lane)) this.heap.remove(lane);
    this.retire(lane);
  }

  /** Whether the lane's next slot may be started now, as far as the lane goes. */
  startable(lane: Lane<S>): boolean {
    return lane.next < lane.waiting.length && lane.inFlight < this.rules.perHost(lane.origin) && lane.ahead < this.rules.maxAhead(lane.origin);
  }

  /** The lane's next slot, taken off it (its turn has come; the caller starts it, calls `started`, then `arm`). */
  takeNext(lane: Lane<S>): S {
    this.heap.remove(lane);
    const slot = lane.waiting[lane.next] as S;
    // A started slot leaves its lane: kept there, its answer (the body) would outlive its page.
    lane.waiting[lane.next++] = undefined;
    if (lane.next > 64 && lane.next * 2 > lane.waiting.length) {
      lane.waiting = lane.waiting.slice(lane.next);
      lane.next = 0;
    }
    return slot;
  }

  /** A slot of `origin` started (in its lane's turn, or out of it: the crawl's head). */
  started(origin: string): void {
    const lane = this.lanes.get(origin);
    if (lane === undefined) return;
    lane.inFlight++;
    lane.ahead++;
    // Started out of the lane's turn (the crawl's head): the lane waits for it like for any of its own.
    if (lane.at !== -1 && !this.startable(lane)) this.heap.remove(lane);
  }

  /** A started slot of `origin` has its answer. */
  answered(origin: string): void {
    const lane = this.lanes.get(origin);
    if (lane === undefined) return;
    lane.inFlight--;
    this.retire(lane);
  }

  /** A slot of `origin` was handed out to the crawl. */
  handedOut(origin: string): void {
    const lane = this.lanes.get(origin);
    if (lane === undefined) return;
    lane.ahead--;
    this.retire(lane);
  }

  /** Puts the lane in the heap when it has a slot it may start, keyed by its host's turn. */
  arm(lane: Lane<S>): void {
    if (lane.at !== -1 || !this.startable(lane)) return;
    lane.readyAt = performance.now() + this.rules.waitTime(lane.origin);
    this.heap.push(lane);
  }

  /** Forgets a lane with nothing waiting, started or held; else arms it. */
  private retire(lane: Lane<S>): void {
    if (lane.next >= lane.waiting.length && lane.inFlight === 0 && lane.ahead === 0 && lane.at === -1) {
      this.lanes.delete(lane.origin);
      return;
    }
    this.arm(lane);
  }
}
