/**
 * The PostgreSQL server the bench's shared-crawl runs use (sections scale
 * and broad): the one in PC_BENCH_PG_URL (a superuser URL), or a throwaway
 * cluster started by scripts/pg-cluster.js, as the tests do; and a fresh
 * database per run on it.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A server to create databases on; stop() ends a cluster the bench started (nothing for PC_BENCH_PG_URL). */
export interface PgServer {
  url: string;
  /** The same server through its Unix socket, when the bench started it. */
  socketUrl?: string;
  stop(): void;
}

/**
 * The PostgreSQL server to use, or why there is none. A cluster the bench
 * starts allows `maxConnections` clients (default PostgreSQL's 100) and
 * runs at niceness `nice` (0: the bench's own); the server in
 * PC_BENCH_PG_URL must allow as many itself, and runs as it was started.
 */
export async function postgres(maxConnections?: number, nice = 0): Promise<PgServer | { skip: string }> {
  const given = process.env['PC_BENCH_PG_URL'];
  if (given !== undefined && given !== '') return { url: given, stop: () => undefined };
  const mod = (await import(pathToFileURL(join(root, 'scripts', 'pg-cluster.js')).href)) as { startCluster(settings?: { maxConnections?: number; nice?: number }): Promise<PgServer | { skip: string }> };
  return mod.startCluster({ ...(maxConnections === undefined ? {} : { maxConnections }), nice });
}

/** Drops and creates database `name` on the server at `adminUrl`; resolves with its URL. */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
