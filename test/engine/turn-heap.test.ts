/**
 * The window's heap of lanes (turn-heap.ts): the top is always the item
 * whose turn comes first, whatever the pushes, removals and re-keyings, and
 * countReady counts the items due by a time, up to a bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurnHeap, type Turn } from '../../src/engine/turn-heap.js';

interface Item extends Turn {
  name: number;
}

/** A small deterministic generator (xorshift), so a failure can be replayed. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

test('the top is the least readyAt after 5,000 random pushes, removals and re-keyings of the top', () => {
  const r = random(42);
  const heap = new TurnHeap<Item>();
  const inside = new Set<Item>();
  for (let i = 0; i < 5000; i++) {
    const op = r();
    if (op < 0.5 || inside.size === 0) {
      const item: Item = { name: i, readyAt: Math.floor(r() * 1000), at: -1 };
      heap.push(item);
      inside.add(item);
    } else if (op < 0.8) {
      const all = [...inside];
      const item = all[Math.floor(r() * all.length)] as Item;
      heap.remove(item);
      assert.equal(item.at, -1);
      inside.delete(item);
    } else {
      const top = heap.top as Item;
      top.readyAt += Math.floor(r() * 500);
      heap.topLater();
    }
    const least = Math.min(...[...inside].map((x) => x.readyAt));
    assert.equal(heap.size, inside.size);
    if (inside.size > 0) assert.equal(heap.top?.readyAt, least, `step ${i}`);
    for (const x of inside) assert.ok(x.at >= 0 && x.at < heap.size, 'every item knows its place');
  }
});

test('countReady: the items due by a time, counted up to the bound given', () => {
  const heap = new TurnHeap<Item>();
  for (let i = 0; i < 100; i++) heap.push({ name: i, readyAt: (i * 37) % 100, at: -1 });
  assert.equal(heap.countReady(49, 1000), 50, 'readyAt 0..49');
  assert.equal(heap.countReady(49, 7), 7, 'no more than asked for');
  assert.equal(heap.countReady(-1, 1000), 0);
  assert.equal(new TurnHeap<Item>().countReady(10, 10), 0);
});
