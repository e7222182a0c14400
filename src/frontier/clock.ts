/**
 * Time, injected: the scheduler asks a Clock instead of calling Date.now()
 * and setTimeout, so tests can drive it without real sleeps.
 */

export interface Clock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Resolves after `ms` milliseconds (0: after pending I/O), or early (without error) when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: performance.now() and timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      if (ms <= 0) {
        // A zero wait still yields to I/O (the caller loops on the clock).
        setImmediate(resolve);
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        forget?.();
        resolve();
      };
      const timer = setTimeout(done, ms);
      const forget = signal === undefined ? undefined : onAbort(signal, done);
    }),
};

/** The sleepers on one signal, and the one listener that wakes them. */
class Sleepers {
  readonly wakes = new Set<() => void>();
  readonly wakeAll = (): void => {
    for (const w of this.wakes) w();
  };
}

/**
 * The sleepers of each signal. A crawl has one stop signal and as many
 * sleepers on it as requests waiting for their host's turn (up to
 * --concurrency): one 'abort' listener each would pass EventTarget's limit
 * of 10 and print a MaxListenersExceededWarning. So each signal gets one
 * listener while it has sleepers, and that listener wakes them all.
 * Weak keys: a signal that is gone takes its entry with it.
 */
const sleepersOf = new WeakMap<AbortSignal, Sleepers>();

/**
 * Calls `wake` once when `signal` (not aborted yet) aborts, through the
 * signal's one shared listener. The returned function forgets `wake`; the
 * last one forgotten removes the listener.
 */
function onAbort(signal: AbortSignal, wake: () => void): () => void {
  let sleepers = sleepersOf.get(signal);
  if (sleepers === undefined) {
    sleepers = new Sleepers();
    sleepersOf.set(signal, sleepers);
    signal.addEventListener('abort', sleepers.wakeAll, { once: true });
  }
  const own = sleepers;
  own.wakes.add(wake);
  return () => {
    if (!own.wakes.delete(wake) || own.wakes.size > 0 || sleepersOf.get(signal) !== own) return;
    sleepersOf.delete(signal);
    signal.removeEventListener('abort', own.wakeAll);
  };
}
