/**
 * One contract suite over every FrontierStore: breadth-first order,
 * de-duplication by identity key, markSeen, take / complete / release,
 * document IDs, pending counts.
 * The SQLite store also gets durability tests: what is committed survives a
 * reopen, what is not is redone.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryFrontier } from '../../src/frontier/private-memory.js';
import Database from 'better-sqlite3';
import { SqliteFrontier, STATE_FILE } from '../../src/frontier/private-sqlite.js';
import type { FrontierEntry, FrontierStore } from '../../src/frontier/private-store.js';
import { isCrawlerError } from '../../src/errors.js';
import { freeBytes } from '../helpers/fs-faults.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const e = (key: string, depth: number): FrontierEntry => ({ key, url: key, depth });

const { temp: tempDir, tmpfs } = useTempDirs('frontier-');

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
      assert.equal(s.take()?.key, 'a');
      s.add(e('d', 2));
      assert.deepEqual([s.take()?.key, s.take()?.key, s.take()?.key], ['b', 'c', 'd']);
      assert.equal(s.take(), undefined);
      assert.equal(s.pending, 0);
      s.close();
    });

    test('open counts what is left to do: queued, and taken until completed, retried or released (the progress line\'s "URLs queued")', () => {
      const s = make();
      for (const k of ['a', 'b', 'c']) s.add(e(k, 1));
      const a = s.take() as FrontierEntry;
      const b = s.take() as FrontierEntry;
      assert.deepEqual([s.pending, s.open], [1, 3], 'two taken ahead are still to do');
      s.complete(a, { links: [e('d', 2)] });
      assert.deepEqual([s.pending, s.open], [2, 3]);
      s.release(b);
      assert.deepEqual([s.pending, s.open], [3, 3]);
      const again = s.take() as FrontierEntry;
      s.complete(again, { links: [], retry: true });
      assert.deepEqual([s.pending, s.open], [3, 3], 'a retry is queued again');
      while (s.take() !== undefined);
      assert.deepEqual([s.pending, s.open], [0, 3]);
      s.close();
    });

    test('a key is queued once: duplicates return false and are not queued', () => {
      const s = make();
      assert.equal(s.add(e('a', 1)), true);
      assert.equal(s.add(e('a', 2)), false);
      assert.equal(s.isSeen('a'), true);
      assert.equal(s.isSeen('b'), false);
      assert.equal(s.take()?.depth, 1);
      assert.equal(s.take(), undefined);
      s.close();
    });

    test('markSeen records without queueing; a later add is a duplicate', () => {
      const s = make();
      assert.equal(s.markSeen('r'), true);
      assert.equal(s.markSeen('r'), false);
      assert.equal(s.isSeen('r'), true);
      assert.equal(s.add(e('r', 1)), false);
      assert.equal(s.take(), undefined);
      s.close();
    });

    test('taken entries stay seen', () => {
      const s = make();
      s.add(e('a', 0));
      s.take();
      s.complete(e('a', 0), { links: [] });
      assert.equal(s.add(e('a', 1)), false);
      s.close();
    });

    test('document IDs: lastDocumentId follows the completions that saved a page', () => {
      const s = make();
      assert.equal(s.lastDocumentId, 0);
      for (const k of ['a', 'b']) s.add(e(k, 0));
      s.complete(s.take() as FrontierEntry, { links: [], documentId: 1 });
      assert.equal(s.lastDocumentId, 1);
      s.complete(s.take() as FrontierEntry, { links: [] });
      assert.equal(s.lastDocumentId, 1, 'a page not saved takes no ID');
      s.close();
    });

    test('complete queues the links in order and says which were new: a repeat on the page and a key seen before are duplicates', () => {
      const s = make();
      s.add(e('seed', 0));
      s.markSeen('moved');
      const seed = s.take() as FrontierEntry;
      const added = s.complete(seed, { links: [e('a', 1), e('b', 1), e('a', 1), e('seed', 1), e('moved', 1)], documentId: 1 });
      assert.deepEqual(added, [true, true, false, false, false]);
      assert.deepEqual([s.take()?.key, s.take()?.key, s.take()], ['a', 'b', undefined]);
      s.close();
    });

    test('release gives the entry back untouched: it is taken next, and what its processing marked seen is forgotten', () => {
      const s = make();
      for (const k of ['a', 'b']) s.add(e(k, 1));
      const a = s.take() as FrontierEntry;
      s.markSeen('redirect-target');
      s.release(a);
      assert.equal(s.isSeen('redirect-target'), false);
      assert.equal(s.pending, 2);
      assert.equal(s.take()?.key, 'a');
      assert.equal(s.take()?.key, 'b');
      s.close();
    });

    test('retry: the entry is queued again at the end, at its depth, with its attempts counted; it stays seen', () => {
      const s = make();
      for (const k of ['a', 'b']) s.add(e(k, 1));
      const a = s.take() as FrontierEntry;
      assert.deepEqual(s.complete(a, { links: [e('never', 2)], retry: true }), [false], 'a retry queues no link');
      assert.equal(s.pending, 2);
      s.add(e('c', 2));
      const b = s.take() as FrontierEntry;
      assert.equal(b.key, 'b');
      assert.equal(b.attempts ?? 0, 0, 'an entry never retried has no attempts');
      s.complete(b, { links: [] });
      const again = s.take() as FrontierEntry;
      assert.deepEqual({ key: again.key, depth: again.depth, attempts: again.attempts }, { key: 'a', depth: 1, attempts: 1 }, 'after the entries queued before it was retried');
      s.complete(again, { links: [], retry: true });
      assert.equal(s.take()?.key, 'c');
      assert.equal(s.take()?.attempts, 2, 'each retry counts');
      assert.equal(s.isSeen('a'), true);
      assert.equal(s.add(e('a', 1)), false, 'a retried entry is no new link');
    });

    test('many entries (beyond one prefetch batch) keep their order', () => {
      const s = make();
      for (let i = 0; i < 2000; i++) s.add(e(`k${i}`, 1));
      for (let i = 0; i < 2000; i++) {
        const got = s.take();
        assert.equal(got?.key, `k${i}`);
        if (i % 100 === 0) s.add(e(`late${i}`, 2));
      }
      assert.equal(s.take()?.key, 'late0');
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
    const seed = s.take() as FrontierEntry;
    s.complete(seed, { links: [e('a', 1), e('b', 1)], documentId: 1 });
    const a = s.take() as FrontierEntry;
    assert.equal(a.key, 'a');
    s.markSeen('c'); // not completed: the process "dies" here
    s.close();
    const r = open(dir, true);
    assert.equal(r.resumed, true);
    assert.equal(r.lastDocumentId, 1);
    assert.equal(r.isSeen('c'), false, 'uncommitted link rolled back');
    assert.deepEqual([r.take()?.key, r.take()?.key, r.take()], ['a', 'b', undefined]);
    r.close();
  });

  test('a due group commit waits while the commit gate says no (the archive has not written the pages\' records), then commits them all', () => {
    const dir = tempDir();
    let gate = false;
    const s = new SqliteFrontier(dir, { seed: 'http://h/', maxDepth: 2, resume: false, commitIntervalMs: 0, commitGate: () => gate });
    // What another process (a resumed crawl after kill -9) would find: the committed pages only.
    const reader = new Database(join(dir, STATE_FILE), { readonly: true });
    const committedDone = (): number => reader.prepare('SELECT count(*) FROM urls WHERE state = 1').pluck().get() as number;
    try {
      s.add(e('seed', 0));
      assert.equal(s.commitDue, true);
      s.complete(s.take() as FrontierEntry, { links: [e('a', 1), e('b', 1)], documentId: 1 });
      s.complete(s.take() as FrontierEntry, { links: [], documentId: 2 });
      assert.equal(committedDone(), 0, 'nothing is committed while the gate is shut');
      gate = true;
      s.complete(s.take() as FrontierEntry, { links: [], documentId: 3 });
      assert.equal(committedDone(), 3, 'the next page commits the whole group');
    } finally {
      reader.close();
      s.close();
    }
  });

  test('a group whose commit meets a full disk is rolled back whole: closing writes nothing of it, and a resumed crawl redoes its pages under the same IDs', (t) => {
    const dir = tmpfs(t, '8m', { prefix: 'frontier-full-' });
    if (dir === undefined) return;
    const s = new SqliteFrontier(dir, { seed: 'http://h/', maxDepth: 2, resume: false, commitIntervalMs: 0 });
    s.add(e('seed', 0));
    // Page 1 links 300 pages of long URLs: its group is committed (the interval is 0).
    const links = Array.from({ length: 300 }, (_, i) => e(`http://h/${String(i).padStart(4, '0')}/${'x'.repeat(1000)}`, 1));
    s.complete(s.take() as FrontierEntry, { links, documentId: 1 });
    const filler = join(dir, 'filler');
    writeFileSync(filler, Buffer.alloc(freeBytes(dir)));
    // Page 2 and the 300 new links it brings cannot be written: SQLite rolls its group back on its own.
    const second = s.take() as FrontierEntry;
    const more = links.map((l) => e(`${l.key}/more`, 2));
    assert.throws(() => s.complete(second, { links: more, documentId: 2 }), (x: unknown) => isCrawlerError(x, 'ERR_STATE'));
    // The rollback freed room: a last ID written now would be committed alone, ahead of its page.
    rmSync(filler);
    s.close();
    const r = new SqliteFrontier(dir, { seed: 'http://h/', maxDepth: 2, resume: true });
    assert.equal(r.lastDocumentId, 1, 'the last ID committed is that of the last page committed');
    assert.equal(r.pending, 300, 'page 2 is queued again, and none of its links is');
    assert.equal(r.take()?.key, second.key, 'page 2 is the next page, so it gets ID 2 again');
    r.close();
  });

  test('a retried entry keeps its attempts across a reopen (--resume keeps retry counts)', () => {
    const dir = tempDir();
    const s = open(dir, false);
    s.add(e('seed', 0));
    s.complete(s.take() as FrontierEntry, { links: [], retry: true });
    s.close();
    const r = open(dir, true);
    const seed = r.take();
    assert.deepEqual({ key: seed?.key, attempts: seed?.attempts }, { key: 'seed', attempts: 1 });
    r.close();
  });

  test('--resume with another seed or depth is refused with ERR_STATE', () => {
    const dir = tempDir();
    open(dir, false).close();
    assert.throws(() => new SqliteFrontier(dir, { seed: 'http://other/', maxDepth: 2, resume: true }), (x: unknown) => isCrawlerError(x, 'ERR_STATE'));
    assert.throws(() => new SqliteFrontier(dir, { seed: 'http://h/', maxDepth: 3, resume: true }), (x: unknown) => isCrawlerError(x, 'ERR_STATE'));
  });

  test('--resume needs the same seed list (--seeds): another list, or none where there was one, is refused with ERR_STATE', () => {
    const more = ['http://a/', 'http://b/'];
    const dir = tempDir();
    new SqliteFrontier(dir, { seed: 'http://h/', moreSeeds: more, maxDepth: 2, resume: false }).close();
    new SqliteFrontier(dir, { seed: 'http://h/', moreSeeds: [...more], maxDepth: 2, resume: true }).close();
    for (const other of [undefined, [], ['http://a/'], ['http://b/', 'http://a/']]) {
      assert.throws(
        () => new SqliteFrontier(dir, { seed: 'http://h/', ...(other === undefined ? {} : { moreSeeds: other }), maxDepth: 2, resume: true }),
        (x: unknown) => isCrawlerError(x, 'ERR_STATE') && /holds a crawl from 2 more seeds \(--seeds\), not from these/.test(x.message),
        JSON.stringify(other),
      );
    }
    const plain = tempDir();
    open(plain, false).close();
    assert.throws(() => new SqliteFrontier(plain, { seed: 'http://h/', moreSeeds: more, maxDepth: 2, resume: true }), (x: unknown) => isCrawlerError(x, 'ERR_STATE') && /from no --seeds file/.test(x.message));
    open(plain, true).close();
  });

  test('--resume with no state is refused with ERR_STATE', () => {
    assert.throws(() => open(tempDir(), true), (x: unknown) => isCrawlerError(x, 'ERR_STATE'));
  });

  test('a new crawl (no --resume) replaces earlier state', () => {
    const dir = tempDir();
    const s = open(dir, false);
    s.add(e('old', 0));
    s.take();
    s.complete(e('old', 0), { links: [] });
    s.close();
    const t2 = open(dir, false);
    assert.equal(t2.isSeen('old'), false);
    assert.equal(t2.pending, 0);
    t2.close();
  });
});
