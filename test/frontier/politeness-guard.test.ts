/**
 * The arrival guard (politeness.ts): a host's next request waits its
 * interval and 0.5 % more (at most 20 ms), so that network delivery holding
 * one request back does not bring two closer than the interval at the
 * server; a shared crawl's host row carries the same. On an injected clock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClaimTiming } from '../../src/engine/claim-timing.js';
import type { Claim } from '../../src/frontier/claim-store.js';
import type { Clock } from '../../src/frontier/clock.js';
import { ARRIVAL_GUARD_MAX_MS, arrivalGuard, Politeness } from '../../src/frontier/politeness.js';

/** A clock moved by hand; sleep resolves once now() reaches its end. */
function manualClock(): Clock & { set(ms: number): void } {
  let now = 0;
  const sleepers: Array<{ until: number; wake: () => void }> = [];
  return {
    now: () => now,
    sleep: (ms) => new Promise<void>((wake) => sleepers.push({ until: now + ms, wake })),
    set(ms) {
      now = ms;
      for (const s of sleepers.splice(0)) {
        if (s.until <= now) s.wake();
        else sleepers.push(s);
      }
    },
  };
}

test('the guard: 0.5 % of the interval, at most 20 ms, nothing without an interval', () => {
  assert.equal(arrivalGuard(1000), 5);
  assert.equal(arrivalGuard(200), 1);
  assert.equal(arrivalGuard(60_000), ARRIVAL_GUARD_MAX_MS);
  assert.equal(arrivalGuard(0), 0);
});

test('the next request to a host waits its interval and the guard: 1.005 s at --delay 1, 0.201 s at 0.2, none at 0', () => {
  for (const [delayMs, guard] of [[1000, 5], [200, 1], [0, 0]] as const) {
    const clock = manualClock();
    const p = new Politeness({ delayMs, clock });
    p.stamp('http://a.test');
    clock.set(delayMs);
    assert.equal(p.waitTime('http://a.test'), guard, `delay ${delayMs}: at the interval, the guard is left`);
    clock.set(delayMs + guard);
    assert.equal(p.waitTime('http://a.test'), 0);
    assert.equal(p.waitTime('http://b.test'), 0, 'another host waits for nothing');
    assert.equal(p.intervalFor('http://a.test'), delayMs, 'the interval itself (reported, kept for --resume) is unchanged');
  }
});

test('turn: the second request\'s turn comes at the interval plus the guard, not before', async () => {
  const clock = manualClock();
  const p = new Politeness({ delayMs: 1000, clock });
  const release = await p.turn('http://a.test');
  release();
  let second = false;
  const next = p.turn('http://a.test').then((r) => ((second = true), r));
  for (const at of [999, 1000, 1004, 1004.5]) {
    clock.set(at);
    await new Promise((r) => setImmediate(r));
    assert.equal(second, false, `not at ${at} ms`);
  }
  clock.set(1005);
  (await next)();
  assert.equal(second, true);
});

test('a shared crawl: the host row\'s interval after a request carries the guard, so the next worker waits it too', () => {
  const p = new Politeness({ delayMs: 1000, clock: manualClock() });
  const claim = { kind: 'page', id: 1, token: 1, origin: 'http://a.test', key: 'http://a.test/', url: 'http://a.test/', depth: 0, delayMs: 1000, robots: undefined, clock: 0, attempts: 0, streak: 0, refusal: undefined } as Claim;
  const timing = new ClaimTiming(p);
  timing.take(claim);
  assert.equal(timing.after(claim, 0).intervalMs, 1005);
  p.setHostDelay('http://a.test', 5000); // a Crawl-delay of 5 s
  assert.equal(timing.after(claim, 0).intervalMs, 5020, 'at most 20 ms');
});
