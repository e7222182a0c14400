/**
 * SQLite's busy handler (better-sqlite3's `timeout`) waits for another
 * connection's lock, but not in every case: two processes that both hold a
 * shared lock and both want the exclusive one (as two workers do when they
 * open a new file together and switch it to WAL) would wait for each other
 * forever, so SQLite answers SQLITE_BUSY ("database is locked") to one of
 * them at once. A shared crawl's workers start together by design; the step
 * that met such a lock is tried again, within the same time limit.
 */

/** True for SQLite's "database is locked" errors (SQLITE_BUSY and its extended codes). */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

const pauseCell = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` (the store's calls are synchronous, like SQLite's own busy wait). */
function pauseSync(ms: number): void {
  Atomics.wait(pauseCell, 0, 0, ms);
}

/**
 * Runs `step`; while it fails with SQLITE_BUSY, runs it again after a short
 * pause (5 to 25 ms, random, so that two waiting processes do not retry in
 * step), until `timeoutMs` have passed. Then, or for any other error, the
 * error is thrown. `step` must be safe to run again (idempotent, or one
 * transaction that SQLite rolled back).
 */
export function retryWhileBusy<T>(step: () => T, timeoutMs: number, pause: (ms: number) => void = pauseSync, now: () => number = Date.now): T {
  const deadline = now() + timeoutMs;
  for (;;) {
    try {
      return step();
    } catch (err) {
      if (!isBusy(err) || now() >= deadline) throw err;
      pause(5 + Math.floor(Math.random() * 20));
    }
  }
}
