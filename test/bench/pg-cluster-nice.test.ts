/**
 * scripts/pg-cluster.js's `nice`: the cluster the broad bench starts for its
 * pg run goes at the runs' niceness, below the site server's (its
 * backends inherit it from pg_ctl), and at the bench's own without it.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { PROJECT_ROOT } from '../helpers/conformance.js';

/** Field 19 of /proc/PID/stat. */
function niceness(pid: number | 'self'): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

async function backendNiceness(t: TestContext, settings: { nice?: number }): Promise<number | undefined> {
  const { startCluster } = (await import(pathToFileURL(join(PROJECT_ROOT, 'scripts', 'pg-cluster.js')).href)) as {
    startCluster(s: { nice?: number }): Promise<{ url: string; stop(): void } | { skip: string }>;
  };
  const cluster = await startCluster(settings);
  if ('skip' in cluster) {
    t.skip(cluster.skip);
    return undefined;
  }
  try {
    const c = new pg.Client({ connectionString: cluster.url });
    await c.connect();
    try {
      const r = await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      return niceness(r.rows[0]!.pid);
    } finally {
      await c.end();
    }
  } finally {
    cluster.stop();
  }
}

test('a cluster started with nice runs its backends at that niceness, one without at the bench\'s own', { timeout: 120_000 }, async (t) => {
  const base = niceness('self');
  const niced = await backendNiceness(t, { nice: 6 });
  if (niced === undefined) return;
  assert.equal(niced, Math.min(19, base + 6));
  assert.equal(await backendNiceness(t, {}), base);
});
