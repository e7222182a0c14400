/**
 * A private crawl's page requisites in its state (`requisites` table of
 * private-sqlite.ts), so that a resumed crawl fetches those its earlier run
 * queued and did not fetch, and none it fetched (spec decision "Page
 * requisites"). Changes are kept in memory and written by the frontier at
 * each group commit, outside any page's savepoint: a page redone after a
 * crash queues its requisites again (once each), and a requisite is written
 * done only once the archive holds its records (the caller's to wait for),
 * with what a later refresh asks it with (its validators, its capture and a
 * stylesheet's URLs: EarlierRequisites reads them).
 */
import type Database from 'better-sqlite3';
import type { PageCapture } from './private-store.js';

export const REQUISITES_DDL = `
  CREATE TABLE IF NOT EXISTS requisites (
    key TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    page TEXT NOT NULL,
    depth INTEGER NOT NULL,
    level INTEGER NOT NULL,
    css INTEGER NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    etag TEXT,
    last_modified TEXT,
    capture_uri TEXT,
    capture_date TEXT,
    capture_id TEXT,
    capture_digest TEXT,
    refs TEXT,
    wire_bytes INTEGER
  );`;

/** The columns a refresh reads, added after the table first was: a state made before them gets them on open. */
const LATER_COLUMNS = ['etag', 'last_modified', 'capture_uri', 'capture_date', 'capture_id', 'capture_digest', 'refs', 'wire_bytes'];

/** The columns the state's requisites table has (none when it has no such table). */
function requisiteColumns(db: Database.Database): Set<string> {
  return new Set((db.prepare('PRAGMA table_info(requisites)').all() as Array<{ name: string }>).map((c) => c.name));
}

/** Adds to a state's requisites table the columns it was made without (the table itself is REQUISITES_DDL's). */
export function upgradeRequisites(db: Database.Database): void {
  const have = requisiteColumns(db);
  for (const c of LATER_COLUMNS) if (!have.has(c)) db.exec(`ALTER TABLE requisites ADD COLUMN ${c} ${c === 'wire_bytes' ? 'INTEGER' : 'TEXT'}`);
}

/**
 * What a crawl keeps of a requisite it fetched, for a later refresh (crawler
 * --since) to ask it conditionally and archive a 304 as a revisit: the
 * answer's validators, its capture in the archive, and for a stylesheet the
 * URLs it named (absolute; `css`: read as a stylesheet in turn), which a 304
 * does not send again, and its size.
 */
export interface FetchedRequisite {
  etag: string | undefined;
  lastModified: string | undefined;
  capture: PageCapture | undefined;
  refs: RequisiteRef[];
  /** Its body as it travelled (compressed, with --compressed): what a 304 spares. */
  bytes: number | undefined;
}

/** A URL a stylesheet named: `css` when it is read as a stylesheet in turn (an @import). */
export interface RequisiteRef {
  url: string;
  css: boolean;
}

/** A requisite as queued: its URL, the page that needs it, how many stylesheets deep, read as CSS. */
export interface QueuedRequisite {
  key: string;
  url: string;
  page: string;
  depth: number;
  level: number;
  css: boolean;
}

/** What the crawl's requisites ask of the state. */
export interface RequisiteStore {
  /** Queued or fetched by an earlier run of this crawl. */
  known(key: string): boolean;
  queued(r: QueuedRequisite): void;
  /** Fetched (or answered unchanged) and archived; `fetched` what a refresh needs of it, when it has that. */
  done(key: string, fetched?: FetchedRequisite): void;
  /** Those an earlier run queued and did not fetch, in the order queued. */
  pending(): QueuedRequisite[];
}

interface Row {
  key: string;
  url: string;
  page: string;
  depth: number;
  level: number;
  css: number;
}

export class RequisiteJournal implements RequisiteStore {
  private readonly insert: Database.Statement;
  private readonly finish: Database.Statement;
  private readonly has: Database.Statement;
  private queue: QueuedRequisite[] = [];
  private finished: Array<[string, FetchedRequisite | undefined]> = [];

  constructor(private readonly db: Database.Database) {
    upgradeRequisites(db);
    this.insert = db.prepare('INSERT OR IGNORE INTO requisites (key, url, page, depth, level, css) VALUES (?, ?, ?, ?, ?, ?)');
    this.finish = db.prepare('UPDATE requisites SET done = 1, etag = ?, last_modified = ?, capture_uri = ?, capture_date = ?, capture_id = ?, capture_digest = ?, refs = ?, wire_bytes = ? WHERE key = ?');
    this.has = db.prepare('SELECT 1 FROM requisites WHERE key = ?').pluck();
  }

  known(key: string): boolean {
    return this.has.get(key) !== undefined;
  }

  queued(r: QueuedRequisite): void {
    this.queue.push(r);
  }

  done(key: string, fetched?: FetchedRequisite): void {
    this.finished.push([key, fetched]);
  }

  pending(): QueuedRequisite[] {
    const rows = this.db.prepare('SELECT key, url, page, depth, level, css FROM requisites WHERE done = 0 ORDER BY rowid').all() as Row[];
    return rows.map((r) => ({ key: r.key, url: r.url, page: r.page, depth: r.depth, level: r.level, css: r.css === 1 }));
  }

  /** Writes the changes since the last call (the frontier's commit, inside its transaction and outside any savepoint). */
  write(): void {
    for (const r of this.queue) this.insert.run(r.key, r.url, r.page, r.depth, r.level, r.css ? 1 : 0);
    for (const [k, f] of this.finished) {
      const c = f?.capture;
      const refs = f === undefined || f.refs.length === 0 ? null : JSON.stringify(f.refs.map((r) => (r.css ? [r.url, 1] : [r.url])));
      this.finish.run(f?.etag ?? null, f?.lastModified ?? null, c?.uri ?? null, c?.date ?? null, c?.id ?? null, c?.digest ?? null, refs, f?.bytes ?? null, k);
    }
    this.queue = [];
    this.finished = [];
  }

  /** Whether there are changes to write. */
  get dirty(): boolean {
    return this.queue.length > 0 || this.finished.length > 0;
  }
}

interface FetchedRow {
  etag: string | null;
  last_modified: string | null;
  capture_uri: string | null;
  capture_date: string | null;
  capture_id: string | null;
  capture_digest: string | null;
  refs: string | null;
  wire_bytes: number | null;
}

/**
 * A refresh's reader of the requisites an earlier crawl fetched (its state
 * opened read-only): by URL key, those with a capture in its archive and a
 * validator, which a refresh may ask about conditionally. A state without
 * the table or its columns has none.
 */
export class EarlierRequisites {
  private readonly get: Database.Statement | undefined;

  constructor(db: Database.Database) {
    const columns = requisiteColumns(db);
    this.get = LATER_COLUMNS.every((c) => columns.has(c))
      ? db.prepare('SELECT etag, last_modified, capture_uri, capture_date, capture_id, capture_digest, refs, wire_bytes FROM requisites WHERE key = ? AND done = 1')
      : undefined;
  }

  /** What the earlier crawl kept of the requisite under `key`, or undefined when nothing a refresh can ask with. */
  requisite(key: string): (FetchedRequisite & { capture: PageCapture }) | undefined {
    const r = this.get?.get(key) as FetchedRow | undefined;
    if (r === undefined || (r.etag === null && r.last_modified === null)) return undefined;
    if (r.capture_uri === null || r.capture_date === null || r.capture_id === null || r.capture_digest === null) return undefined;
    let refs: RequisiteRef[] = [];
    try {
      const list = r.refs === null ? [] : (JSON.parse(r.refs) as unknown[]);
      refs = list.filter((x): x is [string, number?] => Array.isArray(x) && typeof x[0] === 'string').map((x) => ({ url: x[0], css: x[1] === 1 }));
    } catch {
      return undefined; // a list this version cannot read: asked in full
    }
    return {
      etag: r.etag ?? undefined,
      lastModified: r.last_modified ?? undefined,
      capture: { uri: r.capture_uri, date: r.capture_date, id: r.capture_id, digest: r.capture_digest },
      refs,
      bytes: r.wire_bytes ?? undefined,
    };
  }
}
