/**
 * When a request reached a test server, measured honestly on a loaded
 * machine. A server in this process notes a request when the event loop gets
 * to it, which can be long after its bytes arrived: the process was
 * descheduled (a busy two-core machine) or busy with something else. So a
 * noted time alone can make a gap between two request starts look shorter
 * than the crawler made it, and a fixed slack either hides impoliteness on
 * an idle machine or fails on a loaded one.
 *
 * Instead each arrival is a window. While a server is open a timer ticks
 * every millisecond. The loop polls for I/O after the timers of each turn,
 * and a request noted in one turn was not there at the previous turn's poll,
 * which came after the tick before the latest one: so the request arrived
 * after that tick (`after`) and by the time it was noted (`at`). The first
 * request of a connection counts from the tick before its connection was
 * accepted (its socket is watched for data only from then). On an idle
 * machine the window is a millisecond or two; when this process was stalled,
 * it spans the stall, and only then.
 *
 * A politeness check then asks whether the request starts could have been
 * `delay` apart: the latest arrival of the second (`at`) minus the earliest
 * of the first (`after`). It fails only when they were certainly closer than
 * the delay; the bound itself is never lowered.
 */
import assert from 'node:assert/strict';

/** A request's arrival: after `after`, by `at` (performance.now() ms). */
export interface Arrival {
  /** When the server noted it (the latest it can have arrived). */
  at: number;
  /** The earliest it can have arrived. */
  after: number;
}

let latest = -Infinity;
let before = -Infinity;
let users = 0;
let timer: NodeJS.Timeout | undefined;

/** Starts the tick while a server is open; call the returned function when it closes. */
export function watchArrivals(): () => void {
  users++;
  if (timer === undefined) {
    latest = before = performance.now();
    timer = setInterval(() => {
      before = latest;
      latest = performance.now();
    }, 1);
    timer.unref();
  }
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--users === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** Called when a server notes a request (or accepts a connection): its arrival window now. */
export function arrivalNow(): Arrival {
  return { at: performance.now(), after: before };
}

/**
 * The longest time, in ms, that can have passed between two request
 * starts, given their arrivals (the first before the second).
 */
export function longestGap(first: Arrival, second: Arrival): number {
  return second.at - first.after;
}

/** The shortest time, in ms, that can have passed between two request starts (for an upper bound). */
export function shortestGap(first: Arrival, second: Arrival): number {
  return second.after - first.at;
}

/**
 * Consecutive request starts in `arrivals` (in order) at least `ms` apart:
 * fails only when two were certainly closer. `name` labels each arrival in
 * the message.
 */
export function assertStartsApart(arrivals: readonly Arrival[], ms: number, what: string, name: (i: number) => string = (i) => `#${i}`): void {
  for (let i = 1; i < arrivals.length; i++) {
    const a = arrivals[i - 1] as Arrival;
    const b = arrivals[i] as Arrival;
    const longest = longestGap(a, b);
    assert.ok(
      longest >= ms,
      `${what}: ${name(i - 1)} and ${name(i)} started at most ${(longest / 1000).toFixed(3)} s apart (noted ${((b.at - a.at) / 1000).toFixed(3)} s), below ${ms / 1000} s`,
    );
  }
}
