/**
 * A private crawl's page requisites in its state (`requisites` table of
 * private-sqlite.ts), so that a resumed crawl fetches those its earlier run
 * queued and did not fetch, and none it fetched (spec decision "Page
 * requisites"). Changes are kept in memory and written by the frontier at
 * each group commit, outside any page's savepoint: a page redone after a
 * crash queues its requisites again (once each), and a requisite is written
 * done only once the archive holds its records (the caller's to wait for).
 */
import type Database from 'better-sqlite3';

export const REQUISITES_DDL = `
  CREATE TABLE IF NOT EXISTS requisites (
    key TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    page TEXT NOT NULL,
    depth INTEGER NOT NULL,
    level INTEGER NOT NULL,
    css INTEGER NOT NULL,
    done INTEGER NOT NULL DEFAULT 0
  );`;

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
  done(key: string): void;
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
  private finished: string[] = [];

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare('INSERT OR IGNORE INTO requisites (key, url, page, depth, level, css) VALUES (?, ?, ?, ?, ?, ?)');
    this.finish = db.prepare('UPDATE requisites SET done = 1 WHERE key = ?');
    this.has = db.prepare('SELECT 1 FROM requisites WHERE key = ?').pluck();
  }

  known(key: string): boolean {
    return this.has.get(key) !== undefined;
  }

  queued(r: QueuedRequisite): void {
    this.queue.push(r);
  }

  done(key: string): void {
    this.finished.push(key);
  }

  pending(): QueuedRequisite[] {
    const rows = this.db.prepare('SELECT key, url, page, depth, level, css FROM requisites WHERE done = 0 ORDER BY rowid').all() as Row[];
    return rows.map((r) => ({ key: r.key, url: r.url, page: r.page, depth: r.depth, level: r.level, css: r.css === 1 }));
  }

  /** Writes the changes since the last call (the frontier's commit, inside its transaction and outside any savepoint). */
  write(): void {
    for (const r of this.queue) this.insert.run(r.key, r.url, r.page, r.depth, r.level, r.css ? 1 : 0);
    for (const k of this.finished) this.finish.run(k);
    this.queue = [];
    this.finished = [];
  }

  /** Whether there are changes to write. */
  get dirty(): boolean {
    return this.queue.length > 0 || this.finished.length > 0;
  }
}
