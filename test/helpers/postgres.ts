// Temporary stand-in until the pg-harness branch lands (same API).
import pg from 'pg';

export const pgSkipReason: string | undefined =
  process.env['PC_TEST_PG_SKIP'] ?? (process.env['PC_TEST_PG_URL'] === undefined ? 'PostgreSQL tests need the cluster that scripts/run-tests.js starts (PC_TEST_PG_URL unset)' : undefined);

let counter = 0;
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = process.env['PC_TEST_PG_URL'] as string;
  const name = `pc_test_${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}
