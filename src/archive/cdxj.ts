/**
 * The CDXJ index of a crawl's WARC files (`FILE.cdxj`): one line per
 * response and revisit record (see cdxj-line.ts), sorted bytewise by whole
 * line as `LC_ALL=C sort` sorts them (SURT key, then timestamp, then the
 * rest). The lines are built in memory (about 250 bytes each) and written at
 * once: from entries taken as the records were written (a crawl's own
 * archive), or from a reading of the files (a resumed one, or any other).
 */
import { basename, dirname } from 'node:path';
import { CrawlerError } from '../errors.js';
import { writeFileAtomicSync, writeFileNewSync } from '../sink/atomic-file.js';
import { cdxjEntry, cdxjText, sortedCdxj, type CdxjEntry } from './cdxj-line.js';
import { readWarcRecords } from './warc-reader.js';

export interface WriteCdxjOptions {
  /** The caller wrote `outPath` before (an earlier run of this crawl): it is replaced. Otherwise an existing file is never touched. */
  replace?: boolean;
}

/**
 * Reads `warcPaths` (plain, or one gzip member per record), writes their
 * index to `outPath` and returns the number of lines. Each line's `filename`
 * is the WARC file's base name, so two inputs may not share one. The file is
 * written under a temporary name and then renamed; without `replace` an
 * existing `outPath` is left as it is and ERR_WRITE says so.
 */
export async function writeCdxj(warcPaths: readonly string[], outPath: string, options: WriteCdxjOptions = {}): Promise<number> {
  return writeCdxjEntries(await indexEntries(warcPaths), outPath, options);
}

/** The index entries of `warcPaths`, read from the files (in no particular order); two files may not share a base name. */
export async function indexEntries(warcPaths: readonly string[]): Promise<CdxjEntry[]> {
  const names = new Set<string>();
  const entries: CdxjEntry[] = [];
  for (const path of warcPaths) {
    const filename = basename(path);
    if (names.has(filename)) throw new CrawlerError('ERR_WRITE', `cannot index two WARC files named ${filename}: the index names files by base name`);
    names.add(filename);
    for await (const rec of readWarcRecords(path)) {
      const entry = cdxjEntry(rec, filename, path);
      if (entry !== undefined) entries.push(entry);
    }
  }
  return entries;
}

/** Writes the index of `entries` (in any order) to `outPath`, as writeCdxj does; returns the number of lines. */
export function writeCdxjEntries(entries: readonly CdxjEntry[], outPath: string, options: WriteCdxjOptions = {}): number {
  const text = sortedCdxj(entries.map(cdxjText));
  const dir = dirname(outPath);
  const name = basename(outPath);
  if (options.replace === true) writeFileAtomicSync(dir, name, [text]);
  else if (!writeFileNewSync(dir, name, [text])) throw new CrawlerError('ERR_WRITE', `${outPath} exists and was not written by this crawl; not replacing it`);
  return entries.length;
}
