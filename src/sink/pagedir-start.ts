/**
 * How a private crawl takes over its pageDirectory, and how a start that
 * failed is undone (spec decisions "Files that are not ours" and "One
 * crawl per directory"). Runs under the directory's lock (dir-lock.ts).
 *
 * - Remove only what we wrote. A new crawl may remove (at its end) exactly
 *   the numbered files that the earlier crawl's state records as written by
 *   a crawl of ours: IDs 1..its last document ID, the IDs of earlier crawls'
 *   files it still owned, and the pages a crash left just above its last
 *   ID (each names a URL the state knows). Any other numbered file stops
 *   the crawl before any request, with one line naming it, unless the user
 *   said `--overwrite`.
 * - Nothing is lost by a failed start. Until its first page is saved, a new
 *   crawl keeps the earlier crawl's state (SQLite file, pacing, report
 *   journal) set aside under `NAME.earlier`, and its pages are untouched (a
 *   crawl removes stale pages only when it ends). A start that fails then
 *   (a seed PANIC, an error) is undone: the new state files are removed,
 *   the earlier ones put back, and in a directory that held nothing of ours
 *   the marker goes too. Once the first page is saved the earlier state is
 *   removed: page 1 is the new crawl's, so the earlier crawl cannot be
 *   resumed any more. A crawl stopped by a signal before its first page
 *   keeps its own state, so that `--resume` continues it.
 * - A crash (`kill -9`) before the first page cannot undo anything: it
 *   leaves the new crawl's state (which records the earlier crawl's page
 *   files as ours) and the set-aside files, which the next start removes.
 */
// Synchronous: before the first request (see tse-pagedir.ts).
import { closeSync, constants, openSync, readdirSync, readSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';
import { removeFileSync } from './atomic-file.js';
import { STATE_FILE, stateFileParts, type EarlierCrawlRecord } from './state-file.js';
import { hasOurMarker, MARKER, markPageDirectory } from './tse-pagedir.js';

const PAGE_FILE_RE = /^[1-9][0-9]*$/;
/** The suffix of a state file set aside while a new crawl starts. */
export const SET_ASIDE = '.earlier';
/** The most of a page file read to learn its URL (a URL is capped well below this). */
const HEAD_BYTES = 64 * 1024;

export interface PageDirStartOptions {
  resume: boolean;
  overwrite: boolean;
  /** The crawl's state files in the directory besides the SQLite state (the pacing file, the report journal). */
  stateFiles: readonly string[];
  /** Reads the earlier crawl's record from its state (private-sqlite.ts), undefined when there is none. */
  readEarlier: (dir: string) => EarlierCrawlRecord | undefined;
}

/** A private crawl's start in its pageDirectory: what it may remove, and how to undo it. */
export class PageDirStart {
  private settled = false;

  private constructor(
    readonly dir: string,
    /** Numbered files of earlier crawls (ours, or given up with --overwrite) have IDs up to this. */
    readonly ownedThrough: number,
    /** The directory carried our marker before this start. */
    private readonly heldOurs: boolean,
    /** The state files this start made anew (removed by `undo`), and those it set aside (put back). */
    private readonly fresh: readonly string[],
    private readonly setAside: readonly string[],
  ) {}

  /**
   * Checks the numbered files (a new crawl), sets the earlier crawl's state
   * aside and writes the marker. Throws ERR_PAGE_DIRECTORY naming a
   * numbered file that is not ours; nothing is changed then.
   */
  static begin(dir: string, options: PageDirStartOptions): PageDirStart {
    const heldOurs = hasOurMarker(dir);
    const names = [...stateFileParts(STATE_FILE), ...options.stateFiles];
    let ownedThrough = 0;
    if (!options.resume) {
      if (heldOurs) for (const name of names) removeFileSync(join(dir, name + SET_ASIDE)); // a crashed start's
      ownedThrough = ownedPageFiles(dir, heldOurs ? options.readEarlier : () => undefined, options.overwrite);
    }
    const setAside: string[] = [];
    if (!options.resume && heldOurs) {
      for (const name of names) if (renameIfThere(join(dir, name), join(dir, name + SET_ASIDE))) setAside.push(name);
    }
    if (!heldOurs) markPageDirectory(dir);
    return new PageDirStart(dir, ownedThrough, heldOurs, options.resume ? [] : names, setAside);
  }

  /** The crawl is under way (its first page is saved, or it ends without failing): the earlier state set aside is removed. */
  keep(): void {
    if (this.settled) return;
    this.settled = true;
    for (const name of this.setAside) removeFileSync(join(this.dir, name + SET_ASIDE));
  }

  /**
   * The start failed before the first page was saved: the new state files
   * are removed, the earlier ones put back, and the marker removed when
   * the directory held nothing of ours. Nothing happens after `keep`.
   */
  undo(): void {
    if (this.settled) return;
    this.settled = true;
    for (const name of this.fresh) removeFileSync(join(this.dir, name));
    for (const name of this.setAside) renameSync(join(this.dir, name + SET_ASIDE), join(this.dir, name));
    if (!this.heldOurs) removeFileSync(join(this.dir, MARKER));
  }
}

/** Renames `from` to `to` when `from` is there; true when it was. */
function renameIfThere(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new CrawlerError('ERR_WRITE', `cannot rename ${from}: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * The highest ID of the numbered files in `dir` that a new crawl may
 * remove, or throws naming the first one that is not ours (unless
 * `overwrite`, which gives all of them up).
 */
export function ownedPageFiles(dir: string, readEarlier: (dir: string) => EarlierCrawlRecord | undefined, overwrite: boolean): number {
  // As removeStale sees them: a directory named "7" is no page file.
  const ids = readdirSync(dir, { withFileTypes: true })
    .filter((e) => !e.isDirectory() && PAGE_FILE_RE.test(e.name))
    .map((e) => Number(e.name))
    .sort((a, b) => a - b);
  if (ids.length === 0) return 0;
  const highest = ids[ids.length - 1] as number;
  if (overwrite) return highest;
  const record = readEarlier(dir);
  let owned = 0;
  try {
    if (record !== undefined) {
      owned = Math.max(record.lastId, record.ownedThrough);
      // Pages a crash left above the last committed ID: a run of files, each naming a URL the state knows.
      const present = new Set(ids);
      for (let id = record.lastId + 1; present.has(id); id++) {
        if (id <= owned) continue;
        const url = firstLine(join(dir, String(id)));
        if (url === undefined || !record.knows(url)) break;
        owned = id;
      }
    }
  } finally {
    record?.close();
  }
  const theirs = ids.find((id) => id > owned);
  if (theirs === undefined) return owned;
  const others = ids.filter((id) => id > owned).length - 1;
  const recorded = owned === 0 ? 'which no state of an earlier crawl here records as written by it' : `which the earlier crawl's state does not record as written by it (it records 1..${owned})`;
  throw new CrawlerError(
    'ERR_PAGE_DIRECTORY',
    `pageDirectory "${dir}" holds "${theirs}"${others > 0 ? ` (and ${others} more numbered file${others === 1 ? '' : 's'})` : ''}, ${recorded}: not ours to remove (--overwrite to replace ${others > 0 ? 'them' : 'it'})`,
  );
}

/** The first line of a page file (its URL), or undefined when it has none. */
function firstLine(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const end = buf.subarray(0, n).indexOf(0x0a);
    return end > 0 ? buf.subarray(0, end).toString('utf8') : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
