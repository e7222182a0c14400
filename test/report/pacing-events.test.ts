/**
 * What the report's timeline draws of politeness: every change of a host's
 * pacing reaches politeness's observer (Crawl-delay, back-off, a Retry-After
 * pause, the delay factor), and nothing else does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Politeness } from '../../src/frontier/politeness.js';

test('the politeness observer hears each change of a host\'s pacing, with the interval then, the rest of a pause and the failure streak', () => {
  let now = 1000;
  const heard: string[] = [];
  const p = new Politeness({
    delayMs: 200,
    delayFactor: 2,
    clock: { now: () => now, sleep: async () => undefined },
    observer: (host, { intervalMs, pauseMs, failures }) => void heard.push(`${host} ${intervalMs} ${pauseMs} ${failures}`),
  });
  p.setHostDelay('h', 500); // Crawl-delay 0.5
  p.failed('h'); // back-off: doubled
  p.pause('h', 1000); // Retry-After: 1
  now += 400;
  p.pause('h', 100); // shorter than the pause in force: no change
  p.succeeded('h'); // restored
  p.succeeded('h'); // nothing to restore: no change
  p.responded('h', 300); // the delay factor: 2 x 300 ms
  p.stamp('h'); // a request start is no change of pacing
  assert.deepEqual(heard, ['h 500 0 0', 'h 1000 0 1', 'h 1000 1000 1', 'h 500 600 0', 'h 600 600 0']);
});
