/**
 * The TinySearch Engine page directory: each saved page is `DIR/ID` holding
 * the URL, a newline, the depth, a newline, then the body bytes unchanged.
 * IDs are 1, 2, 3... in the order pages are saved. The directory also gets a
 * `.crawler` marker. A new crawl replaces an earlier one: numbered files it
 * did not write are removed when it finishes (and stderr says so); other
 * files are never touched.
 */
import { constants } from 'node:fs';
import { access, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';
import { discardStagedSync, publishStagedSync, stageFileSync, TEMP_PREFIX, writeFileAtomic } from './atomic-file.js';

/** The marker file that says "a crawler wrote this directory". */
export const MARKER = '.crawler';

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

/** Checks that `dir` exists and is a writable directory; the error names what is wrong. */
export async function checkPageDirectory(dir: string): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch {
    throw new CrawlerError('ERR_PAGE_DIRECTORY', `pageDirectory "${dir}" does not exist (create it first)`);
  }
  if (!st.isDirectory()) throw new CrawlerError('ERR_PAGE_DIRECTORY', `pageDirectory "${dir}" is not a directory`);
  try {
    await access(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new CrawlerError('ERR_PAGE_DIRECTORY', `pageDirectory "${dir}" is not writable`);
  }
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

  private async mark(): Promise<void> {
    if (this.markerWritten) return;
    // Atomically, like the pages: a symlink planted under the marker's name is replaced, never followed.
    await writeFileAtomic(this.dir, MARKER, [Buffer.from('polite-crawler page directory\n')]);
    this.markerWritten = true;
  }

  /** Saves a page under the next ID. Resolves with the ID once the file is in place. */
  async save(page: TsePage): Promise<number> {
    await this.mark();
    const id = this.nextId++;
    await writeFileAtomic(this.dir, String(id), pageChunks(page), { fsync: this.fsync });
    return id;
  }

  /**
   * Writes a page whose ID is not known yet (a shared frontier gives it once
   * the page is recorded): `publish` then puts it under its ID, `discard`
   * drops it. Until then it has only a temporary name, so a crash leaves no
   * page file.
   */
  async stage(page: TsePage): Promise<StagedPage> {
    await this.mark();
    const path = stageFileSync(this.dir, 'staged', pageChunks(page), { fsync: this.fsync });
    return {
      publish: (id) => void publishStagedSync(path, this.dir, String(id)),
      discard: () => discardStagedSync(path),
    };
  }

  /** Removes the temporary files a crash left (only when no other writer is at work in the directory). */
  async removeTemporary(): Promise<void> {
    for (const name of await readdir(this.dir)) {
      if (name.startsWith(TEMP_PREFIX)) await unlink(join(this.dir, name)).catch(() => undefined);
    }
  }

  /**
   * Removes numbered page files above the last saved ID (left by an earlier,
   * longer crawl) and temporary files left by a crash. Returns how many
   * page files were removed.
   */
  async removeStale(): Promise<number> {
    const last = this.nextId - 1;
    let removed = 0;
    for (const entry of await readdir(this.dir, { withFileTypes: true })) {
      const name = entry.name;
      // Only files (or links planted in their place) are page files: a directory named "7" is not ours.
      if (PAGE_FILE_RE.test(name) && Number(name) > last && !entry.isDirectory()) {
        await unlink(join(this.dir, name));
        removed++;
      } else if (name.startsWith(TEMP_PREFIX)) {
        await unlink(join(this.dir, name)).catch(() => undefined);
      }
    }
    return removed;
  }
}
