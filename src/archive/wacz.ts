/**
 * The crawl as one WACZ file (WACZ 1.1.1), which ReplayWeb.page opens:
 *
 * - `archive/NAME.warc.gz`: each WARC, one gzip member per record, STORED
 *   (not deflated again) so that a record is a byte range of the ZIP; a plain
 *   WARC is gzipped record by record on the way in (wacz-gzip.ts);
 * - `indexes/index.cdxj`: the crawl's CDXJ, pointed at those files (wacz-index.ts);
 * - `pages/pages.jsonl`: the header line, then one line per page (id, url, ts, title);
 * - `datapackage.json`: profile `data-package`, `wacz_version` 1.1.1, title,
 *   created, software, mainPageUrl and mainPageDate (the first page), and a
 *   resource (name, path, `sha256:` hash, bytes) for each file above;
 * - `datapackage-digest.json`: the path and sha256 of datapackage.json.
 *
 * The ZIP is made by yazl (ZIP64 when needed), written to a temporary name
 * in the target's directory and then renamed. Without `replace`, a file
 * already at `out` is someone else's: it is never touched, and ERR_WRITE says so.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, linkSync } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yazl from 'yazl';
import { CrawlerError, describeError, isCrawlerError, writeError } from '../errors.js';
import { discardStagedSync, publishStagedSync, stageFileSync } from '../sink/atomic-file.js';
import { gzipPerRecord } from './wacz-gzip.js';
import { packageIndex, type PackagedWarc } from './wacz-index.js';

/** A page of the crawl, for `pages/pages.jsonl`. */
export interface WaczPage {
  url: string;
  /** When it was fetched, ISO 8601 (the WARC-Date of its response). */
  ts: string;
  title?: string;
}

export interface WriteWaczOptions {
  /** The `.wacz` file to write. */
  out: string;
  /** The crawl's WARC files: plain, or one gzip member per record. */
  warcPaths: readonly string[];
  /** Their CDXJ index (writeCdxj), each line's `filename` a base name of `warcPaths`. */
  cdxjPath: string;
  /** The pages, main page first. */
  pages: readonly WaczPage[];
  /** The collection's title (default: the main page's URL). */
  title?: string;
  /** The software that made it, e.g. `polite-crawler 0.1.0`. */
  software: string;
  /** The caller wrote `out` before (an earlier run of this crawl): it is replaced. */
  replace?: boolean;
}

/** A file that goes into the ZIP, with what datapackage.json says of it. */
interface Entry {
  path: string;
  bytes: number;
  hash: string;
  /** Its content, or the file it is read from. */
  data: Buffer | { file: string };
}

/** Writes the WACZ described by `o` (see the module comment). Throws ERR_WRITE with one line. */
export async function writeWacz(o: WriteWaczOptions): Promise<void> {
  const dir = dirname(o.out);
  const name = basename(o.out);
  if (o.replace !== true && (await exists(o.out))) throw notOurs(o.out);
  const temps: string[] = [];
  try {
    const created = new Date();
    const warcs: PackagedArchive[] = [];
    for (const source of o.warcPaths) {
      const packaged = await packageWarc(source, dir, temps);
      if (warcs.some((w) => w.name === packaged.name || w.indexedAs === packaged.indexedAs)) {
        throw new CrawlerError('ERR_WRITE', `cannot package two WARC files named ${packaged.name}`);
      }
      warcs.push(packaged);
    }
    const entries: Entry[] = [];
    for (const w of warcs) entries.push({ path: `archive/${w.name}`, bytes: w.bytes, hash: w.hash, data: { file: w.file } });
    entries.push(bufferEntry('indexes/index.cdxj', await packageIndex(o.cdxjPath, warcs)));
    entries.push(bufferEntry('pages/pages.jsonl', pagesJsonl(o.pages)));
    const datapackage = bufferEntry('datapackage.json', datapackageJson(o, created, entries));
    const digest = bufferEntry('datapackage-digest.json', json({ path: 'datapackage.json', hash: datapackage.hash }));
    entries.push(datapackage, digest);

    const staged = stageFileSync(dir, name, []);
    temps.push(staged);
    await zipTo(staged, entries, created);
    if (o.replace === true) publishStagedSync(staged, dir, name);
    else publishNew(staged, o.out);
  } catch (err) {
    if (isCrawlerError(err)) throw err;
    throw writeError('ERR_WRITE', o.out, err);
  } finally {
    for (const t of temps) discardStagedSync(t);
  }
}

function notOurs(path: string): CrawlerError {
  return new CrawlerError('ERR_WRITE', `${path} exists and was not written by this crawl; not replacing it`);
}

/** True when anything is at `path`, a dangling symlink too. */
async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** Links the finished file to `out` only if nothing is there (link(2) never replaces), then drops the temporary name. */
function publishNew(staged: string, out: string): void {
  try {
    linkSync(staged, out);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw notOurs(out);
    throw err;
  }
}

/** A WARC file on its way into `archive/`: the file to add, and its sha256. */
type PackagedArchive = PackagedWarc & { file: string; hash: string };

/** How `source` goes into `archive/`: as it is when it is gzip, else gzipped per record into a temporary file. */
async function packageWarc(source: string, dir: string, temps: string[]): Promise<PackagedArchive> {
  const indexedAs = basename(source);
  const stem = indexedAs.replace(/(\.warc)?(\.gz)?$/, '');
  const name = `${stem === '' ? indexedAs : stem}.warc.gz`;
  if (await isGzip(source)) {
    return { indexedAs, name: indexedAs.endsWith('.warc.gz') ? indexedAs : name, ...(await hashFile(source)), file: source };
  }
  const temp = stageFileSync(dir, name, []);
  temps.push(temp);
  const moved = await gzipPerRecord(source, temp);
  return { indexedAs, name, ...(await hashFile(temp)), moved, file: temp };
}

async function isGzip(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await fh.read(magic, 0, 2, 0);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

async function hashFile(path: string): Promise<{ bytes: number; hash: string }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    h.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, hash: `sha256:${h.digest('hex')}` };
}

function bufferEntry(path: string, data: Buffer): Entry {
  return { path, bytes: data.length, hash: `sha256:${createHash('sha256').update(data).digest('hex')}`, data };
}

function json(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
}

/** pages.jsonl (WACZ 1.1.1 "pages.jsonl"): the header line, then one page a line. */
export function pagesJsonl(pages: readonly WaczPage[]): Buffer {
  const lines = [JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' })];
  for (const p of pages) {
    const id = createHash('sha256').update(`${p.ts} ${p.url}`).digest('hex').slice(0, 16);
    lines.push(JSON.stringify({ id, url: p.url, ts: p.ts, ...(p.title === undefined ? {} : { title: p.title }) }));
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

function datapackageJson(o: WriteWaczOptions, created: Date, entries: readonly Entry[]): Buffer {
  const main = o.pages[0];
  return json({
    profile: 'data-package',
    wacz_version: '1.1.1',
    title: o.title ?? main?.url ?? basename(o.out),
    created: created.toISOString(),
    software: o.software,
    ...(main === undefined ? {} : { mainPageUrl: main.url, mainPageDate: main.ts }),
    resources: entries.map((e) => ({ name: basename(e.path), path: e.path, hash: e.hash, bytes: e.bytes })),
  });
}

/** Writes the ZIP of `entries` to `path`: `archive/` files STORED, the rest deflated. */
async function zipTo(path: string, entries: readonly Entry[], mtime: Date): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const e of entries) {
    if (Buffer.isBuffer(e.data)) zip.addBuffer(e.data, e.path, { mtime, compress: true });
    else zip.addFile(e.data.file, e.path, { mtime, compress: false });
  }
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path, { flags: 'r+' }));
}
