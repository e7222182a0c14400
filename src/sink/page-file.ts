/**
 * Reading a page file back (the TSE page directory's format, tse-pagedir.ts:
 * the URL, a newline, the depth, a newline, then the body exactly as it was
 * served): a refresh (crawler --since) takes an unchanged page's body from
 * the earlier crawl's copy.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CrawlerError, describeError } from '../errors.js';

/** A page file's parts. */
export interface PageFile {
  url: string;
  depth: number;
  body: Buffer;
}

/** The parts of a page file's bytes, or undefined when they are not one (no URL line, or no depth line of digits). */
export function parsePageFile(bytes: Buffer): PageFile | undefined {
  const first = bytes.indexOf(0x0a);
  const second = first === -1 ? -1 : bytes.indexOf(0x0a, first + 1);
  if (first <= 0 || second === -1) return undefined;
  const depth = bytes.toString('latin1', first + 1, second);
  if (!/^[0-9]+$/.test(depth)) return undefined;
  return { url: bytes.toString('utf8', 0, first), depth: Number(depth), body: bytes.subarray(second + 1) };
}

/** The page `dir/id` when it is the copy of `url`; otherwise a CrawlerError (ERR_EARLIER_CRAWL) that says why. */
function pageOf(bytes: Buffer, path: string, url: string): PageFile {
  const page = parsePageFile(bytes);
  if (page === undefined) throw new CrawlerError('ERR_EARLIER_CRAWL', `the earlier copy ${path} is not a page file`, { url });
  if (page.url !== url) throw new CrawlerError('ERR_EARLIER_CRAWL', `the earlier copy ${path} is of another page (${page.url})`, { url });
  return page;
}

function unreadable(path: string, url: string, err: unknown): CrawlerError {
  return new CrawlerError('ERR_EARLIER_CRAWL', `the earlier copy ${path} cannot be read: ${describeError(err)}`, { url, cause: err });
}

/** Reads page file `id` of `dir`, which must be the copy of `url`. Rejects with ERR_EARLIER_CRAWL. */
export async function readPageCopy(dir: string, id: number, url: string): Promise<PageFile> {
  const path = join(dir, String(id));
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw unreadable(path, url, err);
  }
  return pageOf(bytes, path, url);
}

/** readPageCopy, synchronously (the crawl archive's digest of an earlier copy, on the crawl's thread). */
export function readPageCopySync(dir: string, id: number, url: string): PageFile {
  const path = join(dir, String(id));
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw unreadable(path, url, err);
  }
  return pageOf(bytes, path, url);
}
