/**
 * The crawl state's `pages` table (schema 3, private-sqlite.ts): one row per
 * saved page, by document ID, holding what a later refresh (crawler
 * --since) needs of it: its URL key, its validators (ETag, Last-Modified),
 * its archive capture (the response record's URI, date, ID and payload
 * digest), and in a refresh what it was to the earlier crawl. Beside it the
 * `unkept` table: one row per answer not kept for what its head said (not
 * HTML) that carried a validator, by URL key, with its validators and
 * Content-Type. A state written before that table was added lacks it: it is
 * created when such a state is resumed, and a refresh reads none from it.
 * The crawl writes them (PagesTable, in each page's unit); a refresh reads
 * an earlier crawl's (PagesReader). Only this module knows their columns.
 */
import type Database from 'better-sqlite3';
import type { EarlierPage } from './earlier-pages.js';
import type { SavedPage, UnkeptAnswer } from './private-store.js';

/** The table and its index, created with the state. */
export const PAGES_DDL = `
  CREATE TABLE IF NOT EXISTS pages (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    etag TEXT,
    last_modified TEXT,
    warc_uri TEXT,
    warc_date TEXT,
    warc_id TEXT,
    warc_digest TEXT,
    earlier_id INTEGER,
    spared INTEGER,
    wire_bytes INTEGER
  );
  CREATE INDEX IF NOT EXISTS pages_key ON pages (key);
  CREATE TABLE IF NOT EXISTS unkept (
    key TEXT PRIMARY KEY,
    etag TEXT,
    last_modified TEXT,
    content_type TEXT NOT NULL
  );`;

/** What a refresh saved, as against the earlier crawl (see PagesTable.refreshCounts). */
export interface RefreshCounts {
  fresh: number;
  changed: number;
  unchanged: number;
  sparedBytes: number;
}

/** The table as the crawl writes it. */
export class PagesTable {
  private readonly insert: Database.Statement;
  private byKey: Database.Statement | undefined;
  private insertUnkept: Database.Statement | undefined;

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare('INSERT OR REPLACE INTO pages (id, key, etag, last_modified, warc_uri, warc_date, warc_id, warc_digest, earlier_id, spared, wire_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  }

  /** Records page `id` (inside the caller's transaction: a page rolled back takes its row with it). */
  save(id: number, p: SavedPage): void {
    const c = p.capture;
    this.insert.run(id, p.key, p.etag ?? null, p.lastModified ?? null, c?.uri ?? null, c?.date ?? null, c?.id ?? null, c?.digest ?? null, p.earlierId ?? null, p.sparedBytes ?? null, p.wireBytes ?? null);
  }

  /** Records an answer not kept for what its head said (inside the caller's transaction, as `save`). */
  saveUnkept(a: UnkeptAnswer): void {
    this.insertUnkept ??= this.db.prepare('INSERT OR REPLACE INTO unkept (key, etag, last_modified, content_type) VALUES (?, ?, ?, ?)');
    this.insertUnkept.run(a.key, a.etag ?? null, a.lastModified ?? null, a.contentType);
  }

  /**
   * What this crawl, a refresh, saved as against the earlier crawl, over
   * all its runs (resumed ones too): pages it saved that the earlier one did
   * not (`fresh`), saved again in full (`changed`), unchanged (a 304), and
   * the unchanged pages' bytes the server did not send again.
   */
  refreshCounts(): RefreshCounts {
    const row = this.db
      .prepare(
        'SELECT count(*) FILTER (WHERE earlier_id IS NULL) AS fresh, count(*) FILTER (WHERE earlier_id IS NOT NULL AND spared IS NULL) AS changed, count(spared) AS unchanged, coalesce(sum(spared), 0) AS spared FROM pages',
      )
      .get() as { fresh: number; changed: number; unchanged: number; spared: number };
    return { fresh: row.fresh, changed: row.changed, unchanged: row.unchanged, sparedBytes: row.spared };
  }

  /** True when a page was saved under `key`. */
  has(key: string): boolean {
    this.byKey ??= this.db.prepare('SELECT 1 FROM pages WHERE key = ?').pluck();
    return this.byKey.get(key) !== undefined;
  }
}

interface PageRow {
  id: number;
  key: string;
  etag: string | null;
  last_modified: string | null;
  warc_uri: string | null;
  warc_date: string | null;
  warc_id: string | null;
  warc_digest: string | null;
  wire_bytes: number | null;
}

interface UnkeptRow {
  etag: string | null;
  last_modified: string | null;
  content_type: string;
}

/** The tables of an earlier crawl's state, as a refresh reads them. */
export class PagesReader {
  private readonly byKey: Database.Statement;
  /** Undefined when the state has no `unkept` table (written before it was added). */
  private readonly unkeptByKey: Database.Statement | undefined;

  constructor(private readonly db: Database.Database) {
    // The latest page saved under a key (a crawl saves a URL once; a crash's redone page is the same row).
    // A state of version 3 has no wire_bytes: its pages' wire size is not known.
    const wire = (db.prepare("SELECT count(*) FROM pragma_table_info('pages') WHERE name = 'wire_bytes'").pluck().get() as number) > 0 ? 'wire_bytes' : 'NULL AS wire_bytes';
    this.byKey = db.prepare(`SELECT id, key, etag, last_modified, warc_uri, warc_date, warc_id, warc_digest, ${wire} FROM pages WHERE key = ? ORDER BY id DESC LIMIT 1`);
    const hasUnkept = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'unkept'").pluck().get() !== undefined;
    this.unkeptByKey = hasUnkept ? db.prepare('SELECT etag, last_modified, content_type FROM unkept WHERE key = ?') : undefined;
  }

  /** The answer not kept for what its head said under `key`, or undefined. */
  unkept(key: string): UnkeptAnswer | undefined {
    const row = this.unkeptByKey?.get(key) as UnkeptRow | undefined;
    return row === undefined ? undefined : { key, etag: row.etag ?? undefined, lastModified: row.last_modified ?? undefined, contentType: row.content_type };
  }

  /** The page saved under `key`, or undefined. */
  page(key: string): EarlierPage | undefined {
    const row = this.byKey.get(key) as PageRow | undefined;
    if (row === undefined) return undefined;
    const { warc_uri: uri, warc_date: date, warc_id: id, warc_digest: digest } = row;
    return {
      id: row.id,
      key: row.key,
      etag: row.etag ?? undefined,
      lastModified: row.last_modified ?? undefined,
      capture: uri !== null && date !== null && id !== null && digest !== null ? { uri, date, id, digest } : undefined,
      wireBytes: row.wire_bytes ?? undefined,
    };
  }

  /** How many pages were saved. */
  count(): number {
    return this.db.prepare('SELECT count(*) FROM pages').pluck().get() as number;
  }

  /** The pages saved up to ID `lastId` (committed) that have an archive capture, in ID order. */
  *captured(lastId: number): Generator<{ id: number; key: string; date: string }> {
    const rows = this.db.prepare('SELECT id, key, warc_date AS date FROM pages WHERE id <= ? AND warc_uri IS NOT NULL AND warc_date IS NOT NULL ORDER BY id');
    for (const row of rows.iterate(lastId)) yield row as { id: number; key: string; date: string };
  }

  /** Every page saved, in ID order. */
  *all(): Generator<{ id: number; key: string }> {
    for (const row of this.db.prepare('SELECT id, key FROM pages ORDER BY id').iterate()) yield row as { id: number; key: string };
  }
}
