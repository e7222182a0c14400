/**
 * The scale section's arithmetic with latency (bench/scale-bench.ts): rows
 * from several rounds, and speed-ups paired by round.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rowOfRounds, scaleProblems, speedUpsOf, type RoundRuns, type ScaleResults } from '../../bench/scale-bench.js';

describe('rowOfRounds', () => {
  it('takes the median seconds and pages/s, and keeps every round', () => {
    const row = rowOfRounds('postgresql', 20, 8, { pages: [1600, 1600, 1600], seconds: [7.2, 6.4, 6.6] });
    assert.equal(row.seconds, 6.6);
    assert.equal(row.pagesPerSecond, Math.round(1600 / 6.6));
    assert.deepEqual(row.roundSeconds, [7.2, 6.4, 6.6]);
    assert.equal(row.pages, 1600);
  });
  it('reports the fewest pages any round saved, so one short round shows', () => {
    const row = rowOfRounds('postgresql', 20, 4, { pages: [1600, 1597, 1600], seconds: [11, 11, 11] });
    assert.equal(row.pages, 1597);
  });
});

describe('speedUpsOf', () => {
  it('is the median of the per-round ratios to one worker in the same round, not a ratio of medians', () => {
    // A slow machine in round 2 slows both rows: paired, its ratio is as good as the others.
    const byWorkers = new Map<number, RoundRuns>([
      [1, { pages: [1600, 1600, 1600], seconds: [40, 60, 42] }],
      [8, { pages: [1600, 1600, 1600], seconds: [6.4, 9.6, 7.0] }],
    ]);
    const s = speedUpsOf(byWorkers);
    assert.equal(s['1'], 1);
    assert.equal(s['8'], 6.25); // rounds: 6.25, 6.25, 6.0
    // Medians unpaired would say 42 / 7.0 = 6.0.
  });
  it('counts pages/s, so a round that saved fewer pages is slower', () => {
    const s = speedUpsOf(
      new Map<number, RoundRuns>([
        [1, { pages: [1600], seconds: [40] }],
        [4, { pages: [800], seconds: [10] }],
      ]),
    );
    assert.equal(s['4'], 2);
  });
  it('is empty without the one-worker row to compare with', () => {
    assert.deepEqual(speedUpsOf(new Map([[4, { pages: [1600], seconds: [10] }]])), {});
  });
});

describe('scaleProblems', () => {
  const results = (speedUp8: number, pages8 = 1600): ScaleResults => ({
    pages: 2000,
    rows: [],
    skipped: undefined,
    sqlite1M: undefined,
    latency: {
      pages: 1600,
      hosts: 20,
      latencyMs: 100,
      rounds: 3,
      rows: [rowOfRounds('postgresql', 20, 8, { pages: [1600, pages8, 1600], seconds: [6, 6, 6] })],
      speedUps: { '8': speedUp8 },
      targets: [{ workers: 8, target: 6, speedUp: speedUp8, met: speedUp8 >= 6 }],
    },
  });
  it('names a target not met, with the measured speed-up', () => {
    assert.deepEqual(scaleProblems(results(5.99)), ['scale, 100 ms latency: 8 PostgreSQL workers 5.99x one worker (target >= 6x)']);
  });
  it('names a row that saved fewer pages in any round', () => {
    assert.deepEqual(scaleProblems(results(6.5, 1590)), ['scale, 100 ms latency: postgresql 8 worker(s) saved 1590 of 1600 pages']);
  });
  it('says nothing when every target is met and every page saved', () => {
    assert.deepEqual(scaleProblems(results(6.5)), []);
  });
});
