/**
 * PostgreSQL for tests: scripts/run-tests.js starts a throwaway cluster and
 * passes its URL in PC_TEST_PG_URL (or PC_TEST_PG_SKIP with the reason there is
 * none). Tests skip with pgSkipReason (on each test, so the summary counts
 * them as skipped) and take a fresh database each:
 *
 *   test('…', { skip: pgSkipReason }, async () => { const db = await freshDatabase(); … await db.drop(); });
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const serverUrl = process.env['PC_TEST_PG_URL'] || undefined;

/** Why PostgreSQL tests are skipped here, or undefined when a server is available. */
export const pgSkipReason: string | undefined =
  serverUrl !== undefined
    ? undefined
    : process.env['PC_TEST_PG_SKIP'] || 'PostgreSQL tests need the cluster that scripts/run-tests.js starts (PC_TEST_PG_URL unset)';

let counter = 0;

/** Creates a fresh, empty database on the test server; drop() removes it (terminating leftover connections). */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (serverUrl === undefined) throw new Error(`freshDatabase: ${pgSkipReason}`);
  const name = `pc_test_${process.pid}_${++counter}_${randomBytes(4).toString('hex')}`;
  await onServer(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.href,
    async drop() {
      if (dropped) return;
      dropped = true;
      await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/** Runs one statement on the server's own database (CREATE/DROP DATABASE cannot run in the target). */
async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
