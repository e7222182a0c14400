/**
 * The hosts' pacing a private crawl keeps across a restart
 * (src/frontier/pacing-state.ts; spec decision "When the server pushes
 * back"): a pause, a back-off streak and a refusal written to the page
 * directory and given back on --resume, forgotten by a new crawl; a damaged
 * file is one clear error.
 */
// run-tests: serial (a restored pause read within 100 ms of its restore, an upper bound that a stall of this process behind other test files could break)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCrawlerError } from '../../src/errors.js';
import { PACING_FILE, PacingState } from '../../src/frontier/pacing-state.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('pacing-');
const H = 'http://127.0.0.1:8001';
const K = 'http://127.0.0.1:8002';

test('a pause, a back-off streak and a refusal are kept in the page directory and given back on resume; a new crawl forgets them', () => {
  const dir = temp();
  let now = 1_000_000;
  const first = new PacingState(dir, false, () => now);
  const p = new Politeness({ delayMs: 100 });
  p.observe(first.observe);
  p.pause(H, 5000);
  p.failed(H);
  p.refuse(K, 'asked for 3600 s');
  const kept = JSON.parse(readFileSync(join(dir, PACING_FILE), 'utf8')) as Record<string, { pausedUntil?: number; streak?: number; refusal?: string }>;
  assert.ok(Math.abs((kept[H]?.pausedUntil ?? 0) - (now + 5000)) <= 100, JSON.stringify(kept));
  assert.equal(kept[H]?.streak, 1);
  assert.equal(kept[K]?.refusal, 'asked for 3600 s');

  // Resumed 2 s later: 3 s of the pause are left.
  now += 2000;
  const resumed = new Politeness({ delayMs: 100 });
  new PacingState(dir, true, () => now).restore(resumed);
  const left = resumed.waitTime(H);
  assert.ok(left > 2900 && left <= 3002, `pause left: ${left} ms`);
  assert.equal(resumed.streakOf(H), 1);
  assert.equal(resumed.refusalOf(K), 'asked for 3600 s');

  // A pause that has run out is not given back.
  now += 10_000;
  const later = new Politeness({ delayMs: 100 });
  new PacingState(dir, true, () => now).restore(later);
  assert.equal(later.waitTime(H), 0);

  // A new crawl (no --resume) starts with none.
  new PacingState(dir, false, () => now);
  assert.equal(existsSync(join(dir, PACING_FILE)), false);
});

test('a success clears the streak from the file; a damaged file is one clear ERR_STATE on resume', () => {
  const dir = temp();
  const state = new PacingState(dir, false);
  const p = new Politeness({ delayMs: 0 });
  p.observe(state.observe);
  p.failed(H);
  p.succeeded(H);
  assert.deepEqual(JSON.parse(readFileSync(join(dir, PACING_FILE), 'utf8')), {});
  writeFileSync(join(dir, PACING_FILE), '{not json');
  assert.throws(() => new PacingState(dir, true), (err: unknown) => isCrawlerError(err) && err.code === 'ERR_STATE' && err.message.includes(PACING_FILE));
});
