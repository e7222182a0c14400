/**
 * The index that goes into a WACZ (`indexes/index.cdxj`): the crawl's CDXJ
 * with each line pointing into the package. A line keeps its key and its
 * other fields; its `filename` becomes the name of the file in `archive/`,
 * and for a WARC that was gzipped on the way in, `offset` and `length`
 * become those of the record's gzip member. The lines are then sorted again
 * bytewise (sortedCdxj): new offsets and names can change the order of two
 * lines with the same key and timestamp. A line that points at
 * no file of the package, or at no record of a regzipped file, is an index
 * of something else and is refused, since replay would fail on it.
 */
import { readFile } from 'node:fs/promises';
import { CrawlerError } from '../errors.js';
import { sortedCdxj } from './cdxj-line.js';
import type { MovedRecord } from './wacz-gzip.js';

/** One WARC file as the package holds it. */
export interface PackagedWarc {
  /** Its `filename` in the crawl's index (the source file's base name). */
  indexedAs: string;
  /** Its name under `archive/`. */
  name: string;
  /** Its size in the package, to check that each line lies inside it. */
  bytes: number;
  /** For a plain WARC gzipped on the way in: where each record went. */
  moved?: Map<number, MovedRecord>;
}

/** The lines of the CDXJ file `cdxjPath`, pointed at the files of the package. */
export async function packageIndex(cdxjPath: string, warcs: readonly PackagedWarc[]): Promise<Buffer> {
  const byName = new Map(warcs.map((w) => [w.indexedAs, w]));
  const text = await readFile(cdxjPath, 'utf8').catch((err: unknown) => {
    throw new CrawlerError('ERR_WRITE', `cannot read index ${cdxjPath}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, { cause: err });
  });
  const out: string[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '') continue;
    const bad = (what: string): CrawlerError => new CrawlerError('ERR_WRITE', `cannot package index ${cdxjPath}: line ${i + 1} ${what}`);
    const brace = line.indexOf(' {');
    if (brace < 0) throw bad('is not a CDXJ line');
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(line.slice(brace + 1)) as Record<string, unknown>;
    } catch {
      throw bad('is not a CDXJ line');
    }
    const warc = byName.get(String(json['filename']));
    if (warc === undefined) throw bad(`names ${JSON.stringify(json['filename'])}, which is not one of the WARC files packaged`);
    let offset = Number(json['offset']);
    let length = Number(json['length']);
    if (warc.moved !== undefined) {
      const to = warc.moved.get(offset);
      if (to === undefined) throw bad(`points at offset ${offset} of ${warc.indexedAs}, where no record starts`);
      ({ offset, length } = to);
    }
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length <= 0 || offset + length > warc.bytes) {
      throw bad(`points past the end of ${warc.indexedAs}`);
    }
    const fields = { ...json, offset: String(offset), length: String(length), filename: warc.name };
    out.push(`${line.slice(0, brace)} ${JSON.stringify(fields)}`);
  }
  return sortedCdxj(out);
}
