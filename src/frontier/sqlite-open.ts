/**
 * Opens a better-sqlite3 database with its native addon named by path.
 * Without `nativeBinding`, better-sqlite3 finds its `.node` file through the
 * `bindings` package, which tries a dozen paths and reads the call stack,
 * several times the cost of naming it (docs/performance.md, Start-up).
 *
 * The programs' bundles also hold better-sqlite3's JavaScript (so it comes
 * with their code cache instead of a dozen files read and compiled):
 * scripts/bundle.ts defines BUNDLED_BETTER_SQLITE3 as the version it
 * bundled. That copy is used only beside the addon of the same version in
 * the package's own node_modules; any other better-sqlite3 (hoisted by npm,
 * or updated since the build) is loaded from node_modules as a whole.
 */
import Database from 'better-sqlite3';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

declare const BUNDLED_BETTER_SQLITE3: string;

interface Sqlite {
  Database: typeof Database;
  /** The addon's path, or null for better-sqlite3's own search. */
  nativeBinding: string | null;
}

let sqlite: Sqlite | undefined;

/**
 * better-sqlite3 as `require` finds it from our code: the one in the
 * package's own node_modules (a checkout, a global install) when its addon
 * is built there, named by path; else wherever node finds it, searching as
 * usual.
 */
function loadSqlite(): Sqlite {
  const bundled = typeof BUNDLED_BETTER_SQLITE3 === 'string' ? BUNDLED_BETTER_SQLITE3 : undefined;
  const dir = join(packageRoot(), 'node_modules', 'better-sqlite3');
  const addon = join(dir, 'build', 'Release', 'better_sqlite3.node');
  if (existsSync(addon) && (bundled === undefined || versionIn(dir) === bundled)) return { Database, nativeBinding: addon };
  if (bundled === undefined) return { Database, nativeBinding: null };
  return { Database: createRequire(join(packageRoot(), 'package.json'))('better-sqlite3') as typeof Database, nativeBinding: null };
}

/** The version in `dir`/package.json. */
function versionIn(dir: string): unknown {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown }).version;
}

/** `new Database(path, options)`, with better-sqlite3 found by `loadSqlite`. */
export function openDatabase(path: string, options: Database.Options = {}): Database.Database {
  sqlite ??= loadSqlite();
  const { Database: Db, nativeBinding } = sqlite;
  return new Db(path, nativeBinding === null ? options : { ...options, nativeBinding });
}
