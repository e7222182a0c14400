/**
 * Every call of the PostgreSQL store is safe to make again after a lost
 * connection, whether or not its first try committed. Here each call's
 * first try runs and commits, and then its answer is lost (the connection says
 * the server went away, 57P01), as when a restart cuts a connection
 * mid-commit: the store makes the call again, and the crawl's state is as
 * if the call had run once (one claim out, one document ID, each link
 * queued once and told as new, one attempt more).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import type { Claim, ClaimResult } from '../../src/frontier/claim-store.js';
import { PostgresClaimStore } from '../../src/frontier/claim-postgres.js';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';

const A = 'http://127.0.0.1:8001';
const B = 'http://127.0.0.1:8002';
const entry = (origin: string, path: string, depth: number) => ({ key: `${origin}${path}`, url: `${origin}${path}`, depth, origin });
const opts = { leaseMs: 60_000, strictBfs: false };

function claimOf(r: ClaimResult): Claim {
  assert.ok('claim' in r, `expected a claim, got ${JSON.stringify(r)}`);
  return r.claim;
}

test('a call whose first try committed but whose answer was lost answers, made again, what the first did, and does nothing twice', { skip: pgSkipReason }, async (t) => {
  const db = await freshDatabase();
  const store = new PostgresClaimStore(db.url, { sleep: async () => undefined });
  const admin = new pg.Client({ connectionString: db.url });
  t.after(async () => {
    await admin.end().catch(() => undefined);
    await store.close();
    await db.drop();
  });
  await admin.connect();
  const one = async (sql: string): Promise<unknown> => Object.values((await admin.query(sql)).rows[0] ?? {})[0];
  // The fault: the next `lose` calls run on the server, then their answers are lost. A call runs on a
  // connection taken from the pool: each connection's query is wrapped once.
  const pool = (store as unknown as { pool: pg.Pool }).pool;
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const wrapped = new WeakSet<pg.PoolClient>();
  let lose = 0;
  let lost = 0;
  (pool as unknown as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
    const client = await connect();
    if (wrapped.has(client)) return client;
    wrapped.add(client);
    const query = client.query.bind(client) as (q: unknown, v?: unknown) => Promise<unknown>;
    (client as unknown as { query: (q: unknown, v?: unknown) => Promise<unknown> }).query = async (q, v) => {
      const answer = await query(q, v);
      if (lose > 0) {
        lose--;
        lost++;
        throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      }
      return answer;
    };
    return client;
  };

  await store.open({ seed: entry(A, '/', 0), maxDepth: 3, delayMs: 0, robots: true });
  // robots.txt of the seed's host, claimed through pc_claim.
  lose = 1;
  const robots = claimOf(await store.claim(opts));
  assert.equal(robots.kind, 'robots');
  assert.equal(await one(`SELECT count(*)::int FROM pc_hosts WHERE robots_state = 1 AND reserved_by = ${robots.token}`), 1, 'the robots claim is the first try\'s');
  lose = 1;
  const robotsDone = await store.complete(robots, { startedAt: robots.clock, links: [], saved: false, robots: { answer: { status: 404, body: '' }, delayMs: 0 } });
  assert.equal(robotsDone.ok, true, 'a completion that committed is not told as a lost lease');

  // The seed page: claimed, then completed as saved with two links.
  lose = 1;
  const seed = claimOf(await store.claim(opts));
  assert.equal(seed.key, `${A}/`);
  assert.equal(await one('SELECT count(*)::int FROM pc_queue WHERE state = 1'), 1, 'one claim out, not two');
  const links = [entry(A, '/1', 1), entry(B, '/2', 2)]; // B's deeper: A's page is claimed next
  lose = 1;
  const saved = await store.complete(seed, { startedAt: seed.clock, links, saved: true });
  assert.deepEqual(saved, { ok: true, documentId: 1, added: [true, true] }, 'the same ID, and the links told as new (the first try added them)');
  assert.equal(await one('SELECT last_doc::int FROM pc_crawl'), 1, 'one document ID taken');
  assert.equal(await one(`SELECT count(*)::int FROM pc_queue WHERE key IN ('${A}/1', '${B}/2')`), 2, 'each link queued once');
  lose = 1;
  await store.published([seed]);
  assert.equal(await one(`SELECT state::int FROM pc_queue WHERE token = ${seed.token}`), 2);
  assert.equal(await one(`SELECT count(*)::int FROM pc_done WHERE token = ${seed.token}`), 0, 'a published page\'s completion record is dropped');

  // A page sent back for a retry, made again: one attempt more, not two.
  lose = 1;
  const page = claimOf(await store.claim(opts));
  assert.equal(page.key, `${A}/1`);
  lose = 1;
  const retried = await store.complete(page, { startedAt: page.clock, links: [], saved: false, retry: true });
  assert.equal(retried.ok, true);
  assert.equal(await one(`SELECT attempts::int FROM pc_queue WHERE key = '${A}/1'`), 1);
  assert.equal(await one(`SELECT state::int FROM pc_queue WHERE key = '${A}/1'`), 0);

  // robots.txt of a host a link leads to, claimed through pc_robots_for.
  lose = 1;
  const forB = await store.robotsFor(B, 1, opts);
  assert.ok('claim' in forB, `the first try's robots claim, not a wait: ${JSON.stringify(forB)}`);
  // Given back, made again: the host is free and its robots.txt waits again.
  lose = 1;
  await store.release(forB.claim);
  assert.equal(await one(`SELECT robots_state::int FROM pc_hosts WHERE origin = '${B}'`), 0);
  assert.equal(await one(`SELECT count(*)::int FROM pc_hosts WHERE reserved_by <> 0`), 0);
  assert.equal(lost, 9, 'every call above lost one answer');
});
