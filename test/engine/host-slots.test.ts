/**
 * HostSlots: at most limit(origin) requests to a host in flight, the rest
 * waiting in the order they asked; hosts apart; a stop ends a wait with
 * ERR_ABORTED and gives its place up; a release twice frees one slot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostSlots } from '../../src/engine/host-slots.js';
import { isCrawlerError } from '../../src/errors.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('at most the limit in flight per host; waiters go in the order they asked; other hosts are not held', async () => {
  const slots = new HostSlots((origin) => (origin === 'http://a' ? 2 : 1));
  const first = await slots.take('http://a');
  const second = await slots.take('http://a');
  const order: string[] = [];
  const third = slots.take('http://a').then((r) => (order.push('third'), r));
  const fourth = slots.take('http://a').then((r) => (order.push('fourth'), r));
  const other = await slots.take('http://b'); // another host: at once
  await tick();
  assert.deepEqual(order, []);
  assert.equal(slots.busy('http://a'), 2);
  first();
  first(); // twice: one slot only
  await tick();
  assert.deepEqual(order, ['third']);
  assert.equal(slots.busy('http://a'), 2);
  second();
  (await third)();
  (await fourth)();
  other();
  assert.deepEqual(order, ['third', 'fourth']);
  assert.equal(slots.busy('http://a'), 0);
  assert.equal(slots.busy('http://b'), 0);
});

test('a stop ends a wait with ERR_ABORTED and the next waiter gets the slot; a stop before asking fails at once only when it must wait', async () => {
  const slots = new HostSlots(() => 1);
  const held = await slots.take('http://a');
  const stop = new AbortController();
  const stopped = slots.take('http://a', stop.signal);
  const next = slots.take('http://a');
  stop.abort();
  await assert.rejects(stopped, (err: unknown) => isCrawlerError(err, 'ERR_ABORTED'));
  held();
  (await next)();
  const aborted = AbortSignal.abort();
  (await slots.take('http://a', aborted))(); // a free slot is taken even so: the caller checks its stop itself
  const again = await slots.take('http://a');
  await assert.rejects(slots.take('http://a', aborted), (err: unknown) => isCrawlerError(err, 'ERR_ABORTED'));
  again();
  assert.equal(slots.busy('http://a'), 0);
});

test('the limit is read each time: a host whose interval goes to 0 takes more at once', async () => {
  let limit = 1;
  const slots = new HostSlots(() => limit);
  const one = await slots.take('http://a');
  let got = false;
  const two = slots.take('http://a').then((r) => ((got = true), r));
  await tick();
  assert.equal(got, false);
  limit = 2;
  // A change of limit alone wakes no one: the next release does (or a new take sees the room).
  const three = await slots.take('http://a');
  one();
  (await two)();
  three();
  assert.equal(got, true);
});
