/**
 * One contract suite over every ClaimStore (memory, SQLite, PostgreSQL): the
 * shared frontier that several workers run one crawl through. Each store is
 * opened as two handles on one crawl where it can be shared (SQLite: two
 * connections to one file; PostgreSQL: two pools on one database), so what
 * one worker does is seen by the other.
 */
// run-tests: serial (leases of 50 to 150 ms: the store calls that must come within one, on PostgreSQL too, are an upper bound that a stall behind other test files' CPU could break)
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { POLL_WAIT_MS, type Claim, type ClaimCrawlConfig, type ClaimEntry, type ClaimResult, type ClaimStore, type Completion } from '../../src/frontier/claim-store.js';
import { MemoryClaimStore } from '../../src/frontier/claim-memory.js';
import { PostgresClaimStore } from '../../src/frontier/claim-postgres.js';
import { SqliteClaimStore } from '../../src/frontier/claim-sqlite.js';
import { isCrawlerError } from '../../src/errors.js';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const A = 'http://127.0.0.1:8001';
const B = 'http://127.0.0.1:8002';
const e = (origin: string, path: string, depth: number): ClaimEntry => ({ key: `${origin}${path}`, url: `${origin}${path}`, depth, origin });

function config(over: Partial<ClaimCrawlConfig> = {}): ClaimCrawlConfig {
  return { seed: e(A, '/', 0), maxDepth: 5, delayMs: 0, robots: false, ...over };
}

const dirs = useTempDirs();
const opts = { leaseMs: 60_000, strictBfs: false };

/** Two handles on one crawl. */
interface Pair {
  a: ClaimStore;
  b: ClaimStore;
}

type Factory = () => Promise<Pair>;

const opened: ClaimStore[] = [];
const cleanups: Array<() => Promise<void>> = [];
after(async () => {
  for (const s of opened) await s.close();
  for (const c of cleanups) await c();
});

const factories: Array<[string, Factory, string | undefined]> = [
  [
    'memory',
    async () => {
      const m = new MemoryClaimStore();
      return { a: m, b: m };
    },
    undefined,
  ],
  [
    'sqlite',
    async () => {
      const file = `${dirs.temp('claims-')}/frontier.db`;
      const a = new SqliteClaimStore(file);
      const b = new SqliteClaimStore(file);
      opened.push(a, b);
      return { a, b };
    },
    undefined,
  ],
  [
    'postgresql',
    async () => {
      const db = await freshDatabase();
      const a = new PostgresClaimStore(db.url);
      const b = new PostgresClaimStore(db.url);
      cleanups.push(async () => {
        await a.close();
        await b.close();
        await db.drop();
      });
      return { a, b };
    },
    pgSkipReason,
  ],
];

/**
 * Claims from `store` until a page is handed out (polling every 20 ms, for
 * at most 5 s), and checks it came no earlier than `notBefore` (the store's
 * clock): a lower bound only, so a late poll on a busy machine cannot fail it.
 */
async function claimWhenDue(store: ClaimStore, notBefore: number, what: string, options = opts): Promise<Claim> {
  const deadline = performance.now() + 5000;
  for (;;) {
    const r = await store.claim(options);
    if ('claim' in r) {
      assert.ok(r.claim.clock >= notBefore, `claimed ${(notBefore - r.claim.clock).toFixed(1)} ms before ${what} ended`);
      return r.claim;
    }
    assert.ok(performance.now() < deadline, `no claim within 5 s: ${JSON.stringify(r)}`);
    await sleep(20);
  }
}

function page(r: ClaimResult): Claim {
  assert.ok('claim' in r, `expected a claim, got ${JSON.stringify(r)}`);
  return r.claim;
}

const done = (over: Partial<Completion> = {}): Completion => ({ startedAt: undefined, links: [], saved: false, ...over });

/** Lanes of two workers (four each) claim until the budget is spent; answered completions must come to exactly `max`. */
async function budgetRace({ a, b }: Pair, max: number): Promise<void> {
  await a.open(config({ maxPages: max }));
  await a.add(Array.from({ length: 40 }, (_, i) => e(i % 2 === 0 ? A : B, `/p${i}`, 1)));
  let answered = 0;
  let claims = 0;
  const lane = async (s: ClaimStore): Promise<void> => {
    for (;;) {
      const r = await s.claim(opts);
      if ('done' in r) {
        assert.deepEqual(r, { done: true, spent: true });
        return;
      }
      if ('waitMs' in r) {
        await sleep(r.waitMs);
        continue;
      }
      // Every third answer does not count (a redirect): its room goes to another lane.
      const counts = ++claims % 3 !== 0;
      await sleep(2);
      const res = await s.complete(r.claim, done({ saved: counts, answered: counts }));
      assert.equal(res.ok, true);
      if (counts) {
        answered++;
        await s.published([r.claim]);
      }
    }
  };
  await Promise.all([a, b, a, b, a, b, a, b].map(lane));
  assert.equal(answered, max);
  assert.equal(await a.lastDocumentId(), max);
}

for (const [name, make, skip] of factories) {
  // Skips are marked on each test (the runner does not count tests inside a skipped suite).
  describe(`ClaimStore contract: ${name}`, () => {
    test('open creates the crawl with its seed; a second worker joins; another crawl is refused', { skip }, async () => {
      const { a, b } = await make();
      assert.deepEqual(await a.open(config()), { created: true });
      assert.deepEqual(await b.open(config()), { created: false });
      for (const other of [config({ maxDepth: 4 }), config({ seed: e(A, '/other', 0) }), config({ delayMs: 1000 }), config({ robots: true })]) {
        await assert.rejects(b.open(other), (err: unknown) => isCrawlerError(err) && err.code === 'ERR_STATE' && /another crawl/.test(err.message));
      }
      const c = page(await b.claim(opts));
      assert.equal(c.kind, 'page');
      assert.equal(c.key, `${A}/`);
      assert.equal(c.depth, 0);
    });

    test('a seed list (--seeds) and a scope: queued at creation in order, each key once; a worker with another list or scope is refused', { skip }, async () => {
      const { a, b } = await make();
      const seeds = config({ moreSeeds: [e(B, '/s1', 0), e(A, '/s2', 0), e(B, '/s1', 0), e(A, '/', 0)], scope: '["domain test"]' });
      assert.deepEqual(await a.open(seeds), { created: true });
      assert.deepEqual(await b.open({ ...seeds }), { created: false });
      const others = [
        config({ scope: '["domain test"]' }),
        config({ moreSeeds: [e(B, '/s1', 0)], scope: '["domain test"]' }),
        config({ moreSeeds: [e(A, '/s2', 0), e(B, '/s1', 0), e(B, '/s1', 0), e(A, '/', 0)], scope: '["domain test"]' }),
        config({ moreSeeds: seeds.moreSeeds ?? [], scope: '["any host"]' }),
        config({ moreSeeds: seeds.moreSeeds ?? [] }),
      ];
      for (const other of others) {
        await assert.rejects(b.open(other), (err: unknown) => isCrawlerError(err, 'ERR_STATE') && /another crawl: its (seed list|scope) is another/.test(err.message), JSON.stringify(other));
      }
      // Each seed once, in the order given, all at depth 0 (two hosts: the host with the earliest next fetch first, then queue order).
      const order: string[] = [];
      for (let r = await a.claim(opts); 'claim' in r; r = await a.claim(opts)) {
        order.push(r.claim.key);
        assert.equal(r.claim.depth, 0);
        await a.complete(r.claim, done());
      }
      assert.deepEqual(order.filter((k) => k.startsWith(A)), [`${A}/`, `${A}/s2`]);
      assert.deepEqual(order.filter((k) => k.startsWith(B)), [`${B}/s1`]);
      assert.deepEqual(await a.add([e(B, '/s1', 1), e(A, '/s2', 1)]), [false, false], 'the seeds are seen');
    });

    test('add de-duplicates by key: across calls, within one call, and against the seed', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      assert.deepEqual(await a.add([e(A, '/x', 1), e(A, '/y', 1), e(A, '/x', 1), e(A, '/', 1)]), [true, true, false, false]);
      assert.deepEqual(await b.add([e(A, '/y', 2), e(B, '/z', 2)]), [false, true]);
      assert.deepEqual(await a.add([]), []);
    });

    test('claims come shallowest first, then oldest; each URL once; then done', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      await a.add([e(A, '/d2', 2), e(A, '/d1a', 1), e(A, '/d1b', 1)]);
      const order: string[] = [];
      for (const s of [a, b, a, b]) {
        const c = page(await s.claim(opts));
        order.push(c.key.slice(A.length));
        assert.equal((await s.complete(c, done())).ok, true);
      }
      assert.deepEqual(order, ['/', '/d1a', '/d1b', '/d2']);
      assert.deepEqual(await a.claim(opts), { done: true });
      assert.deepEqual(await b.claim(opts), { done: true });
    });

    test('a claim that carries a published claim marks it done first: with nothing else out, the crawl is done', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      const seed = page(await a.claim(opts));
      assert.equal((await a.complete(seed, done({ saved: true }))).documentId, 1);
      assert.ok('waitMs' in (await b.claim(opts)), 'the saved seed is out until published');
      assert.deepEqual(await a.claim(opts, [seed]), { done: true });
      assert.deepEqual(await b.claim(opts), { done: true });
    });

    test('a claim that carries several published claims marks each done first (a worker\'s lanes publish together)', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      const seed = page(await a.claim(opts));
      assert.equal((await a.complete(seed, done({ saved: true, links: [e(A, '/1', 1), e(A, '/2', 1)] }))).documentId, 1);
      const one = page(await a.claim(opts, [seed]));
      const two = page(await b.claim(opts));
      assert.deepEqual([one.key, two.key].sort(), [`${A}/1`, `${A}/2`]);
      assert.equal((await b.complete(two, done({ saved: true }))).documentId, 2);
      assert.equal((await a.complete(one, done({ saved: true }))).documentId, 3);
      assert.ok('waitMs' in (await b.claim(opts)), 'both saved pages are out until published');
      // Carried in either order, by a worker that claimed neither (its lanes' pages: any claims of the crawl's).
      assert.deepEqual(await b.claim(opts, [one, two]), { done: true });
      assert.deepEqual(await a.claim(opts), { done: true });
    });

    test('published marks several saved claims done in one call; one claimed again since, and an empty call, change nothing', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      const seed = page(await a.claim(opts));
      assert.equal((await a.complete(seed, done({ saved: true, links: [e(A, '/1', 1), e(A, '/2', 1), e(A, '/3', 1)] }))).documentId, 1);
      await a.published([]);
      const one = page(await a.claim(opts, [seed]));
      const two = page(await b.claim(opts));
      const late = page(await b.claim({ leaseMs: 150, strictBfs: false }));
      for (const [s, c] of [[b, two], [a, one], [b, late]] as const) assert.equal((await s.complete(c, done({ saved: true }))).ok, true);
      await sleep(200);
      // The late one's lease ran out and another claim took it: published with the others, it changes nothing.
      const again = page(await b.claim(opts));
      assert.equal(again.key, late.key);
      await a.published([two, late, one]);
      assert.equal((await b.complete(again, done({ saved: true }))).documentId, 4, 'the same document ID as its first save');
      assert.ok('waitMs' in (await a.claim(opts)), 'the page claimed again is out until published');
      await b.published([again]);
      assert.deepEqual(await a.claim(opts), { done: true });
    });

    test('links in a completion are queued in document order at their depth', { skip }, async () => {
      const { a } = await make();
      await a.open(config());
      const seed = page(await a.claim(opts));
      const r = await a.complete(seed, done({ links: [e(A, '/2', 1), e(A, '/1', 1), e(A, '/2', 1), e(A, '/', 1)] }));
      assert.deepEqual(r.added, [true, true, false, false]);
      const keys: string[] = [];
      for (let i = 0; i < 2; i++) {
        const c = page(await a.claim(opts));
        keys.push(c.key.slice(A.length));
        assert.equal(c.depth, 1);
        await a.complete(c, done());
      }
      assert.deepEqual(keys, ['/2', '/1']);
    });

    test('document IDs are 1..N in completion order, only for saved pages, shared by all workers', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      await a.add([e(A, '/1', 1), e(A, '/2', 1), e(A, '/3', 1)]);
      const ids: Array<number | undefined> = [];
      for (const [s, saved] of [[a, true], [b, false], [b, true], [a, true]] as const) {
        ids.push((await s.complete(page(await s.claim(opts)), done({ saved }))).documentId);
      }
      assert.deepEqual(ids, [1, undefined, 2, 3]);
      assert.equal(await a.lastDocumentId(), 3);
      assert.equal(await b.lastDocumentId(), 3);
    });

    test('a host with a delay is held by its claim, then waits out the delay from the request start', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ delayMs: 300 }));
      await a.add([e(A, '/1', 1), e(B, '/b', 1)]);
      const first = page(await a.claim(opts));
      assert.equal(first.key, `${A}/`);
      assert.equal(first.delayMs, 300);
      // Host A is held: the other worker gets host B's URL, then nothing ready.
      const other = page(await b.claim(opts));
      assert.equal(other.origin, B);
      const w = await b.claim(opts);
      assert.ok('waitMs' in w && w.waitMs >= 1, JSON.stringify(w));
      // The request started now: host A is free again 300 ms after it.
      await a.complete(first, done({ startedAt: first.clock }));
      const soon = await b.claim(opts);
      assert.ok('waitMs' in soon && soon.waitMs > 0 && soon.waitMs <= 300, JSON.stringify(soon));
      await sleep(320);
      const next = page(await b.claim(opts));
      assert.equal(next.key, `${A}/1`);
      assert.ok(next.clock >= first.clock + 300, `claimed ${next.clock - first.clock} ms after the request start`);
    });

    test('a host with no delay is not held: two workers may fetch it at once', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      await a.add([e(A, '/1', 1)]);
      const one = page(await a.claim(opts));
      const two = page(await b.claim(opts));
      assert.notEqual(one.key, two.key);
    });

    test('robots.txt comes first for each host, its answer travels with every later claim, and its Crawl-delay holds', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ robots: true, delayMs: 10 }));
      const r = page(await a.claim(opts));
      assert.equal(r.kind, 'robots');
      assert.equal(r.url, `${A}/robots.txt`);
      assert.equal(r.depth, 0);
      // Nothing of the host before its robots.txt is known.
      const w = await b.claim(opts);
      assert.ok('waitMs' in w, JSON.stringify(w));
      const answer = { status: 200, body: 'User-agent: *\nDisallow: /private\nCrawl-delay: 0.2\n' };
      const rr = await a.complete(r, done({ startedAt: r.clock, robots: { answer, delayMs: 200 } }));
      assert.equal(rr.ok, true);
      assert.equal(rr.documentId, undefined);
      await sleep(220);
      const seed = page(await b.claim(opts));
      assert.equal(seed.kind, 'page');
      assert.deepEqual(seed.robots, answer);
      assert.equal(seed.delayMs, 200);
      // A second host gets its own robots.txt item.
      await b.complete(seed, done({ startedAt: seed.clock, links: [e(B, '/x', 1)] }));
      const rb = page(await a.claim(opts));
      assert.equal(rb.kind, 'robots');
      assert.equal(rb.origin, B);
    });

    test('a retry waits again behind the URLs waiting now, at its depth, with one attempt more, seen by every worker', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      await a.add([e(A, '/1', 1), e(A, '/2', 1)]);
      const seed = page(await a.claim(opts));
      assert.equal(seed.attempts, 0);
      await a.complete(seed, done({ startedAt: seed.clock }));
      const one = page(await a.claim(opts));
      assert.equal(one.key, `${A}/1`);
      const r = await a.complete(one, done({ startedAt: one.clock, retry: true, links: [e(A, '/never', 2)] }));
      assert.equal(r.ok, true);
      assert.equal(r.documentId, undefined);
      // /2 was waiting before the retry, so it comes first; then /1 again, from the other worker, with its attempt counted.
      const two = page(await b.claim(opts));
      assert.equal(two.key, `${A}/2`);
      await b.complete(two, done({ startedAt: two.clock }));
      const again = page(await b.claim(opts));
      assert.equal(again.key, `${A}/1`);
      assert.equal(again.depth, 1);
      assert.equal(again.attempts, 1);
      // A retry's links are not queued: nothing else waits.
      const saved = await b.complete(again, done({ startedAt: again.clock, saved: true }));
      assert.equal(saved.documentId, 1);
      await b.published([again]);
      assert.deepEqual(await a.claim(opts), { done: true });
    });

    test("the host's back-off streak, interval and Retry-After pause are kept on its row for every worker", { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ delayMs: 50 }));
      await a.add([e(A, '/1', 1), e(A, '/2', 1)]);
      const seed = page(await a.claim(opts));
      assert.equal(seed.streak, 0);
      // A push-back: the worker doubled the interval to 400 ms and the server asked for a pause until 250 ms.
      await a.complete(seed, done({ startedAt: seed.clock, host: { streak: 1, intervalMs: 400, pausedUntil: seed.clock + 250 } }));
      const w = await b.claim(opts);
      assert.ok('waitMs' in w && w.waitMs > 0, JSON.stringify(w));
      // The pause ends at 250 ms, the backed-off interval at 400: no claim before then, however late the polls come.
      const next = await claimWhenDue(b, seed.clock + 400, 'the backed-off interval');
      assert.equal(next.streak, 1);
      // A pause longer than the interval holds the host by itself.
      await b.complete(next, done({ startedAt: next.clock, host: { streak: 0, intervalMs: 50, pausedUntil: next.clock + 300 } }));
      const last = await claimWhenDue(a, next.clock + 300, 'the pause');
      assert.equal(last.streak, 0);
      assert.equal(last.refusal, undefined);
      // A pause beyond the cap: the host's refusal travels with its later claims, and a later completion cannot clear it.
      await a.add([e(A, '/3', 1), e(A, '/4', 1)]);
      await a.complete(last, done({ startedAt: last.clock, host: { streak: 1, intervalMs: 50, pausedUntil: undefined, refusal: 'asked for 3600 s' } }));
      await sleep(110);
      const refused = page(await b.claim(opts));
      assert.equal(refused.refusal, 'asked for 3600 s');
      await b.complete(refused, done({ host: { streak: 1, intervalMs: 50, pausedUntil: undefined } }));
      await sleep(60);
      assert.equal(page(await a.claim(opts)).refusal, 'asked for 3600 s');
    });

    test("robotsFor: a new host's robots.txt is claimed at once (its row made), another worker waits, then every worker gets the answer", { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ robots: true, delayMs: 10 }));
      const r = await a.robotsFor(B, 1, opts);
      assert.ok('claim' in r, JSON.stringify(r));
      assert.equal(r.claim.kind, 'robots');
      assert.equal(r.claim.url, `${B}/robots.txt`);
      // While it is out, neither the other worker nor the queue hands it out again.
      const w = await b.robotsFor(B, 1, opts);
      assert.ok('waitMs' in w && w.waitMs >= 1, JSON.stringify(w));
      const answer = { status: 200, body: 'User-agent: *\nDisallow: /x\n' };
      assert.equal((await a.complete(r.claim, done({ startedAt: r.claim.clock, robots: { answer, delayMs: 10 } }))).ok, true);
      assert.deepEqual(await b.robotsFor(B, 1, opts), { answer });
      // A URL of that host queued later needs no robots.txt claim: the first claim of host B is a page.
      const seedRobots = page(await a.claim(opts));
      assert.equal(seedRobots.origin, A);
      await a.complete(seedRobots, done({ startedAt: seedRobots.clock, robots: { answer: { status: 404, body: '' }, delayMs: 10 } }));
      await sleep(15);
      const seed = page(await a.claim(opts));
      await a.complete(seed, done({ startedAt: seed.clock, links: [e(B, '/ok', 1)] }));
      const ok = page(await b.claim(opts));
      assert.deepEqual([ok.kind, ok.key, ok.robots], ['page', `${B}/ok`, answer]);
    });

    test('robotsFor with robots.txt ignored: every host answers at once, nothing to fetch', { skip }, async () => {
      const { a } = await make();
      await a.open(config({ robots: false }));
      const r = await a.robotsFor(B, 1, opts);
      assert.ok('answer' in r, JSON.stringify(r));
    });

    test('a lease that runs out gives the URL to another worker; the late completion is refused and saves nothing', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ delayMs: 50 }));
      const lost = page(await a.claim({ leaseMs: 150, strictBfs: false }));
      const early = await b.claim(opts);
      assert.ok('waitMs' in early, 'the claim is still held');
      await sleep(230); // its lease, then the host's interval
      const again = page(await b.claim(opts));
      assert.equal(again.key, lost.key);
      assert.notEqual(again.token, lost.token);
      const late = await a.complete(lost, done({ saved: true, links: [e(A, '/late', 1)] }));
      assert.deepEqual(late, { ok: false, documentId: undefined, added: [false] });
      const ok = await b.complete(again, done({ saved: true, links: [e(A, '/late', 1)] }));
      assert.deepEqual(ok, { ok: true, documentId: 1, added: [true] });
    });

    test('a saved page is out until published; when its lease runs out first it is claimed again, and saved under the same document ID', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      // The worker that claimed it dies after the store recorded the page, before the page had its name.
      const dead = page(await a.claim({ leaseMs: 150, strictBfs: false }));
      assert.deepEqual(await a.complete(dead, done({ saved: true, links: [e(A, '/1', 1)] })), { ok: true, documentId: 1, added: [true] });
      const other = page(await b.claim(opts));
      assert.equal(other.key, `${A}/1`);
      assert.deepEqual(await b.complete(other, done({ saved: true })), { ok: true, documentId: 2, added: [] });
      await b.published([other]);
      const w = await b.claim(opts);
      assert.ok('waitMs' in w, `the unpublished page is still out: ${JSON.stringify(w)}`);
      await sleep(200);
      const again = page(await b.claim(opts));
      assert.equal(again.key, dead.key);
      await a.published([dead]); // too late: its lease ran out, this changes nothing
      assert.deepEqual(await b.complete(again, done({ saved: true, links: [e(A, '/1', 1)] })), { ok: true, documentId: 1, added: [false] });
      assert.ok('waitMs' in (await a.claim(opts)), 'still out until published');
      await b.published([again]);
      assert.deepEqual(await a.claim(opts), { done: true });
      assert.equal(await a.lastDocumentId(), 2);
    });

    test('a robots.txt claim whose lease runs out is claimed again', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ robots: true }));
      const r = page(await a.claim({ leaseMs: 100, strictBfs: false }));
      await sleep(150);
      const r2 = page(await b.claim(opts));
      assert.equal(r2.kind, 'robots');
      assert.equal((await a.complete(r, done({ robots: { answer: { status: 404, body: '' }, delayMs: 0 } }))).ok, false);
      assert.equal((await b.complete(r2, done({ robots: { answer: { status: 404, body: '' }, delayMs: 0 } }))).ok, true);
    });

    test('a request sent under a lease that ran out, or under a claim given back, still holds the host for its interval', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ delayMs: 400 }));
      const late = page(await a.claim({ leaseMs: 50, strictBfs: false }));
      const taken = await claimWhenDue(b, late.clock + 50 + 400, 'the lost lease and the interval after it');
      assert.equal(taken.key, late.key, 'the lease ran out: another worker has the URL');
      // The slow worker's request left just now, under the lost lease: the completion is refused, its start is not.
      const refused = await a.complete(late, done({ startedAt: taken.clock, saved: true }));
      assert.equal(refused.ok, false);
      // The new holder sends nothing (say the page is disallowed): the host is free, but not ready.
      await b.complete(taken, done());
      await a.add([e(A, '/1', 1)]);
      const w = await b.claim(opts);
      assert.ok('waitMs' in w, `claimed within the interval of a request sent under a lost lease: ${JSON.stringify(w)}`);
      await sleep(450);
      const next = page(await b.claim(opts));
      assert.ok(next.clock >= taken.clock + 400, `claimed ${next.clock - taken.clock} ms after that request`);
      // Given back after its request was sent (a stop while its links were judged): the start counts.
      await b.release(next, next.clock);
      const w2 = await a.claim(opts);
      assert.ok('waitMs' in w2, `claimed within the interval of a request sent under a released claim: ${JSON.stringify(w2)}`);
      // Given back with no request sent: the host is free at once.
      await sleep(450);
      const third = page(await a.claim(opts));
      await a.release(third);
      assert.ok('claim' in (await b.claim(opts)), 'a claim given back unfetched holds nothing');
    });

    test('a claim whose lease runs out holds its host one interval more: its holder may have sent its request at the last moment, and never says so', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ delayMs: 300, robots: true }));
      // robots.txt: the dead worker sent it at the end of its lease (and died); the host waits the interval from there.
      const robots = page(await a.claim({ leaseMs: 100, strictBfs: false }));
      assert.equal(robots.kind, 'robots');
      await sleep(130);
      const held = await b.claim(opts);
      assert.ok('waitMs' in held, `host given out within the interval after a robots lease ran out: ${JSON.stringify(held)}`);
      const robots2 = await claimWhenDue(b, robots.clock + 100 + 300, 'the robots lease and the interval after it');
      assert.equal(robots2.kind, 'robots');
      await b.complete(robots2, done({ startedAt: robots2.clock, robots: { answer: { status: 404, body: '' }, delayMs: 300 } }));
      // A page: the same, whether the URL is claimed again or another of the host's.
      await b.add([e(A, '/1', 1)]);
      const dead = await claimWhenDue(a, robots2.clock + 300, "robots.txt's interval", { leaseMs: 100, strictBfs: false });
      assert.equal(dead.kind, 'page');
      await sleep(130);
      const w = await b.claim(opts);
      assert.ok('waitMs' in w, `host given out within the interval after a page lease ran out: ${JSON.stringify(w)}`);
      const next = await claimWhenDue(b, dead.clock + 100 + 300, 'the page lease and the interval after it');
      // A holder that completes (or gives back) frees the host at once: only its request start counts.
      await b.complete(next, done());
      assert.ok('claim' in (await a.claim(opts)), 'completed with no request sent: the host is free');
    });

    test('release gives a claim back: the URL waits again and the host is free', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ delayMs: 1000 }));
      const c = page(await a.claim(opts));
      await a.release(c);
      const again = page(await b.claim(opts));
      assert.equal(again.key, c.key);
      assert.equal((await a.complete(c, done())).ok, false);
    });

    test('while a claim is out and nothing waits, workers are told to wait, not that the crawl is done', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      const c = page(await a.claim(opts));
      const w = await b.claim(opts);
      assert.ok('waitMs' in w && w.waitMs >= 1 && w.waitMs <= 250, JSON.stringify(w));
      await a.complete(c, done());
      assert.deepEqual(await b.claim(opts), { done: true });
    });

    test('strict breadth first: no URL of depth d+1 while one of depth d waits or is claimed', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      await a.add([e(A, '/a1', 1), e(B, '/b2', 2)]);
      const strict = { leaseMs: 60_000, strictBfs: true };
      const seed = page(await a.claim(strict));
      assert.equal(seed.depth, 0);
      const w = await b.claim(strict);
      assert.ok('waitMs' in w, `depth 1 and 2 wait for depth 0: ${JSON.stringify(w)}`);
      // Without strict order, the depth-1 URL is ready while depth 0 is out.
      const a1 = page(await b.claim(opts));
      assert.equal(a1.key, `${A}/a1`);
      await a.complete(seed, done());
      const w2 = await a.claim(strict);
      assert.ok('waitMs' in w2, `depth 2 waits for the claimed depth-1 URL: ${JSON.stringify(w2)}`);
      await b.complete(a1, done());
      assert.equal(page(await a.claim(strict)).key, `${B}/b2`);
    });

    test('redirect hops travel with the queued URL: given back on its claim (also after a release); 0 for seeds, links and robots.txt; de-duplication is by key alone', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ robots: true }));
      const r = page(await a.claim(opts));
      assert.deepEqual([r.kind, r.hops], ['robots', 0]);
      await a.complete(r, done({ startedAt: r.clock, robots: { answer: { status: 404, body: '' }, delayMs: 0 } }));
      const seed = page(await a.claim(opts));
      assert.deepEqual([seed.kind, seed.hops], ['page', 0]);
      // The seed redirected: its target is queued at the seed's depth with one hop; a link has none.
      const res = await a.complete(seed, done({ links: [{ ...e(A, '/moved', 0), hops: 1 }, e(A, '/link', 1)] }));
      assert.deepEqual(res.added, [true, true]);
      assert.deepEqual(await b.add([{ ...e(A, '/far', 1), hops: 4 }, { ...e(A, '/link', 1), hops: 2 }, { ...e(A, '/moved', 0), hops: 3 }]), [true, false, false]);
      const moved = page(await b.claim(opts));
      assert.deepEqual([moved.key, moved.depth, moved.hops], [`${A}/moved`, 0, 1]);
      await b.release(moved);
      const again = page(await a.claim(opts));
      assert.deepEqual([again.key, again.hops], [`${A}/moved`, 1], 'a URL given back keeps its hops');
      await a.complete(again, done());
      const got: Array<[string, number]> = [];
      for (let c = await b.claim(opts); 'claim' in c; c = await b.claim(opts)) {
        got.push([c.claim.key.slice(A.length), c.claim.hops]);
        await b.complete(c.claim, done());
      }
      assert.deepEqual(got, [['/link', 0], ['/far', 4]]);
    });

    test('a page budget (maxPages): answered completions count, claims out hold room, then the crawl is spent; joining workers must agree', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ maxPages: 3 }));
      assert.deepEqual(await b.open(config({ maxPages: 3 })), { created: false });
      for (const [other, words] of [[config({ maxPages: 5 }), 'its --max-pages is 3, not 5'], [config(), 'its --max-pages is 3, not unset']] as const) {
        await assert.rejects(b.open(other), (err: unknown) => isCrawlerError(err, 'ERR_STATE') && err.message.includes(words), words);
      }
      await a.add([e(A, '/1', 1), e(A, '/2', 1), e(A, '/3', 1), e(A, '/4', 1)]);
      const seed = page(await a.claim(opts));
      const one = page(await b.claim(opts));
      const two = page(await a.claim(opts));
      // Three claims out, any of which may count: no fourth, however many URLs wait.
      assert.deepEqual(await b.claim(opts), { waitMs: POLL_WAIT_MS });
      // The seed's answer does not count (a redirect, say): its room is given back.
      await a.complete(seed, done());
      const three = page(await b.claim(opts));
      assert.deepEqual(await a.claim(opts), { waitMs: POLL_WAIT_MS });
      // Saved and answered: it counts, and it is no longer out (though unpublished).
      assert.equal((await b.complete(one, done({ saved: true, answered: true }))).ok, true);
      assert.deepEqual(await a.claim(opts), { waitMs: POLL_WAIT_MS });
      await a.complete(two, done({ answered: true }));
      assert.deepEqual(await a.claim(opts), { waitMs: POLL_WAIT_MS }, 'two answered, one out: full');
      // A retry does not count: room for one more page.
      await b.complete(three, done({ retry: true }));
      const four = page(await a.claim(opts));
      await a.complete(four, done({ answered: true }));
      // Spent: the crawl is done for every worker, though URLs wait and a saved page is unpublished.
      assert.deepEqual(await b.claim(opts), { done: true, spent: true });
      assert.deepEqual(await a.claim(opts, [one]), { done: true, spent: true });
    });

    test('a page budget: a completion whose lease was lost does not count; once spent no robots.txt is claimed either', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ maxPages: 1, robots: true }));
      const r = page(await a.claim(opts));
      assert.equal(r.kind, 'robots');
      await a.complete(r, done({ startedAt: r.clock, answered: true, robots: { answer: { status: 404, body: '' }, delayMs: 0 } }));
      const lost = page(await a.claim({ leaseMs: 100, strictBfs: false }));
      assert.equal(lost.kind, 'page', 'a robots.txt completion never counts');
      assert.deepEqual(await b.claim(opts), { waitMs: POLL_WAIT_MS });
      await sleep(150);
      const again = page(await b.claim(opts));
      assert.equal(again.key, lost.key);
      assert.equal((await a.complete(lost, done({ answered: true, links: [e(B, '/b', 1)] }))).ok, false);
      assert.deepEqual(await a.claim(opts), { waitMs: POLL_WAIT_MS }, 'the late completion counted nothing: the new claim is out');
      await b.complete(again, done({ answered: true, links: [e(B, '/b', 1)] }));
      // Host B's robots.txt is unknown and its page waits: nothing more is fetched.
      assert.deepEqual(await a.claim(opts), { done: true, spent: true });
    });

    test('a page budget holds at any concurrency: lanes of two workers together answer exactly maxPages pages', { skip }, async () => {
      // Several crawls: a race for the last page is lost only now and then.
      for (let round = 0; round < 4; round++) await budgetRace(await make(), 5);
    });

    test("turn: a free host's turn holds it (its row made when new); other turns and its pages wait; release ends it from its request start", { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ delayMs: 300 }));
      const t = await a.turn(B, opts);
      assert.ok('claim' in t, JSON.stringify(t));
      const turn = t.claim;
      assert.deepEqual([turn.kind, turn.origin, turn.key, turn.url, turn.depth, turn.hops, turn.delayMs], ['turn', B, `${B}/robots.txt`, `${B}/robots.txt`, 0, 0, 300]);
      assert.deepEqual(await b.turn(B, opts), { waitMs: POLL_WAIT_MS });
      await a.add([e(B, '/b', 1)]);
      assert.equal(page(await b.claim(opts)).origin, A);
      assert.ok('waitMs' in (await b.claim(opts)), 'host B is held by its turn');
      await a.release(turn, turn.clock);
      const w = await b.turn(B, opts);
      assert.ok('waitMs' in w && w.waitMs > 0, `host B waits its interval from the turn's request: ${JSON.stringify(w)}`);
      const next = await claimWhenDue(b, turn.clock + 300, "the turn's interval");
      assert.deepEqual([next.kind, next.key], ['page', `${B}/b`]);
    });

    test("turn: ending it never changes the host's robots.txt state nor its queue; a host with no delay is not held but answers a claim", { skip }, async () => {
      const { a, b } = await make();
      await a.open(config({ robots: true }));
      const t1 = await a.turn(A, opts);
      const t2 = await b.turn(A, opts);
      assert.ok('claim' in t1 && 'claim' in t2, JSON.stringify([t1, t2]));
      assert.equal(t1.claim.robots, undefined, 'robots.txt not known yet');
      await a.release(t1.claim);
      await b.release(t2.claim);
      const r = page(await b.claim(opts));
      assert.deepEqual([r.kind, r.origin], ['robots', A], "the host's robots.txt is still to fetch");
      // A turn while the host's robots.txt is claimed: another holds the host.
      assert.deepEqual(await a.turn(A, opts), { waitMs: POLL_WAIT_MS });
      const answer = { status: 200, body: 'User-agent: *\nDisallow: /x\n' };
      await b.complete(r, done({ robots: { answer, delayMs: 0 } }));
      const t3 = await a.turn(A, opts);
      assert.ok('claim' in t3, JSON.stringify(t3));
      assert.deepEqual(t3.claim.robots, answer);
      assert.equal((await a.complete(t3.claim, done({ answered: true }))).ok, false, 'a turn is ended by release, not completed');
      await a.release(t3.claim);
      assert.deepEqual(await b.robotsFor(A, 0, opts), { answer });
      const seed = page(await b.claim(opts));
      assert.deepEqual([seed.kind, seed.key, seed.robots], ['page', `${A}/`, answer]);
      await b.complete(seed, done());
      assert.deepEqual(await a.claim(opts), { done: true });
    });

    test('many concurrent claimers: every URL is claimed once and IDs are 1..N without a gap', { skip }, async () => {
      const { a, b } = await make();
      await a.open(config());
      const n = 60;
      const link = (i: number): ClaimEntry => e(i % 2 === 0 ? A : B, `/p${i}`, 1);
      await a.add(Array.from({ length: n }, (_, i) => link(i)));
      const seen: string[] = [];
      const ids: number[] = [];
      const lane = async (s: ClaimStore): Promise<void> => {
        for (;;) {
          const r = await s.claim(opts);
          if ('done' in r) return;
          if ('waitMs' in r) {
            await sleep(r.waitMs);
            continue;
          }
          seen.push(r.claim.key);
          const res = await s.complete(r.claim, done({ saved: true, links: [link(seen.length % n)] }));
          ids.push(res.documentId as number);
          await s.published([r.claim]);
        }
      };
      await Promise.all([lane(a), lane(b), lane(a), lane(b)]);
      // Every link completed is a duplicate: nothing is queued twice.
      assert.equal(seen.length, n + 1);
      assert.equal(new Set(seen).size, n + 1);
      assert.deepEqual([...ids].sort((x, y) => x - y), Array.from({ length: n + 1 }, (_, i) => i + 1));
    });
  });
}
