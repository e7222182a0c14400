/**
 * The PostgreSQL test harness itself (test/helpers/postgres.ts): fresh
 * databases are real, separate and really dropped, and without a server the
 * suites skip with a reason instead of failing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';

async function withClient<T>(url: string, use: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

const tableNames = (url: string): Promise<string[]> =>
  withClient(url, async (c) => (await c.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.tablename));

describe('PostgreSQL test harness', () => {
  test('freshDatabase gives an empty database one can connect to and create a table in', { skip: pgSkipReason }, async () => {
    const db = await freshDatabase();
    try {
      assert.deepEqual(await tableNames(db.url), []);
      const rows = await withClient(db.url, async (c) => {
        await c.query('CREATE TABLE frontier (key text PRIMARY KEY, depth int NOT NULL)');
        await c.query("INSERT INTO frontier VALUES ('http://h/', 0)");
        return (await c.query('SELECT key, depth FROM frontier')).rows;
      });
      assert.deepEqual(rows, [{ key: 'http://h/', depth: 0 }]);
    } finally {
      await db.drop();
    }
  });

  test('two fresh databases are distinct: a table in one is absent from the other', { skip: pgSkipReason }, async () => {
    const [a, b] = await Promise.all([freshDatabase(), freshDatabase()]);
    try {
      assert.notEqual(a.url, b.url);
      await withClient(a.url, (c) => c.query('CREATE TABLE only_in_a (x int)'));
      assert.deepEqual(await tableNames(a.url), ['only_in_a']);
      assert.deepEqual(await tableNames(b.url), []);
    } finally {
      await Promise.all([a.drop(), b.drop()]);
    }
  });

  test('drop() removes the database, terminating a connection left open', { skip: pgSkipReason }, async () => {
    const db = await freshDatabase();
    const name = new URL(db.url).pathname.slice(1);
    const leftover = new pg.Client({ connectionString: db.url });
    leftover.on('error', () => {}); // the server terminates it: expected
    await leftover.connect();
    try {
      await db.drop();
      await db.drop(); // a second drop is harmless
    } finally {
      await leftover.end().catch(() => {});
    }
    const listed = await withClient(process.env['PC_TEST_PG_URL']!, async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount);
    assert.equal(listed, 0);
    await assert.rejects(withClient(db.url, (c) => c.query('SELECT 1')), (err: { code?: string }) => err.code === '3D000'); // invalid_catalog_name
  });
});

describe('PostgreSQL test harness without a server', () => {
  const helper = new URL('../helpers/postgres.js', import.meta.url).href;
  /** What a test process with this environment sees: pgSkipReason, and how freshDatabase() fails. */
  function seenWith(env: Record<string, string>): { reason: string | null; error: string | null } {
    const { PC_TEST_PG_URL: _url, PC_TEST_PG_SKIP: _skip, ...rest } = process.env;
    const script = `const m = await import(${JSON.stringify(helper)});
      const error = m.pgSkipReason === undefined ? null : await m.freshDatabase().then(() => 'resolved', (e) => e.message);
      process.stdout.write(JSON.stringify({ reason: m.pgSkipReason ?? null, error }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...rest, ...env }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { reason: string | null; error: string | null };
  }

  test('the tests are skipped with the reason run-tests.js gave in PC_TEST_PG_SKIP, and freshDatabase() rejects with it', () => {
    const reason = 'no PostgreSQL server binaries';
    assert.deepEqual(seenWith({ PC_TEST_PG_SKIP: reason }), { reason, error: `freshDatabase: ${reason}` });
  });

  test('run without run-tests.js (neither variable set), the reason says what is missing', () => {
    assert.match(seenWith({}).reason ?? '', /PC_TEST_PG_URL unset/);
  });

  test('a server URL wins over a skip reason', () => {
    assert.equal(seenWith({ PC_TEST_PG_URL: 'postgresql://postgres@127.0.0.1:1/postgres', PC_TEST_PG_SKIP: 'stale' }).reason, null);
  });
});
