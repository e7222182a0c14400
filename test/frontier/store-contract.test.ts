/**
 * One contract suite over every FrontierStore: breadth-first order,
 * de-duplication by identity key, markSeen, document IDs, pending counts.
 * The SQLite store also gets durability tests: what is committed survives a
 * reopen, what is not is redone.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFrontier } from '../../src/frontier/memory-store.js';
import { SqliteFrontier } from '../../src/frontier/sqlite-store.js';
import type { FrontierEntry, FrontierStore } from '../../src/frontier/store.js';
import { isCrawlerError } from '../../src/errors.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const e = (key: string, depth: number): FrontierEntry => ({ key, url: key, depth });

const { temp: tempDir } = useTempDirs('frontier-');

const stores: Array<[string, () => FrontierStore]> = [
  ['memory', () => new MemoryFrontier()],
  ['sqlite', () => new SqliteFrontier(tempDir(), { seed: 'http://h/', maxDepth: 3, resume: false })],
  ['sqlite (cache disabled: every lookup hits the index)', () => new SqliteFrontier(tempDir(), { seed: 'http://h/', maxDepth: 3, resume: false, cacheLimit: 0 })],
];

for (const [name, make] of stores) {
  describe(`FrontierStore contract: ${name}`, () => {
    test('entries come out in the order added (FIFO = breadth first)', () => {
      const s = make();
      for (const k of ['a', 'b', 'c']) assert.equal(s.add(e(k, 1)), true);
      assert.equal(s.pending, 3);
      assert.equal(s.next()?.key, 'a');
      s.add(e('d', 2));
      assert.deepEqual([s.next()?.key, s.next()?.key, s.next()?.key], ['b', 'c', 'd']);
      assert.equal(s.next(), undefined);
      assert.equal(s.pending, 0);
      s.close();
    });

    test('a key is queued once: duplicates return false and are not queued', () => {
      const s = make();
      assert.equal(s.add(e('a', 1)), true);
      assert.equal(s.add(e('a', 2)), false);
      assert.equal(s.isSeen('a'), true);
      assert.equal(s.isSeen('b'), false);
      assert.equal(s.next()?.depth, 1);
      assert.equal(s.next(), undefined);
      s.close();
    });

    test('markSeen records without queueing; a later add is a duplicate', () => {
      const s = make();
      assert.equal(s.markSeen('r'), true);
      assert.equal(s.markSeen('r'), false);
      assert.equal(s.isSeen('r'), true);
      assert.equal(s.add(e('r', 1)), false);
      assert.equal(s.next(), undefined);
      s.close();
    });

    test('taken entries stay seen', () => {
      const s = make();
      s.add(e('a', 0));
      s.next();
      s.commit(e('a', 0));
      assert.equal(s.add(e('a', 1)), false);
      s.close();
    });

    test('document IDs: lastDocumentId follows recordDocument', () => {
      const s = make();
      assert.equal(s.lastDocumentId, 0);
      s.add(e('a', 0));
      s.next();
      s.recordDocument(1);
      s.commit(e('a', 0));
      assert.equal(s.lastDocumentId, 1);
      s.close();
    });

    test('retry: the entry is queued again at the end, at its depth, with its attempts counted; it stays seen', () => {
      const s = make();
      for (const k of ['a', 'b']) s.add(e(k, 1));
      const a = s.next() as FrontierEntry;
      s.retry(a);
      assert.equal(s.pending, 2);
      s.add(e('c', 2));
      const b = s.next() as FrontierEntry;
      assert.equal(b.key, 'b');
      assert.equal(b.attempts ?? 0, 0, 'an entry never retried has no attempts');
      s.commit(b);
      const again = s.next() as FrontierEntry;
      assert.deepEqual({ key: again.key, depth: again.depth, attempts: again.attempts }, { key: 'a', depth: 1, attempts: 1 }, 'after the entries queued before it was retried');
      s.retry(again);
      assert.equal(s.next()?.key, 'c');
      assert.equal(s.next()?.attempts, 2, 'each retry counts');
      assert.equal(s.isSeen('a'), true);
      assert.equal(s.add(e('a', 1)), false, 'a retried entry is no new link');
    });

    test('many entries (beyond one prefetch batch) keep their order', () => {
      const s = make();
      for (let i = 0; i < 2000; i++) s.add(e(`k${i}`, 1));
      for (let i = 0; i < 2000; i++) {
        const got = s.next();
        assert.equal(got?.key, `k${i}`);
        if (i % 100 === 0) s.add(e(`late${i}`, 2));
      }
      assert.equal(s.next()?.key, 'late0');
      s.close();
    });
  });
}

describe('SqliteFrontier durability', () => {
  const open = (dir: string, resume: boolean): SqliteFrontier => new SqliteFrontier(dir, { seed: 'http://h/', maxDepth: 2, resume });

  test('committed pages survive a reopen; the uncommitted one is taken again', () => {
    const dir = tempDir();
    const s = open(dir, false);
    s.add(e('seed', 0));
    const seed = s.next() as FrontierEntry;
    s.recordDocument(1);
    s.add(e('a', 1));
    s.add(e('b', 1));
    s.commit(seed);
    const a = s.next() as FrontierEntry;
    assert.equal(a.key, 'a');
    s.recordDocument(2);
    s.add(e('c', 2)); // not committed: the process "dies" here
    s.close();
    const r = open(dir, true);
    assert.equal(r.resumed, true);
    assert.equal(r.lastDocumentId, 1);
    assert.equal(r.isSeen('c'), false, 'uncommitted link rolled back');
    assert.deepEqual([r.next()?.key, r.next()?.key, r.next()], ['a', 'b', undefined]);
    r.close();
  });

  test('a retried entry keeps its attempts across a reopen (--resume keeps retry counts)', () => {
    const dir = tempDir();
    const s = open(dir, false);
    s.add(e('seed', 0));
    s.retry(s.next() as FrontierEntry);
    s.close();
    const r = open(dir, true);
    const seed = r.next();
    assert.deepEqual({ key: seed?.key, attempts: seed?.attempts }, { key: 'seed', attempts: 1 });
    r.close();
  });

  test('--resume with another seed or depth is refused with ERR_STATE', () => {
    const dir = tempDir();
    open(dir, false).close();
    assert.throws(() => new SqliteFrontier(dir, { seed: 'http://other/', maxDepth: 2, resume: true }), (x: unknown) => isCrawlerError(x, 'ERR_STATE'));
    assert.throws(() => new SqliteFrontier(dir, { seed: 'http://h/', maxDepth: 3, resume: true }), (x: unknown) => isCrawlerError(x, 'ERR_STATE'));
  });

  test('--resume with no state is refused with ERR_STATE', () => {
    assert.throws(() => open(tempDir(), true), (x: unknown) => isCrawlerError(x, 'ERR_STATE'));
  });

  test('a new crawl (no --resume) replaces earlier state', () => {
    const dir = tempDir();
    const s = open(dir, false);
    s.add(e('old', 0));
    s.next();
    s.commit(e('old', 0));
    s.close();
    const t2 = open(dir, false);
    assert.equal(t2.isSeen('old'), false);
    assert.equal(t2.pending, 0);
    t2.close();
  });
});
