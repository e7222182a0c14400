/**
 * The system clock's sleeps on a crawl's stop signal: a crawl has one
 * signal and up to --concurrency requests sleeping for their host's turn on
 * it. However many sleep, the signal carries one 'abort' listener (no
 * MaxListenersExceededWarning past EventTarget's limit of 10), an abort
 * wakes them all at once, and a signal whose sleeps ended carries none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { systemClock } from '../../src/frontier/clock.js';

/** Warnings the process emits while `body` runs and for one turn of the event loop after. */
async function warningsDuring(body: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (w: Error): void => void seen.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    await body();
    // Node emits a warning on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', onWarning);
  }
  return seen;
}

test('1000 sleeps on one signal: one abort listener, no warning, and the abort wakes every one at once', async () => {
  const stop = new AbortController();
  const warnings = await warningsDuring(async () => {
    const started = performance.now();
    const sleeps = Array.from({ length: 1000 }, () => systemClock.sleep(60_000, stop.signal));
    assert.equal(getEventListeners(stop.signal, 'abort').length, 1, 'one listener, whatever the number of sleepers');
    stop.abort();
    await Promise.all(sleeps);
    assert.ok(performance.now() - started < 5000, 'woken by the abort, not by their timers');
  });
  assert.deepEqual(warnings, []);
  assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
});

test('sleeps that run out leave no listener on the signal; a sleep after them listens again', async () => {
  const stop = new AbortController();
  const warnings = await warningsDuring(async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => systemClock.sleep(1 + (i % 5), stop.signal)));
    assert.equal(getEventListeners(stop.signal, 'abort').length, 0, 'the last sleeper to wake removed the listener');
    // Some sleeps run out while others still sleep: the listener stays for those.
    const short = systemClock.sleep(1, stop.signal);
    const long = systemClock.sleep(60_000, stop.signal);
    await short;
    assert.equal(getEventListeners(stop.signal, 'abort').length, 1);
    const started = performance.now();
    stop.abort();
    await long;
    assert.ok(performance.now() - started < 1000, 'the long sleep ended at the abort');
  });
  assert.deepEqual(warnings, []);
  assert.equal(getEventListeners(stop.signal, 'abort').length, 0);
});

test('a sleep without a signal, or on a signal already aborted, still keeps its contract', async () => {
  const started = performance.now();
  await systemClock.sleep(20);
  assert.ok(performance.now() - started >= 19, 'slept its time');
  const stopped = AbortSignal.abort();
  const t0 = performance.now();
  await systemClock.sleep(60_000, stopped);
  assert.ok(performance.now() - t0 < 1000, 'an aborted signal does not sleep');
  assert.equal(getEventListeners(stopped, 'abort').length, 0);
});
