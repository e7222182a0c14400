/**
 * The private crawl's durable frontier (a FrontierStore, private-store.ts;
 * a shared crawl's SQLite store is claim-sqlite.ts): seen set, breadth-first
 * queue and the last document ID in one SQLite file inside the page
 * directory (better-sqlite3, WAL). Each page's changes are one savepoint,
 * released by `commit(entry)` right after its page file is in place;
 * released pages are committed to disk in groups, at most
 * `commitIntervalMs` apart (100 ms by default) and on every stop. A
 * transaction per page cost far more SQLite time than a group
 * (docs/performance.md, Group commit). After `kill -9` at any moment a resumed crawl redoes the pages
 * of the last group at most, in the same order and so under the same IDs:
 * it ends with exactly the pages of an uninterrupted crawl. A page cut
 * short (a stop signal mid-page) is rolled back alone.
 *
 * Memory stays bounded: the seen set lives in the database; a Set in front
 * of it answers lookups while it holds every key (small crawls), and is
 * dropped past `cacheLimit` keys, after which lookups go to the index.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { openDatabase } from './sqlite-open.js';
import { removeFileSync } from '../sink/atomic-file.js';
import { CrawlerError, writeError } from '../errors.js';
import { STATE_FILE, stateFileParts } from '../sink/state-file.js';
import { PAGES_DDL, PagesTable, type RefreshCounts } from './pages-table.js';
import { RequisiteJournal, REQUISITES_DDL } from './requisite-journal.js';
import { checkCrawl, readMeta, recordCrawl, type CrawlRecord } from './sqlite-meta.js';
import { forgetEarlierFiles, OWNED_THROUGH, readEarlierCrawl } from './state-ownership.js';
import type { FrontierEntry, FrontierStore, PageCompletion } from './private-store.js';

export { STATE_FILE };
// Read by a new crawl before it replaces the state (the page directory's ownership check).
export { forgetEarlierFiles, readEarlierCrawl };

const PREFETCH = 64;

export interface SqliteFrontierOptions extends CrawlRecord {
  /** Continue the crawl recorded in the file (else any earlier state is replaced). */
  resume: boolean;
  /** Most keys kept in memory in front of the index (default 200,000). */
  cacheLimit?: number;
  /** Most time between group commits, in ms (default 100; 0 commits every page). */
  commitIntervalMs?: number;
  /**
   * Whether the pages done so far may be committed now (default: always).
   * While it says no, a due commit waits for a later page or for flush():
   * the crawl archive's records of a page are written before the page is
   * durably done (see commitDue).
   */
  commitGate?: () => boolean;
}

const STATE_PENDING = 0;
const STATE_DONE = 1;
const STATE_SEEN = 2;

interface Row {
  id: number;
  key: string;
  url: string;
  depth: number;
  attempts: number;
}

export class SqliteFrontier implements FrontierStore {
  private readonly db: Database.Database;
  private readonly stmt: Record<'insert' | 'seen' | 'done' | 'batch' | 'setMeta' | 'retry', Database.Statement>;
  /** Each saved page's record, for a later refresh. */
  private readonly pages: PagesTable;
  /** Transaction control, prepared once: exec() would parse the SQL again on each of the two to four calls per page. */
  private readonly tx: Record<'begin' | 'commit' | 'savepoint' | 'release' | 'rollbackTo', Database.Statement>;
  private inTransaction = false;
  private inPage = false;
  /** Keys the page in progress inserted (forgotten by the cache when it is released). */
  private pageKeys: string[] = [];
  /** Entries given back (taken again first). */
  private readonly released: FrontierEntry[] = [];
  /** The last document ID written to the database. */
  private storedId = 0;
  private lastCommit = performance.now();
  private readonly commitIntervalMs: number;
  private readonly commitGate: (() => boolean) | undefined;
  private cache: Set<string> | undefined = new Set();
  private readonly cacheLimit: number;
  private buffer: Row[] = [];
  private cursor = 0;
  private pendingCount: number;
  /** Entries taken and not yet ended (completed or released). */
  private taken = 0;
  private lastId: number;
  /** True when the file held an earlier crawl that this one continues. */
  readonly resumed: boolean;
  /** Page files of earlier crawls of ours still in the directory have IDs up to this (see SqliteFrontierOptions). */
  readonly ownedThrough: number;
  private readonly path: string;
  private requisiteJournal: RequisiteJournal | undefined;

  /** Opens (or creates) the state of the crawl in `dir`. Throws ERR_STATE on a mismatch or a damaged file. */
  constructor(dir: string, options: SqliteFrontierOptions) {
    const path = join(dir, STATE_FILE);
    this.path = path;
    const existed = existsSync(path);
    if (existed && !options.resume) for (const f of stateFileParts(path)) removeFileSync(f);
    if (!existed && options.resume) {
      throw new CrawlerError('ERR_STATE', `nothing to resume: ${dir} holds no crawl state (${STATE_FILE}); run without --resume`);
    }
    try {
      this.db = openDatabase(path);
      this.db.pragma('journal_mode = WAL');
      // NORMAL in WAL mode survives a process crash (kill -9) without losing a commit.
      this.db.pragma('synchronous = NORMAL');
      // A page's savepoint keeps the original of every database page it
      // changes in a statement journal, by default a temporary file in
      // /var/tmp, written for every page (docs/performance.md, Group commit). A few pages per
      // savepoint fit in memory, and a crash loses nothing that file would
      // have saved (it is deleted on open; the WAL is what survives).
      this.db.pragma('temp_store = MEMORY');
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS urls (
          id INTEGER PRIMARY KEY,
          key TEXT NOT NULL UNIQUE,
          url TEXT NOT NULL,
          depth INTEGER NOT NULL,
          state INTEGER NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0
        );
        ${PAGES_DDL}
        ${REQUISITES_DDL}`);
    } catch (err) {
      throw new CrawlerError('ERR_STATE', `cannot open crawl state ${path}: ${(err as Error).message}`, { cause: err });
    }
    this.resumed = existed && options.resume;
    if (this.resumed) checkCrawl(this.db, dir, path, options);
    else recordCrawl(this.db, options);
    this.stmt = {
      insert: this.db.prepare('INSERT OR IGNORE INTO urls (key, url, depth, state) VALUES (?, ?, ?, ?)'),
      seen: this.db.prepare('SELECT 1 FROM urls WHERE key = ?').pluck(),
      done: this.db.prepare(`UPDATE urls SET state = ${STATE_DONE} WHERE key = ?`),
      batch: this.db.prepare(`SELECT id, key, url, depth, attempts FROM urls WHERE state = ${STATE_PENDING} AND id > ? ORDER BY id LIMIT ${PREFETCH}`),
      // A retried entry moves to the end of the queue (a new, highest id) with one more attempt.
      retry: this.db.prepare(`UPDATE urls SET id = (SELECT max(id) + 1 FROM urls), state = ${STATE_PENDING}, attempts = attempts + 1 WHERE key = ?`),
      setMeta: this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
    };
    this.pages = new PagesTable(this.db);
    this.tx = {
      begin: this.db.prepare('BEGIN'),
      commit: this.db.prepare('COMMIT'),
      savepoint: this.db.prepare('SAVEPOINT page'),
      release: this.db.prepare('RELEASE page'),
      rollbackTo: this.db.prepare('ROLLBACK TO page'),
    };
    this.cacheLimit = options.cacheLimit ?? 200_000;
    this.commitIntervalMs = options.commitIntervalMs ?? 100;
    this.commitGate = options.commitGate;
    this.lastId = Number(readMeta(this.db, 'lastId') ?? '0');
    this.ownedThrough = Number(readMeta(this.db, OWNED_THROUGH) ?? '0');
    this.storedId = this.lastId;
    this.pendingCount = this.db.prepare(`SELECT count(*) FROM urls WHERE state = ${STATE_PENDING}`).pluck().get() as number;
    const total = this.db.prepare('SELECT count(*) FROM urls').pluck().get() as number;
    if (total > this.cacheLimit) this.cache = undefined;
    else for (const k of this.db.prepare('SELECT key FROM urls').pluck().iterate()) this.cache?.add(k as string);
  }

  private begin(): void {
    if (!this.inTransaction) {
      this.tx.begin.run();
      this.inTransaction = true;
    }
    if (!this.inPage) {
      this.tx.savepoint.run();
      this.inPage = true;
    }
  }

  /** True when the next completed page commits its group (the interval has passed since the last commit). */
  get commitDue(): boolean {
    return performance.now() - this.lastCommit >= this.commitIntervalMs;
  }

  /** Commits every released page now (the gate is the caller's to have asked). */
  flush(): void {
    this.guard(() => this.flushUnguarded());
  }

  private flushUnguarded(): void {
    // A disk full or an I/O error in one of the group's statements (its COMMIT too) may make SQLite
    // roll the whole group back on its own. Its pages are then redone on resume, as after a crash;
    // nothing more is written: out of a transaction, the last ID would be committed alone, ahead of
    // the pages it counts, and a resumed crawl would save the group's pages again under new IDs.
    const open = this.db.inTransaction;
    if (this.inPage && open) {
      // A page not committed by commit(entry) was cut short: it is redone.
      this.tx.rollbackTo.run();
      this.tx.release.run();
    }
    this.inPage = false;
    // Requisites' changes (--page-requisites) are written at a commit even when no page is (the last pages' requisites).
    if (this.requisiteJournal?.dirty === true && !this.inTransaction) {
      this.tx.begin.run();
      this.inTransaction = true;
    }
    if (this.inTransaction && this.db.inTransaction) {
      if (this.lastId !== this.storedId) this.stmt.setMeta.run('lastId', String(this.lastId));
      this.requisiteJournal?.write();
      this.tx.commit.run();
      this.storedId = this.lastId;
    }
    this.inTransaction = false;
    this.lastCommit = performance.now();
  }

  private remember(key: string): void {
    if (this.cache === undefined) return;
    if (this.cache.size >= this.cacheLimit) this.cache = undefined;
    else this.cache.add(key);
  }

  private insert(key: string, url: string, depth: number, state: number): boolean {
    if (this.cache !== undefined && this.cache.has(key)) return false;
    this.begin();
    const changed = this.stmt.insert.run(key, url, depth, state).changes === 1;
    if (changed) {
      this.remember(key);
      this.pageKeys.push(key);
    }
    return changed;
  }

  add(entry: FrontierEntry): boolean {
    return this.guard(() => this.addUnguarded(entry));
  }

  private addUnguarded(entry: FrontierEntry): boolean {
    const added = this.insert(entry.key, entry.url, entry.depth, STATE_PENDING);
    if (added) this.pendingCount++;
    return added;
  }

  markSeen(key: string): boolean {
    return this.guard(() => this.insert(key, key, -1, STATE_SEEN));
  }

  isSeen(key: string): boolean {
    if (this.cache !== undefined) return this.cache.has(key);
    return this.guard(() => this.stmt.seen.get(key) !== undefined);
  }

  take(): FrontierEntry | undefined {
    const back = this.released.pop();
    if (back !== undefined) {
      this.pendingCount--;
      this.taken++;
      return back;
    }
    if (this.buffer.length === 0) {
      this.buffer = this.guard(() => this.stmt.batch.all(this.cursor) as Row[]).reverse();
      if (this.buffer.length === 0) return undefined;
    }
    const row = this.buffer.pop() as Row;
    this.cursor = row.id;
    this.pendingCount--;
    this.taken++;
    return row.attempts === 0 ? { key: row.key, url: row.url, depth: row.depth } : { key: row.key, url: row.url, depth: row.depth, attempts: row.attempts };
  }

  complete(entry: FrontierEntry, c: PageCompletion): boolean[] {
    return this.guard(() => {
      this.begin();
      this.taken--;
      let added: boolean[];
      if (c.retry === true) {
        this.stmt.retry.run(entry.key);
        this.pendingCount++;
        added = c.links.map(() => false);
      } else {
        added = c.links.map((link) => this.addUnguarded(link));
        this.stmt.done.run(entry.key);
        // Written with the group commit, not per page: only a completed page's ID counts.
        if (c.documentId !== undefined) {
          this.lastId = c.documentId;
          if (c.saved !== undefined) this.pages.save(c.documentId, c.saved);
        } else if (c.unkept !== undefined) this.pages.saveUnkept(c.unkept);
      }
      this.tx.release.run();
      this.inPage = false;
      this.pageKeys = [];
      if (this.commitDue && (this.commitGate?.() ?? true)) this.flushUnguarded();
      return added;
    });
  }

  /** A refresh's counts, over all its runs (PagesTable.refreshCounts). */
  refreshCounts(): RefreshCounts {
    return this.guard(() => this.pages.refreshCounts());
  }

  /** True when this crawl saved a page under `key`. */
  savedKey(key: string): boolean {
    return this.guard(() => this.pages.has(key));
  }

  release(entry: FrontierEntry): void {
    this.guard(() => {
      // What the page marked seen is undone; the entry is still waiting on disk.
      if (this.inPage) {
        this.tx.rollbackTo.run();
        this.tx.release.run();
        this.inPage = false;
      }
    });
    for (const key of this.pageKeys) this.cache?.delete(key);
    this.pageKeys = [];
    this.released.push(entry);
    this.pendingCount++;
    this.taken--;
  }

  /** Runs a database step; a failure (disk full, I/O error) becomes one clear ERR_STATE. */
  private guard<T>(step: () => T): T {
    try {
      return step();
    } catch (err) {
      if (err instanceof CrawlerError) throw err;
      throw writeError('ERR_STATE', `the crawl state ${this.path}`, err);
    }
  }

  get lastDocumentId(): number {
    return this.lastId;
  }

  get pending(): number {
    return this.pendingCount;
  }

  get open(): number {
    return this.pendingCount + this.taken;
  }

  /**
   * Closes without committing: the pages done since the last commit are
   * redone on resume, as after a crash. For a crawl that cannot vouch for
   * them (a page file that could not be written).
   */
  abandon(): void {
    if (!this.db.open) return;
    try {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
    } finally {
      this.inTransaction = false;
      this.inPage = false;
      this.db.close();
    }
  }

  /** The crawl's page requisites in the state (--page-requisites), written at each commit. */
  get requisites(): RequisiteJournal {
    this.requisiteJournal ??= new RequisiteJournal(this.db);
    return this.requisiteJournal;
  }

  /** Commits the pages done, rolls back a page cut short (it is redone on resume), and closes. */
  close(): void {
    if (!this.db.open) return;
    try {
      this.flush();
    } finally {
      // A failed commit (disk full) leaves SQLite's own rollback; the pages are redone on resume.
      this.inTransaction = false;
      this.inPage = false;
      this.db.close();
    }
  }
}
