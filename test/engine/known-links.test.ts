/**
 * KnownLinks: the links a shared worker leaves out of a completion because
 * the store has them, the store's answer spread back over every link, and
 * the bound on what it keeps.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KnownLinks } from '../../src/engine/known-links.js';
import type { ClaimEntry } from '../../src/frontier/claim-store.js';

const link = (key: string): ClaimEntry => ({ key, url: key, depth: 1, origin: 'http://h' });

test('links the store accepted are left out of the next completion; the answer is spread back in order, a known link not added', () => {
  const known = new KnownLinks();
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(link) as [ClaimEntry, ClaimEntry, ClaimEntry, ClaimEntry];
  const first = known.unknownOf([a, b]);
  assert.deepEqual(first.links, [a, b], 'nothing known yet: every link goes');
  assert.deepEqual(first.spread([true, false]), [true, false]);
  known.learn(first.links);
  const next = known.unknownOf([c, a, d, b, c]);
  assert.deepEqual(next.links, [c, d, c], 'a and b are left out; a link twice on the page goes twice, as before');
  // The store's answer for the links sent: c new, d new, the second c a duplicate.
  assert.deepEqual(next.spread([true, true, false]), [true, false, true, false, false]);
  assert.equal(known.has('a') && known.has('b') && !known.has('c'), true, 'learnt only when told');
});

test('bounded: two generations of `cap` keys; the oldest are forgotten (sent again, the store says duplicate), the newer kept', () => {
  const known = new KnownLinks(2);
  known.learn(['a', 'b', 'c', 'd', 'e'].map(link));
  // a, b filled a generation; c, d the next (a, b then older); e started a third (c, d older, a and b gone).
  assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((k) => known.has(k)), [false, false, true, true, true]);
  assert.deepEqual(known.unknownOf(['a', 'c', 'e'].map(link)).links.map((l) => l.key), ['a']);
});
