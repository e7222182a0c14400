/**
 * Memory under load: a crawl whose frontier grows past one million URLs
 * (a generated site on loopback, --delay 0) keeps the crawler's peak
 * resident memory under the bound the README states (200 MB). The seen set
 * and the frontier live in SQLite; only a bounded cache is kept in memory.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { measureFrontierMemory } from '../../scripts/measure-memory.js';

export const RSS_BOUND_MB = 200;

test(`a frontier of over 1,000,000 URLs: peak RSS under ${RSS_BOUND_MB} MB`, { timeout: 120_000 }, async (t) => {
  const r = await measureFrontierMemory(1000);
  t.diagnostic(JSON.stringify(r));
  assert.ok(r.urls > 1_000_000);
  assert.ok(r.peakRssMB > 0, 'the peak was read');
  assert.ok(r.peakRssMB < RSS_BOUND_MB, `peak RSS ${r.peakRssMB} MB`);
});
