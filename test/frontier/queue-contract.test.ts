/**
 * One contract over every frontier, private and shared alike: the private
 * stores (FrontierStore: memory, SQLite in the page directory) and the
 * shared ones (ClaimStore: memory, SQLite file, PostgreSQL) have one shape
 * (take the next URL, complete it with its links, or release it), so the
 * crawl's page pipeline runs on any of them and only the scheduler differs.
 * A thin adapter per kind turns each into the same asynchronous queue; the
 * behaviours below hold for all five. What only one kind has (leases, hosts
 * held, durability) stays in its own suite.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryClaimStore } from '../../src/frontier/claim-memory.js';
import { PostgresClaimStore } from '../../src/frontier/claim-postgres.js';
import { SqliteClaimStore } from '../../src/frontier/claim-sqlite.js';
import type { Claim, ClaimStore } from '../../src/frontier/claim-store.js';
import { MemoryFrontier } from '../../src/frontier/private-memory.js';
import { SqliteFrontier } from '../../src/frontier/private-sqlite.js';
import type { FrontierEntry, FrontierStore } from '../../src/frontier/private-store.js';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const ORIGIN = 'http://127.0.0.1:8009';
const SEED = `${ORIGIN}/`;

/** A URL taken from a queue. */
interface Taken {
  key: string;
  depth: number;
  attempts: number;
}

/** Every frontier, seen through one asynchronous shape. */
interface Queue {
  take(): Promise<Taken | undefined>;
  /** Completes `t` with its links (keys at `t.depth + 1`); a saved page takes the next document ID. */
  complete(t: Taken, o: { links?: string[]; saved?: boolean; retry?: boolean }): Promise<{ added: boolean[]; documentId: number | undefined }>;
  release(t: Taken): Promise<void>;
  lastDocumentId(): Promise<number>;
}

const dirs = useTempDirs();
const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of closers) await c();
});

/** A private store: the sink hands out IDs after the last one the store recorded. */
function privateQueue(store: FrontierStore): Queue {
  store.add({ key: SEED, url: SEED, depth: 0 });
  const entries = new Map<string, FrontierEntry>();
  closers.push(async () => store.close());
  return {
    async take() {
      const e = store.take();
      if (e === undefined) return undefined;
      entries.set(e.key, e);
      return { key: e.key, depth: e.depth, attempts: e.attempts ?? 0 };
    },
    async complete(t, o) {
      const documentId = o.saved === true ? store.lastDocumentId + 1 : undefined;
      const links = (o.links ?? []).map((key) => ({ key, url: key, depth: t.depth + 1 }));
      const added = store.complete(entries.get(t.key) as FrontierEntry, { links, documentId, ...(o.retry === true ? { retry: true } : {}) });
      return { added, documentId };
    },
    async release(t) {
      store.release(entries.get(t.key) as FrontierEntry);
    },
    async lastDocumentId() {
      return store.lastDocumentId;
    },
  };
}

/** A shared store, used by one worker with no delay and no robots.txt. */
async function sharedQueue(store: ClaimStore): Promise<Queue> {
  await store.open({ seed: { key: SEED, url: SEED, depth: 0, origin: ORIGIN }, maxDepth: 9, delayMs: 0, robots: false });
  const claims = new Map<string, Claim>();
  closers.push(() => store.close());
  return {
    async take() {
      for (;;) {
        const r = await store.claim({ leaseMs: 60_000, strictBfs: false });
        if ('done' in r) return undefined;
        if ('waitMs' in r) throw new Error(`a lone worker was told to wait ${r.waitMs} ms`);
        claims.set(r.claim.key, r.claim);
        return { key: r.claim.key, depth: r.claim.depth, attempts: r.claim.attempts };
      }
    },
    async complete(t, o) {
      const claim = claims.get(t.key) as Claim;
      const links = (o.links ?? []).map((key) => ({ key, url: key, depth: t.depth + 1, origin: ORIGIN }));
      const r = await store.complete(claim, { startedAt: claim.clock, links, saved: o.saved === true, ...(o.retry === true ? { retry: true } : {}) });
      assert.equal(r.ok, true);
      if (o.saved === true) await store.published([claim]);
      return { added: r.added, documentId: r.documentId };
    },
    async release(t) {
      await store.release(claims.get(t.key) as Claim);
    },
    lastDocumentId: () => store.lastDocumentId(),
  };
}

const kinds: Array<[string, () => Promise<Queue>, string | undefined]> = [
  ['private, memory', async () => privateQueue(new MemoryFrontier()), undefined],
  ['private, SQLite', async () => privateQueue(new SqliteFrontier(dirs.temp('queue-'), { seed: SEED, maxDepth: 9, resume: false })), undefined],
  ['shared, memory', () => sharedQueue(new MemoryClaimStore()), undefined],
  ['shared, SQLite', () => sharedQueue(new SqliteClaimStore(`${dirs.temp('queue-')}/frontier.db`)), undefined],
  [
    'shared, PostgreSQL',
    async () => {
      const db = await freshDatabase();
      const q = await sharedQueue(new PostgresClaimStore(db.url));
      closers.push(() => db.drop());
      return q;
    },
    pgSkipReason,
  ],
];

const u = (path: string): string => `${ORIGIN}${path}`;

async function takeKey(q: Queue): Promise<Taken> {
  const t = await q.take();
  assert.ok(t !== undefined, 'expected a URL, the queue was empty');
  return t;
}

for (const [name, make, skip] of kinds) {
  describe(`frontier contract (every store): ${name}`, () => {
    test('breadth first: the seed, then its links in document order, then theirs; then nothing', { skip }, async () => {
      const q = await make();
      const seed = await takeKey(q);
      assert.deepEqual(seed, { key: SEED, depth: 0, attempts: 0 });
      assert.deepEqual((await q.complete(seed, { links: [u('/a'), u('/b')], saved: true })).added, [true, true]);
      const a = await takeKey(q);
      assert.deepEqual([a.key, a.depth], [u('/a'), 1]);
      await q.complete(a, { links: [u('/c')], saved: true });
      const b = await takeKey(q);
      assert.equal(b.key, u('/b'));
      await q.complete(b, { saved: true });
      const c = await takeKey(q);
      assert.deepEqual([c.key, c.depth], [u('/c'), 2]);
      await q.complete(c, {});
      assert.equal(await q.take(), undefined);
    });

    test('the store says which links were new: a repeat on the page and a URL seen before are duplicates', { skip }, async () => {
      const q = await make();
      const seed = await takeKey(q);
      const r = await q.complete(seed, { links: [u('/a'), u('/a'), SEED, u('/b')], saved: true });
      assert.deepEqual(r.added, [true, false, false, true]);
      const a = await takeKey(q);
      assert.deepEqual((await q.complete(a, { links: [u('/b'), u('/c')] })).added, [false, true]);
    });

    test('document IDs are 1..N in completion order, only for saved pages', { skip }, async () => {
      const q = await make();
      const seed = await takeKey(q);
      assert.equal((await q.complete(seed, { links: [u('/a'), u('/b')], saved: true })).documentId, 1);
      const a = await takeKey(q);
      assert.equal((await q.complete(a, {})).documentId, undefined);
      const b = await takeKey(q);
      assert.equal((await q.complete(b, { saved: true })).documentId, 2);
      assert.equal(await q.lastDocumentId(), 2);
    });

    test('a retry waits again behind the URLs waiting now, with one attempt more, and queues no link', { skip }, async () => {
      const q = await make();
      const seed = await takeKey(q);
      await q.complete(seed, { links: [u('/a'), u('/b')], saved: true });
      const a = await takeKey(q);
      assert.deepEqual((await q.complete(a, { links: [u('/never')], retry: true })).added, [false]);
      const b = await takeKey(q);
      assert.equal(b.key, u('/b'));
      await q.complete(b, {});
      const again = await takeKey(q);
      assert.deepEqual(again, { key: u('/a'), depth: 1, attempts: 1 });
      await q.complete(again, { saved: true });
      assert.equal(await q.take(), undefined);
    });

    test('release gives a URL back untouched: it is taken next', { skip }, async () => {
      const q = await make();
      const seed = await takeKey(q);
      await q.complete(seed, { links: [u('/a'), u('/b')], saved: true });
      const a = await takeKey(q);
      await q.release(a);
      const again = await takeKey(q);
      assert.deepEqual(again, { key: u('/a'), depth: 1, attempts: 0 });
    });
  });
}
