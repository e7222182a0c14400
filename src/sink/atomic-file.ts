/**
 * Writes a file so that a crash never leaves a partial one under its final
 * name: write a temporary file (created exclusively, never through a
 * symlink), then rename it over the final name. rename(2) replaces a planted
 * symlink itself rather than following it.
 */
import { constants } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
let counter = 0;

/** The prefix of every temporary file this module makes (for clean-up after a crash). */
export const TEMP_PREFIX = '.tmp-';

/** Writes `chunks` to `dir/name` atomically. Rejects with ERR_WRITE naming the file. */
export async function writeFileAtomic(dir: string, name: string, chunks: readonly Uint8Array[], options: { fsync?: boolean } = {}): Promise<string> {
  const finalPath = join(dir, name);
  const tempPath = join(dir, `${TEMP_PREFIX}${process.pid}-${++counter}-${name}`);
  let handle;
  try {
    handle = await open(tempPath, CREATE_FLAGS, 0o644);
  } catch (err) {
    throw new CrawlerError('ERR_WRITE', `cannot create ${tempPath}: ${(err as NodeJS.ErrnoException).code ?? err}`, { cause: err });
  }
  try {
    const total = chunks.reduce((n, c) => n + c.byteLength, 0);
    const { bytesWritten } = await handle.writev(chunks as Uint8Array[]);
    if (bytesWritten !== total) throw Object.assign(new Error('short write'), { code: `short write (${bytesWritten} of ${total} bytes)` });
    if (options.fsync === true) await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(tempPath, finalPath);
    return finalPath;
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await unlink(tempPath).catch(() => undefined);
    throw new CrawlerError('ERR_WRITE', `cannot write ${finalPath}: ${(err as NodeJS.ErrnoException).code ?? err}`, { cause: err });
  }
}
