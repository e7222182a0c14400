import { test } from 'node:test';
import assert from 'node:assert/strict';
import { count } from '../src/plural.js';

test('count: one is singular, every other number plural (issue: "1 pages saved", "1 pages in all")', () => {
  assert.equal(count(1, 'page'), '1 page');
  assert.equal(count(0, 'URL'), '0 URLs');
  assert.equal(count(2, 'page'), '2 pages');
  assert.equal(count(1, 'capture'), '1 capture');
  assert.equal(count(3, 'body', 'bodies'), '3 bodies');
});
