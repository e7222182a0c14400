/**
 * How a PostgreSQL claim finds the next host: through the index of hosts'
 * turns (each host's min_depth, then when its turn comes), so a claim reads
 * a few rows however many hosts the crawl has; and the min_depth each host
 * row keeps stays true (never above a waiting URL's depth, never NULL while
 * one waits) while many claims and completions run at once. And a worker's
 * lanes share a few connections: each is a server process to start.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PostgresClaimStore } from '../../src/frontier/claim-postgres.js';
import type { ClaimEntry, ClaimStore } from '../../src/frontier/claim-store.js';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';

const origin = (i: number): string => `http://127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}:8000`;
const entry = (i: number, path: string, depth: number): ClaimEntry => ({ key: `${origin(i)}${path}`, url: `${origin(i)}${path}`, depth, origin: origin(i) });

/**
 * Rows of pc_hosts and pc_queue one call read, in its own transaction (rolled
 * back): the difference of the transaction's counts around the call (they
 * may still hold the backend's earlier transactions' until it flushes them).
 */
async function rowsRead(client: pg.Client, sql: string, params: unknown[]): Promise<{ hosts: number; queue: number; result: Record<string, unknown> }> {
  const counts = async (): Promise<{ hosts: number; queue: number }> => {
    const stats = await client.query<{ relname: string; n: string }>(
      `SELECT relname, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n FROM pg_stat_xact_user_tables WHERE relname IN ('pc_hosts', 'pc_queue')`,
    );
    const n = (rel: string): number => Number(stats.rows.find((r) => r.relname === rel)?.n ?? 0);
    return { hosts: n('pc_hosts'), queue: n('pc_queue') };
  };
  await client.query('BEGIN');
  try {
    const before = await counts();
    const result = (await client.query(sql, params)).rows[0] as Record<string, unknown>;
    const after = await counts();
    return { hosts: after.hosts - before.hosts, queue: after.queue - before.queue, result };
  } finally {
    await client.query('ROLLBACK');
  }
}

/** A store on a fresh database (with at most `connections` connections), and another client to hold rows with; all ended after the test. */
async function storeAndHolder(t: TestContext, connections?: number): Promise<{ store: PostgresClaimStore; holder: pg.Client }> {
  const db = await freshDatabase();
  const store = new PostgresClaimStore(db.url, connections === undefined ? {} : { maxConnections: connections });
  const holder = new pg.Client({ connectionString: db.url });
  t.after(async () => {
    await holder.query('ROLLBACK').catch(() => undefined);
    await holder.end().catch(() => undefined);
    await store.close();
    await db.drop();
  });
  return { store, holder };
}

test('a claim among 2,000 hosts reads a few rows, not one per host: when a host is ready, and when none is (the wait)', { skip: pgSkipReason }, async (t) => {
  const { store, holder: client } = await storeAndHolder(t);
  const hosts = 2000;
  await store.open({ seed: entry(0, '/', 0), maxDepth: 3, delayMs: 1000, robots: false });
  await store.add(Array.from({ length: hosts }, (_, i) => [entry(i, '/a', 1), entry(i, '/b', 2)]).flat());
  // The seed is done and a few hosts are out (held), as in a crawl under way.
  const seed = await store.claim({ leaseMs: 60_000, strictBfs: false });
  assert.ok('claim' in seed && seed.claim.depth === 0);
  assert.ok((await store.complete(seed.claim, { startedAt: seed.claim.clock, links: [], saved: false })).ok);
  for (let i = 0; i < 20; i++) assert.ok('claim' in (await store.claim({ leaseMs: 60_000, strictBfs: false })));
  await client.connect();
  const claim = 'SELECT * FROM pc_claim(60000, $1, 20, NULL, NULL, 987654321, false)';
  for (const strict of [false, true]) {
    const ready = await rowsRead(client, claim, [strict]);
    assert.equal(ready.result['kind'], 'page', `strict ${strict}: a page is claimed`);
    assert.equal(ready.result['depth'], 1);
    assert.ok(ready.hosts < 60 && ready.queue < 60, `strict ${strict}: read ${ready.hosts} host rows and ${ready.queue} queue rows`);
  }
  await client.query('UPDATE pc_hosts SET next_fetch_at = pc_now() + 60000');
  const none = await rowsRead(client, claim, [false]);
  assert.equal(none.result['kind'], null, 'nothing is ready: a wait');
  assert.ok(Number(none.result['wait_ms']) > 0);
  assert.ok(none.hosts < 60 && none.queue < 60, `the wait read ${none.hosts} host rows and ${none.queue} queue rows`);
});

/** A small PRNG, so a failure can be run again as it was. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

for (const delayMs of [0, 2]) {
  test(`many claims and completions at once over 40 hosts linking to each other (delay ${delayMs} ms): no deadlock, every URL once, and every committed state keeps min_depth true`, { skip: pgSkipReason }, async (t) => {
    const db = await freshDatabase();
    const stores = [new PostgresClaimStore(db.url), new PostgresClaimStore(db.url)];
    const watcher = new pg.Client({ connectionString: db.url });
    t.after(async () => {
      await watcher.end().catch(() => undefined);
      for (const s of stores) await s.close();
      await db.drop();
    });
    const hosts = 40;
    const pages = 8;
    const maxDepth = 3;
    await stores[0]!.open({ seed: entry(0, '/p0', 0), maxDepth, delayMs, robots: false });
    await stores[1]!.open({ seed: entry(0, '/p0', 0), maxDepth, delayMs, robots: false });
    await watcher.connect();
    const next = random(delayMs + 7);
    const claimed: string[] = [];
    const ids: number[] = [];
    let running = true;
    const lane = async (s: ClaimStore, strictBfs: boolean): Promise<void> => {
      for (;;) {
        const r = await s.claim({ leaseMs: 60_000, strictBfs });
        if ('done' in r) return;
        if ('waitMs' in r) {
          await sleep(Math.min(r.waitMs, 5));
          continue;
        }
        claimed.push(r.claim.key);
        const links = r.claim.depth >= maxDepth ? [] : Array.from({ length: 6 }, () => entry(Math.floor(next() * hosts), `/p${Math.floor(next() * pages)}`, r.claim.depth + 1));
        const res = await s.complete(r.claim, { startedAt: r.claim.clock, links, saved: true });
        assert.ok(res.ok);
        ids.push(res.documentId as number);
        await s.published([r.claim]);
      }
    };
    // Any committed state: no host's min_depth above a URL of it that waits (NULL counts as above).
    const violations: string[] = [];
    const watch = (async () => {
      const check = `SELECT h.origin, h.min_depth, (SELECT min(q.depth) FROM pc_queue q WHERE q.host_id = h.id AND q.state = 0) AS waiting
        FROM pc_hosts h WHERE EXISTS (SELECT 1 FROM pc_queue q WHERE q.host_id = h.id AND q.state = 0 AND (h.min_depth IS NULL OR q.depth < h.min_depth))`;
      let checks = 0;
      while (running || checks === 0) {
        const bad = await watcher.query<{ origin: string; min_depth: number | null; waiting: number }>(check);
        for (const b of bad.rows) violations.push(`${b.origin}: min_depth ${b.min_depth}, a URL waits at depth ${b.waiting}`);
        checks++;
        await sleep(2);
      }
      return checks;
    })();
    const lanes = stores.flatMap((s, i) => Array.from({ length: 4 }, (_, j) => lane(s, (i + j) % 3 === 0)));
    await Promise.all(lanes).finally(() => {
      running = false;
    });
    const checks = await watch;
    assert.deepEqual(violations, [], `${checks} checks`);
    assert.ok(checks > 3, `the watcher looked ${checks} times`);
    assert.equal(new Set(claimed).size, claimed.length, 'no URL claimed twice');
    assert.ok(claimed.length > hosts, `${claimed.length} pages`);
    const waiting = await watcher.query<{ n: string }>('SELECT count(*) AS n FROM pc_queue WHERE state < 2');
    assert.equal(Number(waiting.rows[0]!.n), 0, 'nothing left');
    const hints = await watcher.query<{ n: string }>('SELECT count(*) AS n FROM pc_hosts WHERE min_depth IS NOT NULL');
    assert.equal(Number(hints.rows[0]!.n), 0, 'no host keeps a min_depth once nothing waits');
    assert.deepEqual([...ids].sort((x, y) => x - y), Array.from({ length: claimed.length }, (_, i) => i + 1));
  });
}

test('a worker of 64 lanes keeps at most MAX_PG_CONNECTIONS connections, however many of its calls are out at once; each claim of a burst over ready hosts gets one', { skip: pgSkipReason }, async (t) => {
  const { openClaimStore, MAX_PG_CONNECTIONS } = await import('../../src/programs/tse-worker.js');
  const db = await freshDatabase();
  const store = await openClaimStore(db.url, 64);
  const admin = new pg.Client({ connectionString: db.url });
  t.after(async () => {
    await admin.end().catch(() => undefined);
    await store.close();
    await db.drop();
  });
  await store.open({ seed: entry(0, '/', 0), maxDepth: 2, delayMs: 0, robots: false });
  await store.add(Array.from({ length: 600 }, (_, i) => entry(i, '/a', 1)));
  await admin.connect();
  // Eight bursts of 64 claims over the ready hosts: every one gets a claim. A claim's walk must not
  // count the hosts the others emptied while it walked (on a busy machine, dozens) and answer "wait".
  for (let round = 1; round <= 8; round++) {
    const results = await Promise.all(Array.from({ length: 64 }, () => store.claim({ leaseMs: 60_000, strictBfs: false })));
    const others = results.filter((r) => !('claim' in r));
    assert.deepEqual(others, [], `burst ${round}: every lane got its claim`);
  }
  const n = await admin.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  assert.ok(MAX_PG_CONNECTIONS < 64);
  assert.ok(Number(n.rows[0]!.n) <= MAX_PG_CONNECTIONS, `${n.rows[0]!.n} connections`);
  assert.ok(Number(n.rows[0]!.n) >= 2, 'calls at once used more than one connection');
});

test('a claim of a host with no delay never waits for its row: a completion holding it (which may wait for rows the claim holds) does not stop it', { skip: pgSkipReason }, async (t) => {
  const { store, holder } = await storeAndHolder(t);
  await store.open({ seed: entry(0, '/', 0), maxDepth: 3, delayMs: 0, robots: false });
  await store.add([entry(0, '/a', 1), entry(0, '/b', 1)]);
  const seed = await store.claim({ leaseMs: 60_000, strictBfs: false });
  assert.ok('claim' in seed && seed.claim.depth === 0);
  assert.ok((await store.complete(seed.claim, { startedAt: seed.claim.clock, links: [], saved: false })).ok);
  // Another transaction holds the host's row, as a completion does while it adds links.
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT 1 FROM pc_hosts WHERE origin = $1 FOR NO KEY UPDATE', [origin(0)]);
  const first = await Promise.race([store.claim({ leaseMs: 60_000, strictBfs: false }), sleep(5000).then(() => 'waited' as const)]);
  assert.notEqual(first, 'waited', 'the claim waited for the host row another transaction holds');
  assert.ok(typeof first === 'object' && 'claim' in first && first.claim.depth === 1);
  await holder.query('COMMIT');
  // The host's min_depth was left as it was (the row was taken): the next claims still find the rest.
  const second = await store.claim({ leaseMs: 60_000, strictBfs: false });
  assert.ok('claim' in second && second.claim.depth === 1 && second.claim.key !== first.claim.key);
  for (const c of [first.claim, second.claim]) assert.ok((await store.complete(c, { startedAt: c.clock, links: [], saved: false })).ok);
  assert.deepEqual(await store.claim({ leaseMs: 60_000, strictBfs: false }), { done: true });
});

test("a claim's send time is read once a connection is free, not while the call waits for one (the store's clock is mapped from it)", { skip: pgSkipReason }, async (t) => {
  const { store, holder } = await storeAndHolder(t, 1);
  await store.open({ seed: entry(0, '/', 0), maxDepth: 2, delayMs: 0, robots: false });
  await store.add([entry(1, '/', 1)]);
  const seed = await store.claim({ leaseMs: 60_000, strictBfs: false });
  assert.ok('claim' in seed && seed.claim.depth === 0);
  // The store's one connection is taken by a saved page's completion, which waits for the document counter's row.
  await holder.connect();
  await holder.query('BEGIN');
  await holder.query('SELECT 1 FROM pc_crawl WHERE id = 1 FOR UPDATE');
  const completing = store.complete(seed.claim, { startedAt: seed.claim.clock, links: [], saved: true });
  await sleep(50);
  const claiming = store.claim({ leaseMs: 60_000, strictBfs: false });
  await sleep(400);
  const freed = performance.now();
  await holder.query('COMMIT');
  assert.ok((await completing).ok);
  const next = await claiming;
  assert.ok('claim' in next && next.claim.sentAt !== undefined);
  // Read before its turn for the connection, sentAt was some 400 ms early: the host's next turn that much late.
  assert.ok(next.claim.sentAt >= freed - 5, `sent at ${(freed - next.claim.sentAt).toFixed(1)} ms before the connection was free`);
});
