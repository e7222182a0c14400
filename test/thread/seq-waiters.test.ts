/**
 * SeqWaiters (src/thread/seq-waiters.ts): who waits for which numbered job
 * of a thread. A wait resolves once every job up to its number is done, and
 * rejects once the jobs have failed; the thread is held only while someone
 * waits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrawlerError } from '../../src/errors.js';
import { SeqWaiters } from '../../src/thread/seq-waiters.js';

/** True when `p` has settled by the time pending microtasks have run. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test('a wait resolves once every job up to its number is done, not before', async () => {
  const holds: boolean[] = [];
  const w = new SeqWaiters((held) => holds.push(held));
  const three = w.wait(3);
  const five = w.wait(5);
  assert.deepEqual(holds, [true], 'held from the first waiter');
  w.doneThrough(2);
  assert.equal(await settled(three), false);
  w.doneThrough(4);
  assert.equal(await settled(three), true);
  assert.equal(await settled(five), false);
  assert.deepEqual(holds, [true], 'still held: job 5 is awaited');
  w.doneThrough(5);
  assert.equal(await settled(five), true);
  assert.deepEqual(holds, [true, false], 'let go with the last waiter');
  assert.equal(w.done, 5);
});

test('a wait for a job already done resolves at once and holds nothing; done never goes back', async () => {
  const holds: boolean[] = [];
  const w = new SeqWaiters((held) => holds.push(held));
  w.doneThrough(7);
  w.doneThrough(3);
  assert.equal(w.done, 7);
  assert.equal(await settled(w.wait(7)), true);
  assert.equal(await settled(w.wait(0)), true);
  assert.deepEqual(holds, []);
});

test('fail lets every waiter go with the failure, and every later wait rejects with it, without marking anything done', async () => {
  const holds: boolean[] = [];
  const w = new SeqWaiters((held) => holds.push(held));
  const a = w.wait(10);
  const b = w.wait(20);
  const full = new CrawlerError('ERR_WRITE', 'cannot write x: ENOSPC');
  w.fail(full);
  w.fail(new CrawlerError('ERR_WRITE', 'a later one'));
  await assert.rejects(a, (err) => err === full);
  await assert.rejects(b, (err) => err === full);
  assert.equal(w.done, 0, 'nothing marked done');
  assert.deepEqual(holds, [true, false]);
  assert.equal(w.failure, full, 'the first failure is kept');
  await assert.rejects(w.wait(0), (err) => err === full, 'even a job already done: nothing after the failure counts');
  assert.deepEqual(holds, [true, false], 'a rejected wait holds nothing');
});
