/**
 * GroupPublish (src/engine/group-publish.ts): a worker's saved pages are
 * published at once, or, while one call is out, together in the next.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GroupPublish } from '../../src/engine/group-publish.js';
import type { Claim } from '../../src/frontier/claim-store.js';

const claim = (id: number): Claim => ({ kind: 'page', id, token: 100 + id, origin: 'http://a.test', key: `http://a.test/${id}`, url: `http://a.test/${id}`, depth: 1, delayMs: 0, clock: 0, attempts: 0 }) as Claim;

/** A store whose published calls are answered by hand. */
function store() {
  const calls: Array<{ ids: number[]; answer: (err?: Error) => void }> = [];
  return {
    calls,
    published: (claims: readonly Claim[]) =>
      new Promise<void>((resolve, reject) => calls.push({ ids: claims.map((c) => c.id), answer: (err) => (err === undefined ? resolve() : reject(err)) })),
  };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

test('the first page goes at once; those saved while its call is out go together in the next; each resolves when its call has', async () => {
  const s = store();
  const p = new GroupPublish(s);
  const done: number[] = [];
  const first = p.publish(claim(1)).then(() => done.push(1));
  await turn();
  assert.deepEqual(s.calls.map((c) => c.ids), [[1]]);
  const later = [2, 3, 4].map((id) => p.publish(claim(id)).then(() => done.push(id)));
  await turn();
  assert.deepEqual(s.calls.map((c) => c.ids), [[1]], 'nothing more while the first call is out');
  s.calls[0]?.answer();
  await turn();
  assert.deepEqual(s.calls.map((c) => c.ids), [[1], [2, 3, 4]]);
  assert.deepEqual(done, [1], 'the others wait for their own call');
  s.calls[1]?.answer();
  await Promise.all([first, ...later]);
  assert.deepEqual(done.sort(), [1, 2, 3, 4]);
  // Nothing out: the next page goes at once, alone.
  const next = p.publish(claim(5));
  await turn();
  assert.deepEqual(s.calls.at(-1)?.ids, [5]);
  s.calls.at(-1)?.answer();
  await next;
});

test('a call that fails fails its own pages only; the pages saved meanwhile go in the next call', async () => {
  const s = store();
  const p = new GroupPublish(s);
  const first = p.publish(claim(1));
  await turn();
  const second = p.publish(claim(2));
  const third = p.publish(claim(3));
  s.calls[0]?.answer(new Error('the database is gone'));
  await assert.rejects(first, /the database is gone/);
  await turn();
  assert.deepEqual(s.calls.map((c) => c.ids), [[1], [2, 3]]);
  s.calls[1]?.answer(new Error('still gone'));
  await assert.rejects(second, /still gone/);
  await assert.rejects(third, /still gone/);
});
