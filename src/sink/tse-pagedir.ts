/**
 * The TinySearch Engine page directory: each saved page is `DIR/ID` holding
 * the URL, a newline, the depth, a newline, then the body bytes unchanged.
 * IDs are 1, 2, 3... in the order pages are saved. The directory also gets a
 * `.crawler` marker, which says "a crawl of ours": only then may a new crawl
 * replace an earlier one, removing the numbered files it did not write when
 * it finishes (and stderr says so). A directory that holds numbered files
 * but no marker is someone else's and is refused before any request, unless
 * the user says `--overwrite` (spec decision "Files that are not ours").
 * Other files are never touched.
 */
// Synchronous calls: they run before the crawl's first request, or after its last, and node:fs/promises
// (with the modules it loads) would cost some 1.5 ms of every run's start.
import { accessSync, constants, lstatSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';
import { discardStagedSync, isTempName, publishStagedSync, stageFileSync, writeFileAtomicSync } from './atomic-file.js';
import { STATE_FILE } from './state-file.js';

/** The marker file that says "a crawler wrote this directory". */
export const MARKER = '.crawler';
/** What the marker holds: a file named `.crawler` with other contents is not ours. */
export const MARKER_TEXT = 'polite-crawler page directory\n';

const PAGE_FILE_RE = /^[1-9][0-9]*$/;

/** A page to save. */
export interface TsePage {
  url: string;
  depth: number;
  body: Buffer;
}

/** A page written under a temporary name, waiting for its ID. */
export interface StagedPage {
  /** Renames it to `DIR/id`. Throws ERR_WRITE. */
  publish(id: number): void;
  /** Removes it. */
  discard(): void;
}

function pageChunks(page: TsePage): Uint8Array[] {
  return [Buffer.from(`${page.url}\n${page.depth}\n`, 'utf8'), page.body];
}

/** What `f` returns, or undefined when it throws. */
function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** Whether `dir` holds our marker: a regular file (not a link planted there) with our text. */
export async function hasOurMarker(dir: string): Promise<boolean> {
  const path = join(dir, MARKER);
  const st = attempt(() => lstatSync(path));
  if (st === undefined || !st.isFile() || st.size !== MARKER_TEXT.length) return false;
  return attempt(() => readFileSync(path, 'utf8')) === MARKER_TEXT;
}

/**
 * Checks that `dir` exists, is a writable directory, and may be crawled
 * into: it holds our marker, or nothing a crawl would replace (numbered
 * files, a marker or state file of someone else's), or `overwrite` is set.
 * The error names what is wrong, and one file that is not ours.
 */
export async function checkPageDirectory(dir: string, options: { overwrite?: boolean } = {}): Promise<void> {
  let st;
  try {
    st = statSync(dir);
  } catch {
    throw new CrawlerError('ERR_PAGE_DIRECTORY', `pageDirectory "${dir}" does not exist (create it first)`);
  }
  if (!st.isDirectory()) throw new CrawlerError('ERR_PAGE_DIRECTORY', `pageDirectory "${dir}" is not a directory`);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new CrawlerError('ERR_PAGE_DIRECTORY', `pageDirectory "${dir}" is not writable`);
  }
  if (options.overwrite === true || (await hasOurMarker(dir))) return;
  // As removeStale sees them: a directory named "7" is no page file.
  const names = readdirSync(dir, { withFileTypes: true }).filter((e) => !e.isDirectory()).map((e) => e.name);
  names.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  const theirs = names.find((n) => PAGE_FILE_RE.test(n) || n === MARKER || n === STATE_FILE);
  if (theirs !== undefined) {
    throw new CrawlerError(
      'ERR_PAGE_DIRECTORY',
      `pageDirectory "${dir}" holds "${theirs}" but no ${MARKER} marker of an earlier crawl: it is not ours to replace (--overwrite to crawl into it anyway)`,
    );
  }
}

/**
 * Writes the marker: `dir` is a crawl of ours from now on. A private crawl
 * writes it before it makes its state file, so that a crawl stopped before
 * its first page is still known as ours.
 */
export function markPageDirectory(dir: string): void {
  // Atomically, like the pages: a symlink planted under the marker's name is replaced, never followed.
  writeFileAtomicSync(dir, MARKER, [Buffer.from(MARKER_TEXT)]);
}

export class TsePageDirectory {
  readonly dir: string;
  private nextId: number;
  private markerWritten = false;
  private readonly fsync: boolean;

  /** `firstId` is 1 for a new crawl, N+1 when resuming after N saved pages. */
  constructor(dir: string, options: { firstId?: number; fsync?: boolean } = {}) {
    this.dir = dir;
    this.nextId = options.firstId ?? 1;
    this.fsync = options.fsync ?? false;
  }

  /** The ID the next saved page gets. */
  get peekId(): number {
    return this.nextId;
  }

  /** Writes the marker (once, before the first page): the directory is a crawl of ours from now on. */
  mark(): void {
    if (this.markerWritten) return;
    markPageDirectory(this.dir);
    this.markerWritten = true;
  }

  /** Saves a page under the next ID. Resolves with the ID once the file is in place. */
  async save(page: TsePage): Promise<number> {
    this.mark();
    const id = this.nextId++;
    writeFileAtomicSync(this.dir, String(id), pageChunks(page), { fsync: this.fsync });
    return id;
  }

  /**
   * Writes a page whose ID is not known yet (a shared frontier gives it once
   * the page is recorded): `publish` then puts it under its ID, `discard`
   * drops it. Until then it has only a temporary name, so a crash leaves no
   * page file.
   */
  async stage(page: TsePage): Promise<StagedPage> {
    this.mark();
    const path = stageFileSync(this.dir, 'staged', pageChunks(page), { fsync: this.fsync });
    return {
      publish: (id) => void publishStagedSync(path, this.dir, String(id)),
      discard: () => discardStagedSync(path),
    };
  }

  /** Removes the temporary files a crash left (only when no other writer is at work in the directory). */
  async removeTemporary(): Promise<void> {
    for (const name of readdirSync(this.dir)) {
      if (isTempName(name)) discardStagedSync(join(this.dir, name));
    }
  }

  /**
   * Removes numbered page files above the last saved ID (left by an earlier,
   * longer crawl of ours: checkPageDirectory let the crawl in) and temporary
   * files left by a crash. Returns how many page files were removed.
   */
  async removeStale(): Promise<number> {
    const last = this.nextId - 1;
    let removed = 0;
    for (const entry of readdirSync(this.dir, { withFileTypes: true })) {
      const name = entry.name;
      // Only files (or links planted in their place) are page files: a directory named "7" is not ours.
      if (PAGE_FILE_RE.test(name) && Number(name) > last && !entry.isDirectory()) {
        unlinkSync(join(this.dir, name));
        removed++;
      } else if (isTempName(name)) {
        discardStagedSync(join(this.dir, name));
      }
    }
    return removed;
  }
}
