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
import { PG_SCHEMA, schemaStamp } from '../../src/frontier/claim-postgres-sql.js';
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

test('a worker joining a crawl whose schema is this build’s skips the DDL; a schema from another build is replaced', { skip: pgSkipReason }, async (t) => {
  const db = await freshDatabase();
  const admin = new pg.Client({ connectionString: db.url });
  const stores: PostgresClaimStore[] = [];
  t.after(async () => {
    await admin.end().catch(() => undefined);
    for (const s of stores) await s.close();
    await db.drop();
  });
  const config = { seed, maxDepth: 2, delayMs: 0, robots: false };
  const open = async (): Promise<{ created: boolean }> => {
    const s = new PostgresClaimStore(db.url);
    stores.push(s);
    return s.open(config);
  };
  await admin.connect();
  // CREATE OR REPLACE FUNCTION writes a new pg_proc row: its xmin tells whether the DDL ran.
  const state = async (): Promise<{ xmin: string; stamp: string | null }> =>
    (await admin.query<{ xmin: string; stamp: string | null }>("SELECT (SELECT xmin::text FROM pg_proc WHERE proname = 'pc_claim' LIMIT 1) AS xmin, obj_description('pc_crawl'::regclass, 'pg_class') AS stamp")).rows[0]!;
  assert.deepEqual(await open(), { created: true });
  const made = await state();
  assert.equal(made.stamp, schemaStamp(PG_SCHEMA), 'the creator stamps the schema');
  assert.deepEqual(await open(), { created: false });
  assert.deepEqual(await state(), made, 'a second worker ran no DDL');
  await admin.query("COMMENT ON TABLE pc_crawl IS 'pc-schema-of-another-build'");
  assert.deepEqual(await open(), { created: false });
  const replaced = await state();
  assert.notEqual(replaced.xmin, made.xmin, 'another build’s schema is replaced');
  assert.equal(replaced.stamp, schemaStamp(PG_SCHEMA));
  // The stamp follows the text: any change to the schema is another stamp.
  assert.notEqual(schemaStamp(`${PG_SCHEMA} `), schemaStamp(PG_SCHEMA));
});

test('loading the PostgreSQL store does not load undici (pg asks for navigator at load) and leaves no navigator behind', async () => {
  const { spawnSync } = await import('node:child_process');
  const module = new URL('../../src/frontier/claim-postgres.js', import.meta.url).href;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(module)}); console.log(JSON.stringify({ undici: process.moduleLoadList.some((m) => m.includes('undici')), navigator: typeof navigator }))`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { undici: false, navigator: process.versions.node.startsWith('20.') ? 'undefined' : 'object' });
});
