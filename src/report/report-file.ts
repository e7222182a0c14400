/**
 * The report file: a report of ours carries our generator meta tag, and
 * only such a file (or none) is ever replaced. The check runs before the
 * crawl starts, so a file of someone else's is refused with one line before
 * any request; the write (atomic: a temporary file renamed into place)
 * checks again.
 */
import { closeSync, constants, lstatSync, openSync, readSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { CrawlerError } from '../errors.js';
import { checkOutputDirectory } from '../output-path.js';
import { writeFileAtomicSync } from '../sink/atomic-file.js';

/** The meta tag that marks a report of ours. */
export const GENERATOR_META = '<meta name="generator" content="polite-crawler report">';

/** How far into a file the tag is looked for (it is in the head's first lines). */
const HEAD_BYTES = 4096;

/** Whether `path` is a regular file (not a link) whose head carries our generator tag. */
function isOurReport(path: string): boolean {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, n).toString('latin1').includes(GENERATOR_META);
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks that `path` may be written as the report: absent (in an existing,
 * writable directory), or a report of ours. Throws a one-line CrawlerError.
 */
export function checkReportFile(path: string): void {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (st === undefined) {
    checkOutputDirectory('--report', path);
    return;
  }
  let ours = false;
  try {
    ours = st.isFile() && isOurReport(path);
  } catch {
    ours = false;
  }
  if (!ours) throw new CrawlerError('ERR_WRITE', `--report ${path} exists and is not a report of ours: not overwriting it`);
}

/** Writes the report atomically, after checking again that the file is absent or ours. */
export function writeReportFile(path: string, html: string): void {
  checkReportFile(path);
  writeFileAtomicSync(dirname(path), basename(path), [Buffer.from(html, 'utf8')]);
}
