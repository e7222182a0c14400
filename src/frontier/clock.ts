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
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};
