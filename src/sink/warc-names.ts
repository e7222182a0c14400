/**
 * The names of an archive's files: the name given, then `-00002`, `-00003`...
 * before the extension as the size limit rotates (Heritrix's and wget's
 * habit), and in a shared crawl a worker's own tag before those, so no two
 * workers ever write one file.
 */
import { basename, dirname, join } from 'node:path';

/** The name split at its WARC extension (`.warc.gz`, `.warc`, `.gz`; else none). */
function split(path: string): { dir: string; stem: string; ext: string } {
  const name = basename(path);
  const ext = /(\.warc\.gz|\.warc|\.gz)$/i.exec(name)?.[1] ?? '';
  return { dir: dirname(path), stem: name.slice(0, name.length - ext.length), ext };
}

/** True when records go into gzip members (the name ends in `.gz`). */
export function isGzipName(path: string): boolean {
  return /\.gz$/i.test(path);
}

/** The name with a worker's tag before the extension: `crawl.warc.gz` -> `crawl-wTAG.warc.gz`. */
export function workerName(path: string, tag: string): string {
  const { dir, stem, ext } = split(path);
  return join(dir, `${stem}-w${tag.replace(/[^A-Za-z0-9_-]+/g, '_')}${ext}`);
}

/** The series' file number `index` (1 is the name itself). */
export function seriesName(path: string, index: number): string {
  if (index <= 1) return path;
  const { dir, stem, ext } = split(path);
  return join(dir, `${stem}-${String(index).padStart(5, '0')}${ext}`);
}

/** The number of a file of the series, by its name in the same directory, or undefined when it is none of them. */
export function seriesIndex(path: string, name: string): number | undefined {
  const { stem, ext } = split(path);
  if (name === basename(path)) return 1;
  if (!name.startsWith(`${stem}-`) || !name.endsWith(ext)) return undefined;
  const digits = name.slice(stem.length + 1, name.length - ext.length);
  return /^[0-9]{5,}$/.test(digits) && Number(digits) >= 2 ? Number(digits) : undefined;
}
