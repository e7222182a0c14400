/**
 * Per-host politeness (spec decision "Politeness means request starts"): the
 * least time between the starts of two requests to one host is the larger of
 * the crawl's delay and the host's robots.txt Crawl-delay. The wait is
 * measured from the last request start, so parsing and writing that happen
 * in between overlap the wait instead of adding to it.
 */
import { systemClock, type Clock } from './clock.js';

/** How long before a turn the timer wakes (the rest is waited out by yielding). */
const EARLY_WAKE_MS = 3;

export interface PolitenessOptions {
  /** The crawl-wide least interval between request starts to one host, in ms. */
  delayMs: number;
  /** --delay-factor: each host's interval is at least this times its last response's duration (0: off). */
  delayFactor?: number;
  clock?: Clock;
  /** Told after each change of a host's pacing (Crawl-delay, back-off, a pause, the delay factor): the crawl report draws them. */
  observer?: PacingObserver;
}

/**
 * A host's pacing just after a change: its interval now, the rest of a pause
 * asked for (ms, 0 when none) and when that pause ends (epoch ms: the same
 * number at every change during one pause), consecutive failures.
 */
export type PacingObserver = (host: string, pacing: { intervalMs: number; pauseMs: number; pausedUntil: number | undefined; failures: number; refusal?: string | undefined }) => void;

/**
 * A moment of `clock` as epoch ms. The real clock is performance.now(), so
 * that is exact and reads nothing (two reads of the time, one after the other,
 * may be a scheduler's time slice apart on a loaded machine); an injected
 * clock is mapped through the time now.
 */
function epochOf(clock: Clock, t: number): number {
  return clock === systemClock ? performance.timeOrigin + t : performance.timeOrigin + performance.now() + (t - clock.now());
}

/** The longest interval back-off makes (spec decision: doubled per failure, capped at 60 s). */
export const MAX_BACKOFF_MS = 60_000;

/**
 * Time added to a host's interval before its next request may start, so
 * that the interval holds where the spec decision measures it: at the
 * server. A request is stamped once its bytes are handed to the socket; on
 * their way the network (on one machine, the kernel's loopback under load)
 * can hold one request back and let the next through at once, and on a
 * saturated machine the broad bench's server saw such pairs below the
 * interval; this guard covers most of them, not a delivery later than it
 * (docs/performance.md, The interval at the server).
 * 0.5 % of the interval, at most ARRIVAL_GUARD_MAX_MS: 5 ms at 1 s, 1 ms at
 * 0.2 s; nothing with no interval. The share is what the politeness
 * bench's target (at most 2 % over N x D at --delay 0.05) leaves once the
 * crawler's own overhead is counted; a larger guard misses it.
 */
export const ARRIVAL_GUARD_MAX_MS = 20;

/** The guard for an interval of `ms` (see ARRIVAL_GUARD_MAX_MS). */
export function arrivalGuard(ms: number): number {
  return Math.min(ARRIVAL_GUARD_MAX_MS, ms * 0.005);
}

/**
 * How late, at most, a request is taken to have reached the server when its
 * answer came late: a share of the host's interval (5 %: 50 ms at 1 s).
 * The guard above is the same for every request; this is for one whose
 * answer says it may have been held back. A request reaches the server at
 * the latest when the server begins its answer, and no answer of the host
 * has come sooner after its request than the least seen (the host's least
 * time to a first byte): so an answer that came X ms later than that
 * counts its request's start X ms later (at most this share), and the next
 * request to the host waits its interval from there. Shared workers on
 * busy cores put hosts below the interval at the server without it, while
 * their own clocks kept it: the kernel's loopback delivered a request late
 * (docs/performance.md, The interval at the server).
 */
export function lateShare(ms: number): number {
  return ms * 0.05;
}

/**
 * Lateness of a first byte not taken as the server's (see lateShare): the
 * time it is noticed depends on this process's own turns too. At --delay
 * 0.05 on an idle machine, moving starts by any lateness beyond the guard
 * cost the politeness bench 0.6 to 0.9 % more time (2.4 to 2.8 % over N x D,
 * its target 2 %).
 */
const LATE_FLOOR_MS = 2;

export class Politeness {
  private readonly delayMs: number;
  private readonly clock: Clock;
  private readonly lastStart = new Map<string, number>();
  /** Each host's least time from a request start to its answer's first byte (see lateShare). */
  private readonly leastAnswer = new Map<string, number>();
  private readonly hostDelay = new Map<string, number>();
  private readonly tails = new Map<string, Promise<void>>();

  /** F times each host's last response duration (--delay-factor), when F > 0. */
  private readonly responseFloor = new Map<string, number>();
  private readonly delayFactor: number;
  /** Consecutive failed tries per host (back-off). */
  private readonly failures = new Map<string, number>();
  /** Hosts a server asked to pause (Retry-After), until when (the clock's ms). */
  private readonly pausedUntil = new Map<string, number>();
  /** Hosts that asked for a pause beyond --max-retry-after: why nothing more is requested of them. */
  private readonly refusals = new Map<string, string>();
  private readonly observers: PacingObserver[] = [];

  constructor(options: PolitenessOptions) {
    this.delayMs = options.delayMs;
    this.delayFactor = options.delayFactor ?? 0;
    this.clock = options.clock ?? systemClock;
    if (options.observer !== undefined) this.observers.push(options.observer);
  }

  /** Tells the observer, if any, of `host`'s pacing now. */
  private changed(host: string): void {
    if (this.observers.length === 0) return;
    const paused = this.pausedUntil.get(host);
    const pauseMs = paused === undefined ? 0 : Math.max(0, paused - this.clock.now());
    const pacing = { intervalMs: this.intervalFor(host), pauseMs, pausedUntil: pauseMs > 0 ? epochOf(this.clock, paused as number) : undefined, failures: this.failures.get(host) ?? 0, refusal: this.refusals.get(host) };
    for (const o of this.observers) o(host, pacing);
  }

  /** Adds an observer of the hosts' pacing (the crawl report; the crawl state, which keeps pauses for --resume). */
  observe(observer: PacingObserver): void {
    this.observers.push(observer);
  }

  /** Sets a host's own least interval (robots.txt Crawl-delay), in ms. */
  setHostDelay(host: string, ms: number | undefined): void {
    if (ms === undefined) this.hostDelay.delete(host);
    else this.hostDelay.set(host, ms);
    this.changed(host);
  }

  /**
   * A host's least interval before back-off and the delay factor: the larger
   * of --delay and its own (robots.txt Crawl-delay). The one place it is
   * computed: a shared crawl keeps it on the host's row from here.
   */
  hostInterval(host: string): number {
    return Math.max(this.delayMs, this.hostDelay.get(host) ?? 0);
  }

  /** The interval that applies to `host` now: hostInterval, at least the delay factor's floor, doubled per consecutive failure (at most 60 s). */
  intervalFor(host: string): number {
    const base = Math.max(this.hostInterval(host), this.responseFloor.get(host) ?? 0);
    const streak = this.failures.get(host);
    return streak === undefined ? base : Math.max(base, Math.min(MAX_BACKOFF_MS, base * 2 ** streak));
  }

  /** A try at `host` failed in a way that says the server struggles: its interval doubles (spec decision "When the server pushes back"). */
  failed(host: string): void {
    this.failures.set(host, Math.min(30, (this.failures.get(host) ?? 0) + 1));
    this.changed(host);
  }

  /**
   * The last response from `host` took `ms` (request start to last byte):
   * with a delay factor F, the host's interval is at least F times that
   * (Heritrix's delay factor: a slower server gets more time).
   */
  responded(host: string, ms: number): void {
    if (this.delayFactor <= 0) return;
    this.responseFloor.set(host, this.delayFactor * ms);
    this.changed(host);
  }

  /** The host's consecutive failures (its back-off streak). */
  streakOf(host: string): number {
    return this.failures.get(host) ?? 0;
  }

  /** Sets the host's back-off streak (a shared crawl keeps it on the host's row, for every worker). */
  setStreak(host: string, streak: number): void {
    const was = this.failures.get(host) ?? 0;
    if (streak > 0) this.failures.set(host, Math.min(30, streak));
    else this.failures.delete(host);
    if ((this.failures.get(host) ?? 0) !== was) this.changed(host);
  }

  /** A try at `host` succeeded: its interval is restored. */
  succeeded(host: string): void {
    if (this.failures.delete(host)) this.changed(host);
  }

  /** Milliseconds until a request to `host` may start (0 when it may now): its interval, and a pause the server asked for. */
  waitTime(host: string): number {
    const last = this.lastStart.get(host);
    const paused = this.pausedUntil.get(host);
    if (last === undefined && paused === undefined) return 0;
    const now = this.clock.now();
    const interval = this.intervalFor(host);
    return Math.max(0, last === undefined ? 0 : last + interval + arrivalGuard(interval) - now, paused === undefined ? 0 : paused - now);
  }

  /**
   * Pauses `host` for `ms` from now (a server's Retry-After): no request to
   * it starts before then, robots.txt included. A shorter pause never cuts
   * a longer one short.
   */
  pause(host: string, ms: number): void {
    const until = this.clock.now() + ms;
    if (until <= (this.pausedUntil.get(host) ?? Number.NEGATIVE_INFINITY)) return;
    this.pausedUntil.set(host, until);
    this.changed(host);
  }

  /**
   * A server asked for a pause longer than the crawl grants (beyond
   * --max-retry-after): nothing more is requested of `host`, and its waiting
   * pages fail with `reason`, which quotes the server, rather than waiting.
   */
  refuse(host: string, reason: string): void {
    if (this.refusals.has(host)) return;
    this.refusals.set(host, reason);
    this.changed(host);
  }

  /** Why `host` is no longer asked anything, or undefined. */
  refusalOf(host: string): string | undefined {
    return this.refusals.get(host);
  }

  /** When the host's pause ends (the clock's ms), or undefined when it was never paused. */
  pausedUntilOf(host: string): number | undefined {
    return this.pausedUntil.get(host);
  }

  /** Waits until a request to `host` may start. Returns early when `signal` aborts. */
  async wait(host: string, signal?: AbortSignal): Promise<void> {
    // Loop: a timer may fire a hair early, and the interval may have been
    // raised (Crawl-delay learned) while we slept.
    // Timers fire up to a few ms late: sleep to just short of the turn, then
    // yield turn by turn (setImmediate) for the last stretch, so the request
    // starts within a fraction of a millisecond of the interval, not 1-2 ms past.
    for (let ms = this.waitTime(host); ms > 0 && !signal?.aborted; ms = this.waitTime(host)) {
      if (ms > EARLY_WAKE_MS) await this.clock.sleep(ms - EARLY_WAKE_MS, signal);
      else await this.clock.sleep(0, signal);
    }
  }

  /**
   * Takes the host's turn: waits for every earlier holder to release, then
   * for the interval. The returned function stamps the request start and
   * passes the turn on; call it once, when the request is written (or given
   * up). Concurrent callers for one host are served one at a time, in order,
   * so no two request starts come closer than the interval.
   */
  async turn(host: string, signal?: AbortSignal): Promise<() => void> {
    const previous = this.tails.get(host) ?? Promise.resolve();
    let pass!: () => void;
    const mine = new Promise<void>((resolve) => (pass = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(host, tail);
    await previous;
    await this.wait(host, signal);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.stamp(host);
      pass();
      if (this.tails.get(host) === tail) this.tails.delete(host);
    };
  }

  /** When the last request to `host` started (the clock's ms), or undefined when none has. */
  lastStartOf(host: string): number | undefined {
    return this.lastStart.get(host);
  }

  /**
   * The first byte of the answer to the request to `host` that started at
   * `startedAt` (the clock's ms, as lastStartOf gave it) has come now. When
   * it came later than the host's least time to a first byte, that request
   * may have reached the server as much later: the host's last start moves
   * by what is beyond the arrival guard and LATE_FLOOR_MS (at most
   * lateShare of its interval in all), unless a later one started.
   */
  answered(host: string, startedAt: number): void {
    const took = this.clock.now() - startedAt;
    const least = Math.min(this.leastAnswer.get(host) ?? took, took);
    this.leastAnswer.set(host, least);
    // The guard is added to every interval already: only lateness beyond it, and beyond what this
    // process's own turns make of a first byte's time, moves the start.
    const interval = this.intervalFor(host);
    const late = Math.min(took - least, lateShare(interval)) - Math.max(arrivalGuard(interval), LATE_FLOOR_MS);
    if (late > 0 && startedAt + late > (this.lastStart.get(host) ?? Number.NEGATIVE_INFINITY)) this.lastStart.set(host, startedAt + late);
  }

  /** Records that a request to `host` starts now. */
  stamp(host: string): void {
    this.lastStart.set(host, this.clock.now());
  }
}
