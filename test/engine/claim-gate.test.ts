/**
 * ClaimGate (src/engine/claim-gate.ts) on a clock the test drives: while
 * the store has nothing ready the lanes of one worker take turns asking (one
 * ask in flight, not one a lane); with work ready every lane asks at once; a
 * nudge wakes the lane sleeping on the store's wait; a stop ends the sleep.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { ClaimGate } from '../../src/engine/claim-gate.js';
import type { Claim, ClaimResult } from '../../src/frontier/claim-store.js';
import type { Clock } from '../../src/frontier/clock.js';

/** A clock whose time moves only in advance(). */
class ManualClock implements Clock {
  private t = 0;
  private timers: Array<{ at: number; resolve: () => void }> = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted === true) return resolve();
      this.timers.push({ at: this.t + ms, resolve });
      signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  }
  /** Moves time on by `ms`, wakes the sleepers due, and lets what they start run. */
  async advance(ms: number): Promise<void> {
    this.t += ms;
    const due = this.timers.filter((x) => x.at <= this.t);
    this.timers = this.timers.filter((x) => x.at > this.t);
    for (const x of due) x.resolve();
    await settle();
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await turn();
};

/** A store's claim endpoint: `ready` claims to give, else a wait; counts asks and the most in flight. */
function fakeStore(waitMs: number) {
  const s = { ready: 0, asks: 0, inFlight: 0, mostInFlight: 0 };
  const ask = async (): Promise<ClaimResult> => {
    s.asks++;
    s.inFlight++;
    s.mostInFlight = Math.max(s.mostInFlight, s.inFlight);
    await turn();
    s.inFlight--;
    if (s.ready > 0) {
      s.ready--;
      return { claim: { id: s.asks } as unknown as Claim };
    }
    return { waitMs };
  };
  return { s, ask };
}

test('while the store has nothing ready, the lanes take turns: one ask in flight after the first round, not one a lane', async () => {
  const clock = new ManualClock();
  const gate = new ClaimGate(clock, new AbortController().signal);
  const { s, ask } = fakeStore(50);
  const results: ClaimResult[] = [];
  const lanes = Array.from({ length: 8 }, () => gate.claim(ask).then((r) => void results.push(r)));
  await settle();
  assert.equal(s.asks, 8, 'with the gate free every lane asks');
  s.mostInFlight = 0;
  for (let i = 0; i < 5; i++) await clock.advance(50);
  assert.equal(s.asks, 8 + 5, 'one ask a wait, by the lane holding the turn');
  assert.equal(s.mostInFlight, 1);
  assert.equal(results.length, 0);
  // Work for every lane: each claim doubles the window, so the queued lanes ask several at once.
  s.ready = 8;
  await clock.advance(50);
  await Promise.all(lanes);
  assert.equal(results.length, 8);
  assert.ok(results.every((r) => 'claim' in r));
  assert.ok(s.mostInFlight > 1, 'the claims opened the window');
  assert.equal(s.asks, 8 + 5 + 8, 'every ask got a claim');
});

test('a wait answer shuts the window to one ask; claims open it again, doubling up to the lanes', async () => {
  const clock = new ManualClock();
  const gate = new ClaimGate(clock, new AbortController().signal, 4);
  const { s, ask } = fakeStore(50);
  s.ready = 100;
  const lane = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await gate.claim(ask);
  };
  await Promise.all([lane(), lane(), lane(), lane(), lane(), lane()]);
  assert.equal(s.mostInFlight, 4, 'never more asks at once than the lanes given');
  s.mostInFlight = 0;
  s.ready = 0;
  const more = Array.from({ length: 6 }, () => gate.claim(ask));
  await settle();
  assert.equal(s.asks, 30 + 4, 'the window was 4 when the store ran dry');
  s.mostInFlight = 0;
  await clock.advance(50);
  assert.equal(s.mostInFlight, 1, 'then one ask at a time');
  s.ready = 6;
  await clock.advance(50);
  await Promise.all(more);
  assert.equal(s.mostInFlight, 4);
});

test('with work ready, every lane asks at once', async () => {
  const gate = new ClaimGate(new ManualClock(), new AbortController().signal);
  const { s, ask } = fakeStore(50);
  s.ready = 6;
  const results = await Promise.all(Array.from({ length: 6 }, () => gate.claim(ask)));
  assert.ok(results.every((r) => 'claim' in r));
  assert.equal(s.mostInFlight, 6);
});

test('nudge() wakes the lane sleeping on a long wait at once; busy says whether a lane would wait in line', async () => {
  const clock = new ManualClock();
  const gate = new ClaimGate(clock, new AbortController().signal, 4);
  const { s, ask } = fakeStore(10_000);
  assert.equal(gate.busy, false, 'nothing asked yet: a lane asks at once');
  void gate.claim(ask);
  await settle(); // asked, sleeps 10 s
  assert.equal(gate.busy, true, 'a lane sleeps on the wait: another would queue');
  const asked = s.asks;
  gate.nudge();
  await settle();
  assert.equal(s.asks, asked + 1, 'asked again at once, not after 10 s');
  s.ready = 1;
  gate.nudge();
  await settle();
  assert.equal(gate.busy, false, 'a claim given: the window is open again');
});

test('a stop ends the turn holder\'s sleep: every lane returns the store\'s last answer, none hangs', async () => {
  const clock = new ManualClock();
  const stop = new AbortController();
  const gate = new ClaimGate(clock, stop.signal);
  const { ask } = fakeStore(60_000);
  const lanes = Array.from({ length: 3 }, () => gate.claim(ask));
  await settle();
  await clock.advance(60_000);
  stop.abort();
  const results = await Promise.all(lanes);
  assert.equal(results.length, 3);
  assert.ok(results.every((r) => 'waitMs' in r));
});
