/**
 * Reads `crawler --seeds FILE` before any request: a readable regular file
 * of UTF-8 text, at most MAX_SEED_FILE_BYTES, parsed by src/url/seed-list.ts.
 * Every failure is one line naming the file (and the line, for a bad URL).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CrawlerError, fileErrorWords } from '../errors.js';
import { parseSeedList, type SeedLine } from '../url/seed-list.js';

/** The largest seed file read (64 MiB: about a million URLs). */
export const MAX_SEED_FILE_BYTES = 64 * 1024 * 1024;

/** The seeds of the file `path`, in file order (see parseSeedList). Throws a CrawlerError naming the file. */
export function readSeedFile(path: string, maxUrlLength: number): SeedLine[] {
  const name = JSON.stringify(path);
  let bytes: Buffer;
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new CrawlerError('ERR_INVALID_OPTION', `--seeds ${name} is a directory, not a file of URLs`);
    if (stat.size > MAX_SEED_FILE_BYTES) throw new CrawlerError('ERR_INVALID_OPTION', `--seeds ${name} is larger than ${MAX_SEED_FILE_BYTES / 1024 / 1024} MiB; split it, or crawl it in parts`);
    // A pipe or a device has no size: read to the cap, one byte past it says it is too long.
    const buffer = Buffer.alloc(stat.isFile() ? stat.size : MAX_SEED_FILE_BYTES + 1);
    let length = 0;
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0; ) length += n;
    if (length > MAX_SEED_FILE_BYTES) throw new CrawlerError('ERR_INVALID_OPTION', `--seeds ${name} is larger than ${MAX_SEED_FILE_BYTES / 1024 / 1024} MiB; split it, or crawl it in parts`);
    bytes = buffer.subarray(0, length);
  } catch (err) {
    if (err instanceof CrawlerError) throw err;
    throw new CrawlerError('ERR_INVALID_OPTION', `cannot read --seeds ${name}: ${fileErrorWords(err)}`, { cause: err });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CrawlerError('ERR_INVALID_OPTION', `--seeds ${name} is not UTF-8 text`);
  }
  return parseSeedList(text, name, maxUrlLength);
}
