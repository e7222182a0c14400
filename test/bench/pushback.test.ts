/**
 * The push-back scenario's arithmetic (bench/pushback-bench.ts): the ideal
 * time of a crawl whose server refuses some requests with a pause, and the
 * count of requests that arrived inside a pause.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pauseViolations, pushbackIdeal } from '../../bench/pushback-bench.js';

describe('pushbackIdeal', () => {
  it('is one delay per gap when nothing is refused', () => {
    assert.ok(Math.abs(pushbackIdeal(11, 0, 0.1, 1) - 1) < 1e-9);
  });
  it('puts the pause in place of the delay after each refused request', () => {
    // 26 requests, 25 gaps: 20 at 0.1 s and 5 pauses of 1 s.
    assert.ok(Math.abs(pushbackIdeal(26, 5, 0.1, 1) - 7) < 1e-9);
  });
  it('takes the backed-off interval (twice the delay) when it is longer than the pause', () => {
    assert.ok(Math.abs(pushbackIdeal(3, 1, 0.8, 1) - 2.4) < 1e-9);
  });
  it('is 0 for fewer than two requests', () => {
    assert.equal(pushbackIdeal(1, 0, 0.1, 1), 0);
  });
});

describe('pauseViolations', () => {
  it('counts the arrivals within the pause after each refusal, not the refused request itself', () => {
    const arrivals = [0, 100, 200, 1199, 1250, 2300];
    const v = pauseViolations(arrivals, [200, 1250], 1000);
    assert.equal(v.inside, 1); // 1199 is 999 ms after the refusal at 200
    assert.equal(v.leastGapMs, 999);
  });
  it('finds none when every next request waited the pause out', () => {
    const v = pauseViolations([0, 100, 1100, 1200], [100], 1000);
    assert.deepEqual(v, { inside: 0, leastGapMs: 1000 });
  });
});
