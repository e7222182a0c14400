/**
 * The order of a CDXJ index (spec decision "The crawl archive": "sorted
 * bytewise by whole line (`LC_ALL=C sort`)"): lines with the same key and
 * timestamp in byte order too, not in the order their records were
 * written, so that every reader's binary search finds them; the same for
 * the index in a WACZ, whose new offsets and names can change that order.
 * The reference is coreutils' sort itself, with LC_ALL=C.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CdxjEntry } from '../../src/archive/cdxj-line.js';
import { writeCdxjEntries } from '../../src/archive/cdxj.js';
import { packageIndex } from '../../src/archive/wacz-index.js';
import { crawlerMain } from '../../src/cli/crawler.js';
import { recordingIo } from '../helpers/fakes.js';
import { page, startSite } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { readZip } from './wacz-read.js';

const { temp } = useTempDirs('cdxj-sort-');

/** `bytes` as `LC_ALL=C sort` orders their lines. */
function cSort(bytes: Buffer): Buffer {
  return execFileSync('sort', [], { input: bytes, env: { ...process.env, LC_ALL: 'C' } });
}

/** Pairs of neighbouring lines with the same key and timestamp. */
function ties(text: string): number {
  const keys = text.trim().split('\n').map((l) => l.slice(0, l.indexOf(' {')));
  return keys.filter((k, i) => i > 0 && k === keys[i - 1]).length;
}

function entry(url: string, offset: number, extra: Partial<CdxjEntry['json']> = {}): CdxjEntry {
  return { key: 'example,h)/a 20260101000000', json: { url, mime: 'text/html', status: '200', length: '500', offset: String(offset), filename: 'crawl.warc', ...extra } };
}

test('lines with the same key and timestamp are in byte order, whatever order their records were written in, as LC_ALL=C sort puts them', () => {
  const out = join(temp(), 'ties.cdxj');
  // In the order written: by offset. Bytewise "1010" comes before "990", "http://h/A" before "http://h/a".
  const entries = [
    entry('http://h/a', 990),
    entry('http://h/a', 1010),
    entry('http://h/A', 2000),
    entry('http://h/a', 3000, { mime: 'warc/revisit' }),
    // Beyond U+D800, UTF-16 and UTF-8 order differ: U+FF01 is EF BC 81 in UTF-8, before the F0 of U+1F600.
    entry('http://h/a?\u{1F600}', 4000),
    entry('http://h/a?\uFF01', 5000),
    entry('http://h/a?\u00e9', 6000),
    { key: 'example,h)/ 20260101000000', json: { url: 'http://h/', length: '1', offset: '7000', filename: 'crawl.warc' } },
  ];
  assert.equal(writeCdxjEntries(entries, out), entries.length);
  const written = readFileSync(out);
  assert.deepEqual(written.toString('utf8').split('\n'), cSort(written).toString('utf8').split('\n'));
  assert.ok(written.equals(cSort(written)), 'byte for byte');
  assert.ok(written.toString().indexOf('"offset":"1010"') < written.toString().indexOf('"offset":"990"'));
});

test('the index in a WACZ is sorted again: a record\'s new offset can change the order of two lines with the same key and timestamp', async () => {
  const dir = temp();
  const cdxj = join(dir, 'crawl.cdxj');
  writeCdxjEntries([entry('http://h/a', 990, { length: '20' }), entry('http://h/a', 1010, { length: '20' })], cdxj);
  assert.match(readFileSync(cdxj, 'utf8'), /"offset":"1010"[^\n]*\n[^\n]*"offset":"990"/, 'bytewise, 1010 first');
  // gzipped on the way in, the record at 990 moves to 450 and the one at 1010 to 520: now "450" comes first.
  const moved = new Map([
    [990, { offset: 450, length: 20 }],
    [1010, { offset: 520, length: 20 }],
  ]);
  const packaged = await packageIndex(cdxj, [{ indexedAs: 'crawl.warc', name: 'crawl.warc.gz', bytes: 2000, moved }]);
  assert.ok(packaged.equals(cSort(packaged)), packaged.toString());
  assert.match(packaged.toString(), /"offset":"450"[^\n]*\n[^\n]*"offset":"520"/);
});

test('a real crawl\'s index, and the index in its WACZ, are as LC_ALL=C sort orders them, pages of one key fetched in one second included', async (t) => {
  // Each pair has one SURT key (lower-cased, query sorted), and the first fetched sorts last by bytes.
  const pairs = ['/b', '/B', '/c?y=2&x=1', '/c?x=1&y=2', '/d?b', '/D?b'];
  const routes: Record<string, { body: string }> = { '/': { body: page('Home', pairs) } };
  for (const p of pairs) routes[p] = { body: page(`Page ${p}`) };
  const site = await startSite(routes);
  t.after(() => site.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const warc = join(dir, 'crawl.warc');
  const wacz = join(dir, 'crawl.wacz');
  const { io } = recordingIo();
  assert.equal(await crawlerMain(['-q', '--delay', '0', '--warc', warc, '--wacz', wacz, `${site.origin}/`, pages, '1'], io), 0);
  assert.deepEqual(site.paths().slice(2), pairs, 'fetched in link order');
  const index = readFileSync(join(dir, 'crawl.cdxj'));
  assert.ok(ties(index.toString()) >= 1, `lines with one key and timestamp:\n${index.toString()}`);
  assert.ok(index.equals(cSort(index)), index.toString());
  const packaged = (await readZip(wacz)).get('indexes/index.cdxj')?.data ?? Buffer.alloc(0);
  assert.equal(packaged.toString().split('\n').length, index.toString().split('\n').length);
  assert.ok(packaged.equals(cSort(packaged)), packaged.toString());
});

test('writing an index of no captures gives an empty file', () => {
  const out = join(temp(), 'none.cdxj');
  assert.equal(writeCdxjEntries([], out), 0);
  assert.equal(readFileSync(out).length, 0);
});
