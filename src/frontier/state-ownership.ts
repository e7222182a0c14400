/**
 * What a crawl state records of the page files its crawl wrote, read (and
 * once updated) by the crawl that replaces it in the same pageDirectory:
 * which numbered files are ours to remove (pagedir-start.ts). The state
 * itself is the SQLite frontier's (private-sqlite.ts).
 */
import type Database from 'better-sqlite3';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { writeError } from '../errors.js';
import { STATE_FILE, type EarlierCrawlRecord } from '../sink/state-file.js';
import { openDatabase } from './sqlite-open.js';

/** The meta key of SqliteFrontierOptions.ownedThrough (absent in a state written before it: 0). */
export const OWNED_THROUGH = 'ownedThrough';

/** The meta key of CrawlIdentity.moreSeeds (crawler --seeds), a JSON array (absent in a state without them). */
export const MORE_SEEDS = 'moreSeeds';

/**
 * Reads what the crawl state in `dir` records of the page files its crawl
 * wrote, before a new crawl replaces it: its last document ID, the IDs of
 * earlier crawls' files it still owned, and the URLs it knew. Undefined when
 * there is no state file, or one that cannot be read as ours (a link, a
 * damaged file). The caller closes the record; closing folds SQLite's
 * write-ahead log into the file, so that the file alone is the state.
 */
export function readEarlierCrawl(dir: string): EarlierCrawlRecord | undefined {
  const db = openStateIfAny(dir);
  if (db === undefined) return undefined;
  try {
    const meta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    const num = (key: string): number => {
      const n = Number(meta.get(key) ?? '0');
      return Number.isSafeInteger(n) && n > 0 ? n : 0;
    };
    const lastId = num('lastId');
    const ownedThrough = num(OWNED_THROUGH);
    const known = db.prepare('SELECT 1 FROM urls WHERE key = ?').pluck();
    // The seeds are in the meta table from the start, in the urls table only from the first commit.
    const seed = meta.get('seed');
    const more = new Set(JSON.parse((meta.get(MORE_SEEDS) as string | undefined) ?? '[]') as string[]);
    return {
      lastId,
      ownedThrough,
      knows: (key) => {
        try {
          return key === seed || more.has(key) || known.get(key) !== undefined;
        } catch {
          return false;
        }
      },
      close: () => db.close(),
    };
  } catch {
    db.close();
    return undefined;
  }
}

/** The crawl state in `dir`, opened as it is; undefined when there is none, or none that opens (a link, a damaged file). */
export function openStateIfAny(dir: string): Database.Database | undefined {
  const path = join(dir, STATE_FILE);
  try {
    if (!lstatSync(path).isFile()) return undefined;
    return openDatabase(path, { fileMustExist: true });
  } catch {
    return undefined;
  }
}

/** Notes in the state in `dir` that the page files of earlier crawls are gone (removed at the end of the crawl). */
export function forgetEarlierFiles(dir: string): void {
  let db: Database.Database | undefined;
  try {
    db = openDatabase(join(dir, STATE_FILE), { fileMustExist: true });
    db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(OWNED_THROUGH, '0');
  } catch (err) {
    throw writeError('ERR_STATE', `the crawl state ${join(dir, STATE_FILE)}`, err);
  } finally {
    db?.close();
  }
}
