/**
 * Writes a file so that a crash never leaves a partial one under its final
 * name: write a temporary file (created exclusively, never through a
 * symlink), then rename it over the final name. rename(2) replaces a planted
 * symlink itself rather than following it.
 *
 * The four system calls are made synchronously. On the crawl's hot path,
 * the promise API's thread-pool round trips cost more CPU than the calls
 * themselves (docs/performance.md, The hot path), and the event loop loses
 * little: the next request is already on the wire
 * (the lookahead window), and a page write into the page cache takes tens of
 * microseconds.
 */
import { closeSync, constants, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError, writeError } from '../errors.js';

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
let counter = 0;

/** The prefix of every temporary file this module makes (for clean-up after a crash). */
export const TEMP_PREFIX = '.tmp-';

/** Exactly the names this module gives temporary files (`.tmp-PID-N-name`): a user's `.tmp-notes` is not one. */
const TEMP_NAME_RE = /^\.tmp-[0-9]+-[0-9]+-/;

/** True for a name this module gives its temporary files (clean-up after a crash removes only those). */
export function isTempName(name: string): boolean {
  return TEMP_NAME_RE.test(name);
}

/** A new temporary name for a file to be called `name` (`.tmp-PID-N-name`, N counted by the thread that asks). */
export function tempName(name: string): string {
  return `${TEMP_PREFIX}${process.pid}-${++counter}-${name}`;
}

/**
 * Writes `chunks` to a new temporary file in `dir` (created exclusively,
 * never through a symlink) and returns its path: the first half of an atomic
 * write, for a caller that learns the final name later (a document ID taken
 * from a shared frontier). `temp`: the temporary name to use (tempName's,
 * made by another thread). Throws ERR_WRITE naming `dir/name`.
 */
export function stageFileSync(dir: string, name: string, chunks: readonly Uint8Array[], options: { fsync?: boolean; temp?: string } = {}): string {
  const finalPath = join(dir, name);
  const tempPath = join(dir, options.temp ?? tempName(name));
  let fd: number;
  try {
    fd = openSync(tempPath, CREATE_FLAGS, 0o644);
  } catch (err) {
    // Named after the file asked for: the temporary name means nothing to the user.
    throw writeError('ERR_WRITE', finalPath, err);
  }
  try {
    let total = 0;
    for (const c of chunks) total += c.byteLength;
    let written = writevSync(fd, chunks as Uint8Array[]);
    // writev may write less than asked (a signal, a nearly full disk): finish the rest.
    while (written < total) {
      const rest = Buffer.concat(chunks as Uint8Array[]).subarray(written);
      const n = writevSync(fd, [rest]);
      if (n === 0) throw Object.assign(new Error('short write'), { code: `short write (${written} of ${total} bytes)` });
      written += n;
    }
    if (options.fsync === true) fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    return tempPath;
  } catch (err) {
    if (fd !== -1) {
      try {
        closeSync(fd);
      } catch {
        // already failing: the write error is the one to report
      }
    }
    discardStagedSync(tempPath);
    throw writeError('ERR_WRITE', finalPath, err);
  }
}

/** Renames a staged file to `dir/name` (a planted symlink there is replaced, not followed). Throws ERR_WRITE; the staged file is then removed. */
export function publishStagedSync(tempPath: string, dir: string, name: string): string {
  const finalPath = join(dir, name);
  try {
    renameSync(tempPath, finalPath);
    return finalPath;
  } catch (err) {
    discardStagedSync(tempPath);
    throw writeError('ERR_WRITE', finalPath, err);
  }
}

/** Removes a staged file; nothing happens when it is gone already. */
export function discardStagedSync(tempPath: string): void {
  try {
    unlinkSync(tempPath);
  } catch {
    // nothing left to remove
  }
}

/** Writes `chunks` to `dir/name` atomically. Throws ERR_WRITE naming the file. Returns the final path. */
export function writeFileAtomicSync(dir: string, name: string, chunks: readonly Uint8Array[], options: { fsync?: boolean } = {}): string {
  return publishStagedSync(stageFileSync(dir, name, chunks, options), dir, name);
}

/**
 * Writes `chunks` to `dir/name` atomically, but only if nothing is there yet:
 * the staged file is hard-linked to its final name (link(2) never replaces
 * and never follows a symlink), so a file that was there before, or that
 * appeared meanwhile, is never overwritten. Returns false when the name is
 * taken (the staged file is then dropped); throws ERR_WRITE naming the file.
 */
export function writeFileNewSync(dir: string, name: string, chunks: readonly Uint8Array[], options: { fsync?: boolean } = {}): boolean {
  const tempPath = stageFileSync(dir, name, chunks, options);
  const finalPath = join(dir, name);
  try {
    linkSync(tempPath, finalPath);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw writeError('ERR_WRITE', finalPath, err);
  } finally {
    discardStagedSync(tempPath);
  }
}

/** The same, as a promise (rejects with ERR_WRITE). */
export async function writeFileAtomic(dir: string, name: string, chunks: readonly Uint8Array[], options: { fsync?: boolean } = {}): Promise<string> {
  return writeFileAtomicSync(dir, name, chunks, options);
}

/**
 * Removes the file at `path` when there is one (not a directory). Throws
 * ERR_WRITE for any failure but "no such file". `unlinkSync`, not
 * `rmSync({ force: true })`, whose first call loads node's rimraf, a cost
 * at a run's start (docs/performance.md, Start-up).
 */
export function removeFileSync(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new CrawlerError('ERR_WRITE', `cannot remove ${path}: ${(err as Error).message}`, { cause: err });
  }
}
