/**
 * What only the PostgreSQL ClaimStore has to show (the contract suite covers
 * the rest): its claims never wait for a row another transaction holds, so
 * two claims can never wait for each other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PostgresClaimStore } from '../../src/frontier/claim-postgres.js';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';

const A = 'http://127.0.0.1:8001';
const seed = { key: `${A}/`, url: `${A}/`, depth: 0, origin: A };

test('a claim does not wait for an expired claim another transaction holds (a claim publishing its last page holds one): it is reaped by a later claim', { skip: pgSkipReason }, async (t) => {
  const db = await freshDatabase();
  const store = new PostgresClaimStore(db.url);
  const other = new pg.Client({ connectionString: db.url });
  t.after(async () => {
    await other.end().catch(() => undefined);
    await store.close();
    await db.drop();
  });
  await store.open({ seed, maxDepth: 2, delayMs: 0, robots: false });
  const first = await store.claim({ leaseMs: 1, strictBfs: false });
  assert.ok('claim' in first);
  await sleep(20); // its lease has run out
  await other.connect();
  await other.query('BEGIN');
  await other.query('SELECT id FROM pc_queue WHERE state = 1 FOR UPDATE');
  // Nothing is ready, so this claim reaps expired leases: the one row there is held, so it is left, not waited for.
  const started = performance.now();
  const r = await Promise.race([store.claim({ leaseMs: 60_000, strictBfs: false }), sleep(3000).then(() => 'waited' as const)]);
  assert.notEqual(r, 'waited', 'the claim waited for the other transaction');
  assert.ok(typeof r === 'object' && 'waitMs' in r, `a wait, not ${JSON.stringify(r)}`);
  assert.ok(performance.now() - started < 2000);
  await other.query('ROLLBACK');
  const again = await store.claim({ leaseMs: 60_000, strictBfs: false });
  assert.ok('claim' in again && again.claim.key === seed.key && again.claim.token !== first.claim.token, 'reaped once free, and claimed anew');
});
