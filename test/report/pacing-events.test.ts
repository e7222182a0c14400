/**
 * What the report's timeline draws of politeness: every change of a host's
 * pacing reaches politeness's observer (Crawl-delay, back-off, a Retry-After
 * pause, the delay factor), and nothing else does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Politeness } from '../../src/frontier/politeness.js';
import { hostEvents } from '../../src/engine/events.js';

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

test('every change during one pause gives the same end, however late an observer reads the time (the report counts one pause for one 429)', () => {
  const ends: Array<number | undefined> = [];
  let first = true;
  const p = new Politeness({
    delayMs: 0,
    // An observer told first that takes 20 ms once, as a process descheduled on a loaded machine would.
    observer: () => {
      if (!first) return;
      first = false;
      const until = performance.now() + 20;
      while (performance.now() < until);
    },
  });
  p.observe(hostEvents((e) => void (e.type === 'host' && ends.push(e.pausedUntil))));
  p.pause('h', 5000); // the 429's Retry-After
  p.failed('h'); // and its back-off, during the pause
  p.succeeded('h');
  assert.equal(ends.length, 3);
  assert.ok(ends[0] !== undefined && ends[0] > Date.now() + 4000, String(ends[0]));
  assert.deepEqual(ends, [ends[0], ends[0], ends[0]]);
});
