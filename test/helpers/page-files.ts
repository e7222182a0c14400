/**
 * The one reader of crawler page files (TSE format): a pageDirectory holds
 * files named 1, 2, 3... each `URL\nDEPTH\nBODY`. Every test that looks at
 * saved pages reads them here, and each read checks the two header lines.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Names of numbered page files (digits only) in `dir`, in numeric order. */
export function numberedFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => /^[0-9]+$/.test(n))
    .sort((a, b) => Number(a) - Number(b));
}

export interface SavedPage {
  id: number;
  url: string;
  depth: number;
  /** The body bytes after the two header lines. */
  body: Buffer;
  /** The whole file. */
  raw: Buffer;
}

/** Reads every page file of `dir` (a name 1, 2, 3...; format `URL\nDEPTH\nBODY`), in ID order. */
export function readPages(dir: string): SavedPage[] {
  return numberedFiles(dir)
    .filter((name) => /^[1-9][0-9]*$/.test(name))
    .map((name) => {
      const raw = readFileSync(join(dir, name));
      const nl1 = raw.indexOf(0x0a);
      const nl2 = raw.indexOf(0x0a, nl1 + 1);
      assert.ok(nl1 > 0 && nl2 > nl1, `page file ${name} has a URL line and a depth line`);
      const depthText = raw.subarray(nl1 + 1, nl2).toString('latin1');
      assert.match(depthText, /^[0-9]+$/, `page file ${name}: line 2 is a depth`);
      return { id: Number(name), url: raw.subarray(0, nl1).toString('utf8'), depth: Number(depthText), body: raw.subarray(nl2 + 1), raw };
    });
}

/** `ID URL DEPTH` per saved page, for compact deep-equal comparisons. */
export function pageList(dir: string): string[] {
  return readPages(dir).map((p) => `${p.id} ${p.url} ${p.depth}`);
}

/** The IDs are exactly 1..N. */
export function assertDenseIds(dir: string): void {
  const ids = numberedFiles(dir).map(Number);
  assert.deepEqual(ids, ids.map((_, i) => i + 1), 'document IDs are 1..N without gaps');
}
