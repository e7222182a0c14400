/**
 * The TinySearch Engine page directory: each saved page is `DIR/ID` holding
 * the URL, a newline, the depth, a newline, then the body bytes unchanged.
 * IDs are 1, 2, 3... in the order pages are saved. The directory also gets a
 * `.crawler` marker, which says "a crawl of ours": only then may a new crawl
 * replace an earlier one, removing when it finishes the numbered files it
 * did not write that the earlier crawl's state records as ours (and stderr
 * says so; see pagedir-start.ts). A directory that holds numbered files
 * but no marker is someone else's and is refused before any request, unless
 * the user says `--overwrite` (spec decision "Files that are not ours").
 * Other files are never touched.
 */
// Synchronous calls: they run before the crawl's first request, or after its last, and node:fs/promises
// (with the modules it loads) would add to every run's start (docs/performance.md, Start-up).
import { accessSync, constants, lstatSync, readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';
import { discardStagedSync, isTempName, publishStagedSync, stageFileSync, tempName, writeFileAtomicSync } from './atomic-file.js';
import { PageAhead, type AheadOwner } from './page-ahead.js';
import type { EarlyStagedPage, PageSink, PageToKeep, StagedPage } from './page-sink.js';
import type { PageThread } from './page-thread-client.js';
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

export type { StagedPage };

/** The two lines before the body: the URL and the depth. */
function pageHead(page: TsePage): string {
  return `${page.url}\n${page.depth}\n`;
}

function pageChunks(page: TsePage): Uint8Array[] {
  return [Buffer.from(pageHead(page), 'utf8'), page.body];
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
export function hasOurMarker(dir: string): boolean {
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
  if (options.overwrite === true || hasOurMarker(dir)) return;
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

/** The number of bits set in `n` (a few bits). */
function bitCount(n: number): number {
  let count = 0;
  for (let m = n; m !== 0; m &= m - 1) count++;
  return count;
}

/** Pages whose writes are timed together to decide on the page files' thread. */
export const THREAD_WINDOW = 50;
/**
 * A window is slow when its median write is over the bound: a slow disk
 * makes every write slow, while a GC pause or a preemption on a loaded
 * machine makes a few writes very slow, which would carry a mean over it.
 * And the thread starts once this many of the last RECENT_WINDOWS windows
 * were slow, for a disk is slow window after window.
 * With means alone, noise on a busy machine started the thread on tmpfs,
 * where it only costs; medians tell the two apart (docs/performance.md,
 * The page files' thread).
 */
export const SLOW_WINDOWS = 3;
const RECENT_WINDOWS = 5;

/**
 * How a page waits for its ID. `memory`: a private crawl, whose IDs come in
 * order, keeps the page in memory and writes `DIR/ID` on publish (one write
 * a page). `file`: a worker of a shared crawl, whose IDs come from the store
 * in any order, writes it under a temporary name at once and renames it on
 * publish, so a crash before the store has it leaves no page file.
 */
export type Staging = 'memory' | 'file';

export class TsePageDirectory implements PageSink, AheadOwner {
  readonly dir: string;
  private readonly staging: Staging;
  private nextId: number;
  private markerWritten = false;
  private readonly fsync: boolean;
  /** When the page files get a thread: the mean write (us) of a window of pages it must exceed; undefined: never. */
  private readonly threadWhenOverUs: number | undefined;
  /** The writes timed in the current window: pages and milliseconds. */
  private windowPages = 0;
  /** Each write's time in the current window (ms). */
  private readonly windowMs = new Float64Array(THREAD_WINDOW);
  /** Which of the last RECENT_WINDOWS windows were over the bound, one bit each (the newest lowest). */
  private slowWindows = 0;
  private readonly now: () => number;
  private starting: Promise<void> | undefined;
  private thread: PageThread | undefined;
  private finished = false;
  /** Pages given to the thread and not yet known written: [ID, the thread's number for it], in order. */
  private unwritten: Array<[number, number]> = [];

  /**
   * `firstId` is 1 for a new crawl, N+1 when resuming after N saved pages.
   * With `threadWhenOverUs`, the page files are written on a thread of their
   * own (page-thread.ts) once the median write here has taken more than
   * that many microseconds in SLOW_WINDOWS of the last RECENT_WINDOWS
   * windows of THREAD_WINDOW pages (0: at the end of the first window). `now`
   * is the clock the writes are timed with (milliseconds; tests give their
   * own). A crawl state must then commit a page only once
   * `isWritten` says its file is in place (see `written`), and call `finish`
   * at the end.
   */
  constructor(dir: string, options: { firstId?: number; fsync?: boolean; threadWhenOverUs?: number; now?: () => number; staging?: Staging } = {}) {
    this.dir = dir;
    this.staging = options.staging ?? 'memory';
    this.nextId = options.firstId ?? 1;
    this.fsync = options.fsync ?? false;
    this.threadWhenOverUs = options.threadWhenOverUs;
    this.now = options.now ?? (() => performance.now());
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

  /**
   * Saves a page under the next ID and resolves with the ID: the file is in
   * place, or, once the thread runs, on its way (see `isWritten`). Rejects
   * with ERR_WRITE naming the file; with the thread, a failed write of an
   * earlier page rejects the next save.
   */
  async save(page: TsePage): Promise<number> {
    this.mark();
    const failure = this.thread?.failure;
    if (failure !== undefined) throw failure;
    const id = this.nextId++;
    const seq = this.thread?.queue(String(id), pageHead(page), page.body) ?? 0;
    if (seq !== 0) {
      this.unwritten.push([id, seq]);
      return id;
    }
    // No thread yet, or no room in its ring: written here and now.
    this.writeHere(() => writeFileAtomicSync(this.dir, String(id), pageChunks(page), { fsync: this.fsync }));
    return id;
  }

  /** Makes a page file's write on this thread, timed while a thread may be wanted. */
  private writeHere(write: () => void): void {
    const timed = this.threadWhenOverUs !== undefined && this.starting === undefined;
    const start = timed ? this.now() : 0;
    write();
    if (timed) this.timeWrite(this.now() - start);
  }

  /** Throws ERR_STATE unless `id` is the next ID (a private crawl's pages are published in order). */
  private checkNext(key: string, id: number): void {
    if (id !== this.nextId) throw new CrawlerError('ERR_STATE', `page ${key} published as ${id}, but the next ID is ${this.nextId}`);
  }

  /** Adds a write to the window; at its end, starts the thread when enough recent windows' writes were slow. */
  private timeWrite(ms: number): void {
    this.windowMs[this.windowPages] = ms;
    if (++this.windowPages < THREAD_WINDOW) return;
    this.windowPages = 0;
    const bound = this.threadWhenOverUs ?? Infinity;
    const medianUs = this.windowMs.sort()[THREAD_WINDOW >> 1]! * 1000;
    this.slowWindows = ((this.slowWindows << 1) | (medianUs > bound ? 1 : 0)) & ((1 << RECENT_WINDOWS) - 1);
    if (bound === 0 || bitCount(this.slowWindows) >= SLOW_WINDOWS) this.startThread();
  }

  /** True when the files of every page saved with an ID up to `id` are in place. */
  isWritten(id: number): boolean {
    const done = this.thread?.done ?? Infinity;
    while (this.unwritten.length > 0 && this.unwritten[0]![1] <= done) this.unwritten.shift();
    return this.unwritten.length === 0 || this.unwritten[0]![0] > id;
  }

  /** Resolves once the files of every page saved with an ID up to `id` are in place; rejects when one could not be written. */
  async written(id: number): Promise<void> {
    if (this.isWritten(id) || this.thread === undefined) return;
    let seq = 0;
    for (const [pageId, s] of this.unwritten) if (pageId <= id) seq = s;
    await this.thread.written(seq);
  }

  /** Resolves, once the thread asked for has started (or could not), with whether the page files now go to it. */
  async threaded(): Promise<boolean> {
    await this.starting;
    return this.thread !== undefined;
  }

  /** True when the thread could not write a page: the pages saved after it are not all in place. */
  get failed(): boolean {
    return this.thread?.failure !== undefined;
  }

  /** Waits for the thread's last pages and stops it; rejects with ERR_WRITE when a page could not be written. */
  async finish(): Promise<void> {
    this.finished = true;
    await this.thread?.close();
  }

  private startThread(): void {
    // Imported only here: a short crawl never loads worker_threads.
    this.starting = import('./page-thread-client.js')
      .then(({ PageThread }) => PageThread.start(this.dir, { fsync: this.fsync }))
      .then(
        (thread) => {
          if (this.finished) void thread.close().catch(() => undefined);
          else this.thread = thread;
        },
        // A thread that cannot start changes nothing: the crawl's thread writes on.
        () => undefined,
      );
  }

  /**
   * Stages a page whose ID is not known yet (see Staging): `publish` puts it
   * under its ID, `discard` drops it. In memory, the IDs published must come
   * in order from `firstId`.
   */
  async stage(kept: PageToKeep): Promise<StagedPage> {
    const page: TsePage = { url: kept.url.key, depth: kept.depth, body: kept.body };
    if (this.staging === 'memory') {
      return {
        publish: async (id) => {
          this.checkNext(page.url, id);
          await this.save(page);
        },
        discard: () => undefined,
      };
    }
    this.mark();
    const path = stageFileSync(this.dir, 'staged', pageChunks(page), { fsync: this.fsync });
    return {
      publish: (id) => void publishStagedSync(path, this.dir, String(id)),
      discard: () => discardStagedSync(path),
    };
  }

  /**
   * Stages a page on disk at once, ahead of its turn (see PageSink): on the
   * page files' thread when it runs (its ring keeps the bytes until they are
   * written), else here, timed like a save. In its turn it is published by a
   * rename under the next ID, which must be the one given (IDs in order, as
   * `save`), or discarded. A crash leaves only a temporary file, which the
   * next crawl here removes.
   */
  stageEarly(kept: PageToKeep): EarlyStagedPage {
    this.mark();
    const page: TsePage = { url: kept.url.key, depth: kept.depth, body: kept.body };
    const head = pageHead(page);
    const temp = tempName('ahead');
    const queued = this.thread?.stage(temp, 'ahead', head, page.body);
    if (queued === undefined) this.writeHere(() => stageFileSync(this.dir, 'ahead', pageChunks(page), { fsync: this.fsync, temp }));
    return new PageAhead(this, page.url, page.depth, temp, Buffer.byteLength(head), page.body.length, queued?.seq ?? 0, queued?.bodyAt ?? 0);
  }

  /** See AheadOwner: renamed after the thread's write when the thread staged it, and then counted as the thread's. */
  publishAhead(page: PageAhead, id: number): void {
    const path = join(this.dir, page.temp);
    const failure = this.thread?.failure;
    if (failure !== undefined) {
      discardStagedSync(path);
      throw failure;
    }
    this.checkNext(page.key, id);
    const seq = page.seq === 0 ? 0 : (this.thread as PageThread).settle('publish', page.temp, String(id));
    if (seq !== 0) this.unwritten.push([id, seq]);
    else publishStagedSync(path, this.dir, String(id));
    this.nextId++;
  }

  /** See AheadOwner. */
  discardAhead(page: PageAhead): void {
    if (page.seq === 0 || (this.thread as PageThread).settle('discard', page.temp, '') === 0) discardStagedSync(join(this.dir, page.temp));
  }

  /** See AheadOwner. */
  ringBody(page: PageAhead): Buffer | undefined {
    return page.seq === 0 ? undefined : (this.thread as PageThread).ringBody(page.seq, page.ringAt, page.length);
  }

  /** Removes the temporary files a crash left (only when no other writer is at work in the directory). */
  async removeTemporary(): Promise<void> {
    for (const name of readdirSync(this.dir)) {
      if (isTempName(name)) discardStagedSync(join(this.dir, name));
    }
  }

  /**
   * Removes the numbered page files above the last saved ID that are ours
   * (IDs up to `ownedThrough`: an earlier crawl's, as its state recorded
   * them, see pagedir-start.ts) and the temporary files a crash left.
   * Numbered files above `ownedThrough` are not ours and are left alone.
   * Returns how many page files were removed.
   */
  async removeStale(ownedThrough: number): Promise<number> {
    const last = this.nextId - 1;
    let removed = 0;
    for (const entry of readdirSync(this.dir, { withFileTypes: true })) {
      const name = entry.name;
      // Only files (or links planted in their place) are page files: a directory named "7" is not ours.
      if (PAGE_FILE_RE.test(name) && Number(name) > last && Number(name) <= ownedThrough && !entry.isDirectory()) {
        unlinkSync(join(this.dir, name));
        removed++;
      } else if (isTempName(name)) {
        discardStagedSync(join(this.dir, name));
      }
    }
    return removed;
  }
}
