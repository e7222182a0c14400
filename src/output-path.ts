/**
 * The one check of an output file's place, before any request: the same
 * words for every output path (--warc, --wacz, --report).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { CrawlerError } from './errors.js';

/**
 * Checks that the file `path` of option `flag` can be made: its directory
 * exists and is writable. The same words for every output path (--warc,
 * --wacz, --report): "--warc X: the directory D does not exist".
 */
export function checkOutputDirectory(flag: string, path: string): void {
  const dir = dirname(path);
  const d = statSync(dir, { throwIfNoEntry: false });
  if (d === undefined || !d.isDirectory()) throw new CrawlerError('ERR_WRITE', `${flag} ${path}: the directory ${dir} does not exist`);
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch {
    throw new CrawlerError('ERR_WRITE', `${flag} ${path}: the directory ${dir} is not writable`);
  }
}

