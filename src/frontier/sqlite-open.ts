/**
 * Opens a better-sqlite3 database with its native addon named by path.
 * Without `nativeBinding`, better-sqlite3 finds its `.node` file through the
 * `bindings` package, which tries a dozen paths and reads the call stack:
 * 7 to 13 ms of a run's start on the test machine, against 1 to 3 ms here
 * (bench/README.md, Start-up).
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

let addon: string | null | undefined;

/**
 * The addon of the better-sqlite3 that `require` finds from our code: the
 * one in the package's own node_modules (a checkout, a global install) when
 * it is built there, else null (better-sqlite3 then searches as usual, e.g.
 * when npm hoisted it above us).
 */
export function sqliteAddonPath(): string | null {
  if (addon === undefined) {
    const file = join(packageRoot(), 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    addon = existsSync(file) ? file : null;
  }
  return addon;
}

/** `new Database(path, options)`, with the addon found by `sqliteAddonPath`. */
export function openDatabase(path: string, options: Database.Options = {}): Database.Database {
  const nativeBinding = sqliteAddonPath();
  return new Database(path, nativeBinding === null ? options : { ...options, nativeBinding });
}
