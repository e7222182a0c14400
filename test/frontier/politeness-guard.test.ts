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
import { ARRIVAL_GUARD_MAX_MS, arrivalGuard, lateShare, Politeness } from '../../src/frontier/politeness.js';

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

/** A request to `host` written at `at` whose answer's first byte came `took` ms later; the host's last start after it. */
function request(p: Politeness, clock: ReturnType<typeof manualClock>, host: string, at: number, took: number): number | undefined {
  clock.set(at);
  p.stamp(host);
  clock.set(at + took);
  p.answered(host, at);
  return p.lastStartOf(host);
}

test('a late answer: its request may have reached the server late, so the host\'s next request waits from as much later (beyond the guard and 2 ms, at most 5 % of the interval)', () => {
  const clock = manualClock();
  const p = new Politeness({ delayMs: 1000, clock });
  const h = 'http://a.test';
  assert.equal(lateShare(1000), 50);
  assert.equal(request(p, clock, h, 0, 100), 0, 'the first answer sets the least (100 ms): nothing moves');
  assert.equal(request(p, clock, h, 2000, 105), 2000, '5 ms later than the least: within the guard (5 ms at 1 s)');
  assert.equal(request(p, clock, h, 4000, 130), 4025, '30 ms later: the start counts 25 ms later (the guard covers 5)');
  assert.equal(p.waitTime(h), 4025 + 1000 + 5 - 4130, 'the next request waits from there');
  assert.equal(request(p, clock, h, 6000, 500), 6045, '400 ms later: at most 5 % of the interval in all (50 ms), 45 beyond the guard');
  // An answer to an earlier request that comes after a later one started moves nothing back.
  clock.set(8000);
  p.stamp(h);
  p.answered(h, 6000);
  assert.equal(p.lastStartOf(h), 8000);
  assert.equal(request(p, clock, h, 10_000, 50), 10_000, 'a faster answer lowers the least to 50 ms');
  assert.equal(request(p, clock, h, 12_000, 90), 12_035, '40 ms later than the new least: 35 beyond the guard');
});

test('a late answer at a short interval: 2 ms of a first byte\'s time are taken as this process\'s own turns; no interval, nothing moves', () => {
  const clock = manualClock();
  const p = new Politeness({ delayMs: 50, clock });
  const h = 'http://b.test';
  request(p, clock, h, 0, 1);
  assert.equal(request(p, clock, h, 100, 2.5), 100, '1.5 ms late: within 2 ms');
  assert.equal(request(p, clock, h, 200, 11), 200.5, 'at most 5 % of 50 ms (2.5), less the 2 ms');
  const none = new Politeness({ delayMs: 0, clock });
  request(none, clock, h, 300, 1);
  assert.equal(request(none, clock, h, 900, 600), 900);
});
