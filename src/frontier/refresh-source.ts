/**
 * The earlier crawl a refresh starts from (crawler --since OLD_DIR): the
 * page directory of a crawl of ours, read and never written. Its crawl
 * state (schema 3 and later, private-sqlite.ts) keeps each saved page's
 * validators and archive capture by URL, with its document ID, so the
 * earlier copy (OLD_DIR/ID) can be found.
 *
 * Read-only, strictly: SQLite opens even a read-only database in WAL mode
 * by making its `-wal` and `-shm` files beside it, which would be writing
 * into OLD_DIR. So the state (with its write-ahead log, when a crash left
 * one) is copied to a directory of our own under the system's temporary
 * directory and opened there; `close()` removes the copy.
 *
 * A directory that is not a crawl of ours, one being crawled now, and a
 * state written before validators were kept (schema 2) are refused with one
 * line (ERR_EARLIER_CRAWL). A crawl made before validators were kept could
 * only be compared with, not asked about: its pages would all be sent in
 * full, which a fresh crawl does as well, so the user is told to make one.
 */
import { copyFileSync, lstatSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { CrawlerError, describeError } from '../errors.js';
import type { EarlierPage, EarlierPages } from './earlier-pages.js';
import type { PageCapture, UnkeptAnswer } from './private-store.js';
import { EarlierRequisites, type FetchedRequisite } from './requisite-journal.js';
import { liveHolderOf } from '../sink/dir-lock.js';
import { readPageCopy, readPageCopySync } from '../sink/page-file.js';
import { STATE_FILE } from '../sink/state-file.js';
import { hasOurMarker, MARKER } from '../sink/tse-pagedir.js';
import { seriesIndex } from '../sink/warc-names.js';
import { PagesReader } from './pages-table.js';
import { openDatabase } from './sqlite-open.js';
import { META_ARCHIVE, META_EARLIER_ARCHIVES, OLDEST_REFRESHABLE, SCHEMA_VERSION } from './sqlite-meta.js';

/** Pages looked up by URL kept in front of the database (a URL is asked about by the window, the page path and the archive). */
const CACHE = 256;

function refused(dir: string, why: string, cause?: unknown): CrawlerError {
  return new CrawlerError('ERR_EARLIER_CRAWL', `--since "${dir}" ${why}`, cause === undefined ? {} : { cause });
}

/** The real path of `dir`, or undefined when it cannot be resolved. */
function realOf(dir: string): string | undefined {
  try {
    return realpathSync(dir);
  } catch {
    return undefined;
  }
}

export interface RefreshSourceOptions {
  /** The new crawl's pageDirectory, which the earlier one must not be. */
  pageDir: string;
}

export class RefreshSource implements EarlierPages {
  /** The earlier crawl's directory, by its real path (what a resumed refresh must name again). */
  readonly dir: string;
  /** What the earlier crawl was: its seed and maxDepth. */
  readonly seed: string;
  readonly maxDepth: number;
  /** The pages it saved. */
  readonly pages: number;
  private readonly db: Database.Database;
  private readonly copyDir: string;
  private readonly table: PagesReader;
  private readonly fetchedRequisites: EarlierRequisites;
  private readonly cache = new Map<string, EarlierPage | null>();
  private readonly archivePath: string | undefined;
  private readonly earlierArchivePaths: string[];

  private constructor(dir: string, db: Database.Database, copyDir: string) {
    this.dir = dir;
    this.db = db;
    this.copyDir = copyDir;
    const meta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    this.seed = String(meta.get('seed') ?? '');
    this.maxDepth = Number(meta.get('maxDepth') ?? '0');
    this.archivePath = (meta.get(META_ARCHIVE) as string | undefined) ?? undefined;
    this.earlierArchivePaths = stringList(meta.get(META_EARLIER_ARCHIVES));
    this.table = new PagesReader(db);
    this.fetchedRequisites = new EarlierRequisites(db);
    this.pages = this.table.count();
  }

  /**
   * Opens the earlier crawl in `dir` for reading. Throws ERR_EARLIER_CRAWL,
   * one line naming the cause: `dir` missing, not a directory, the
   * pageDirectory itself, not a crawl of ours, in use by a crawl now,
   * without a state, or with a state that keeps no validators.
   */
  static open(dir: string, options: RefreshSourceOptions): RefreshSource {
    let st;
    try {
      st = statSync(dir);
    } catch {
      throw refused(dir, 'does not exist: name the pageDirectory of an earlier crawl');
    }
    if (!st.isDirectory()) throw refused(dir, 'is not a directory: name the pageDirectory of an earlier crawl');
    const real = realOf(dir) ?? dir;
    if (real === realOf(options.pageDir)) {
      throw refused(dir, 'is the pageDirectory itself: a refresh reads the earlier crawl and writes a new one, so give it another pageDirectory');
    }
    if (!hasOurMarker(dir)) throw refused(dir, `holds no crawl of ours (no ${MARKER} marker): name the pageDirectory of an earlier crawl`);
    const holder = liveHolderOf(dir);
    if (holder !== undefined) throw refused(dir, `is in use by ${holder.program} (PID ${holder.pid}): wait for that crawl to end`);
    const state = join(dir, STATE_FILE);
    if (!isFile(state)) throw refused(dir, `holds no crawl state (${STATE_FILE}): it cannot be refreshed; crawl it again without --since`);
    const copyDir = mkdtempSync(join(tmpdir(), 'crawler-since-'));
    let db: Database.Database | undefined;
    try {
      const copy = join(copyDir, STATE_FILE);
      copyFileSync(state, copy);
      // A crash leaves the last commits in the write-ahead log: they are part of the state.
      if (isFile(`${state}-wal`)) copyFileSync(`${state}-wal`, `${copy}-wal`);
      db = openDatabase(copy, { fileMustExist: true });
      const version = db.prepare("SELECT value FROM meta WHERE key = 'version'").pluck().get() as string | undefined;
      if (version === undefined || Number(version) < Number(OLDEST_REFRESHABLE)) {
        throw refused(dir, `was crawled by an earlier version of crawler, which kept no validators (state version ${version ?? 'unknown'}): crawl it again without --since, then refresh that crawl`);
      }
      if (Number(version) > Number(SCHEMA_VERSION)) throw refused(dir, `was crawled by a later version of crawler (state version ${version}): refresh it with that version`);
      return new RefreshSource(real, db, copyDir);
    } catch (err) {
      db?.close();
      rmSync(copyDir, { recursive: true, force: true });
      if (err instanceof CrawlerError) throw err;
      throw refused(dir, `holds a crawl state that cannot be read (${describeError(err)})`, err);
    }
  }

  page(key: string): EarlierPage | undefined {
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit ?? undefined;
    const page = this.table.page(key);
    if (this.cache.size >= CACHE) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, page ?? null);
    return page;
  }

  unkept(key: string): UnkeptAnswer | undefined {
    return this.table.unkept(key);
  }

  requisite(key: string): (FetchedRequisite & { capture: PageCapture }) | undefined {
    return this.fetchedRequisites.requisite(key);
  }

  async body(page: EarlierPage): Promise<Buffer> {
    return (await readPageCopy(this.dir, page.id, page.key)).body;
  }

  /** body(), synchronously (for the crawl archive, on the crawl's thread). */
  bodySync(page: EarlierPage): Buffer {
    return readPageCopySync(this.dir, page.id, page.key).body;
  }

  /** Every page the earlier crawl saved, in ID order (for what a refresh no longer saves). */
  saved(): Generator<{ id: number; key: string }> {
    return this.table.all();
  }

  /**
   * The archive files whose records the earlier crawl's pages name: its own
   * (--warc and the files it went on in) and, when it was a refresh itself,
   * those of the crawls before it. Those still there, each series in order;
   * none when there was no archive.
   */
  archiveFiles(): string[] {
    return this.archivePaths.flatMap(seriesFiles);
  }

  /** The archives (each by its first file's absolute path) whose records the earlier crawl's pages name, its own first. */
  get archivePaths(): string[] {
    return [...(this.archivePath === undefined ? [] : [this.archivePath]), ...this.earlierArchivePaths.filter((p) => p !== this.archivePath)];
  }

  /** Closes the state and removes its copy. */
  close(): void {
    try {
      if (this.db.open) this.db.close();
    } finally {
      rmSync(this.copyDir, { recursive: true, force: true });
    }
  }
}

/** The files of the archive series that starts at `path` (--warc, then NAME-00002... as it rotated), those there, in order. */
function seriesFiles(path: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  const series = names.flatMap((n) => {
    const i = seriesIndex(path, n);
    return i === undefined ? [] : [{ i, file: join(dirname(path), n) }];
  });
  return series.sort((a, b) => a.i - b.i).map((s) => s.file);
}

/** A JSON list of strings from the meta table, or none. */
function stringList(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  try {
    const list: unknown = JSON.parse(value);
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

