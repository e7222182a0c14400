/**
 * The WACZ package (src/archive/wacz.ts), read back with yauzl: the files the
 * WACZ 1.1.1 spec asks for, the WARC STORED so that each index line is a
 * byte range of the .wacz itself holding one gzip member of that URL's
 * record, and every sha256 and size in datapackage.json (and the digest of
 * datapackage.json) equal to what is in the ZIP.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { writeCdxj } from '../../src/archive/cdxj.js';
import { writeWacz, type WaczPage } from '../../src/archive/wacz.js';
import { isCrawlerError } from '../../src/errors.js';
import { FIXTURE_PATHS, useWarcFixtures } from '../helpers/warc-fixtures.js';
import { readZip, type ZipEntry } from './wacz-read.js';

const setup = useWarcFixtures('wacz-');

const sha256 = (b: Buffer): string => `sha256:${createHash('sha256').update(b).digest('hex')}`;

function pagesOf(origin: string): WaczPage[] {
  return [
    { url: `${origin}/`, ts: '2026-12-01T10:00:00.250Z', title: 'Home page' },
    { url: `${origin}/about.html`, ts: '2026-12-01T10:00:01.250Z', title: 'About us' },
    { url: `${origin}/q?b=2&a=1`, ts: '2026-12-01T10:00:03.250Z' },
  ];
}

/** The records each index line of `zip` points at, read from the .wacz bytes as a range reader would. */
async function recordsByIndex(wacz: Buffer, zip: Map<string, ZipEntry>): Promise<{ line: Record<string, string>; uri: string | null | undefined; record: Buffer }[]> {
  const out = [];
  for (const text of (zip.get('indexes/index.cdxj')?.data.toString('utf8') ?? '').trim().split('\n')) {
    const line = JSON.parse(text.slice(text.indexOf(' {') + 1)) as Record<string, string>;
    const entry = zip.get(`archive/${line['filename']}`);
    assert.ok(entry !== undefined, text);
    const start = entry.dataStart + Number(line['offset']);
    const record = gunzipSync(wacz.subarray(start, start + Number(line['length'])));
    const parsed = [];
    for await (const r of new WARCParser([record])) {
      await r.readFully();
      parsed.push(r.warcTargetURI);
    }
    assert.equal(parsed.length, 1, text);
    out.push({ line, uri: parsed[0], record });
  }
  return out;
}

describe('WACZ package', () => {
  test('from a .warc.gz: the spec files, the WARC stored as it is, every hash and size right', async () => {
    const { fx, site, dir } = setup;
    const cdxj = join(dir, 'gz.cdxj');
    await writeCdxj([fx.gz], cdxj);
    const out = join(dir, 'gz.wacz');
    const pages = pagesOf(site.origin);
    await writeWacz({ out, warcPaths: [fx.gz], cdxjPath: cdxj, pages, title: 'Fixture crawl', software: 'polite-crawler 0.1.0' });

    const zip = await readZip(out);
    assert.deepEqual(
      [...zip.keys()].sort(),
      ['archive/fixture.warc.gz', 'datapackage-digest.json', 'datapackage.json', 'indexes/index.cdxj', 'pages/pages.jsonl'],
    );
    const archive = zip.get('archive/fixture.warc.gz');
    assert.equal(archive?.method, 0, 'archive/ is STORED');
    assert.ok(archive?.data.equals(readFileSync(fx.gz)));
    assert.equal(zip.get('indexes/index.cdxj')?.data.toString(), readFileSync(cdxj, 'utf8'));
    assert.deepEqual(zip.get('pages/pages.jsonl')?.data.toString().trim().split('\n').map((l) => JSON.parse(l) as unknown), [
      { format: 'json-pages-1.0', id: 'pages', title: 'All Pages' },
      ...pages.map((p) => ({ id: createHash('sha256').update(`${p.ts} ${p.url}`).digest('hex').slice(0, 16), ...p })),
    ]);

    const dp = JSON.parse(zip.get('datapackage.json')?.data.toString() ?? '') as Record<string, unknown>;
    assert.equal(dp['profile'], 'data-package');
    assert.equal(dp['wacz_version'], '1.1.1');
    assert.equal(dp['title'], 'Fixture crawl');
    assert.equal(dp['software'], 'polite-crawler 0.1.0');
    assert.equal(dp['mainPageUrl'], `${site.origin}/`);
    assert.equal(dp['mainPageDate'], '2026-12-01T10:00:00.250Z');
    assert.ok(Math.abs(Date.parse(String(dp['created'])) - Date.now()) < 60_000);
    const resources = dp['resources'] as { name: string; path: string; hash: string; bytes: number }[];
    assert.deepEqual(resources.map((r) => r.path).sort(), ['archive/fixture.warc.gz', 'indexes/index.cdxj', 'pages/pages.jsonl']);
    for (const r of resources) {
      const data = zip.get(r.path)?.data ?? Buffer.alloc(0);
      assert.equal(r.name, r.path.split('/').at(-1));
      assert.equal(r.hash, sha256(data), r.path);
      assert.equal(r.bytes, data.length, r.path);
    }
    const digest = JSON.parse(zip.get('datapackage-digest.json')?.data.toString() ?? '') as Record<string, unknown>;
    assert.deepEqual(digest, { path: 'datapackage.json', hash: sha256(zip.get('datapackage.json')?.data ?? Buffer.alloc(0)) });

    const records = await recordsByIndex(readFileSync(out), zip);
    assert.equal(records.length, FIXTURE_PATHS.length);
    for (const r of records) assert.equal(r.uri, r.line['url']);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
  });

  test('from a plain .warc: gzipped per record on the way in, the index pointed at the members', async () => {
    const { fx, site, dir } = setup;
    const cdxj = join(dir, 'plain.cdxj');
    await writeCdxj([fx.plain], cdxj);
    const out = join(dir, 'plain.wacz');
    await writeWacz({ out, warcPaths: [fx.plain], cdxjPath: cdxj, pages: pagesOf(site.origin), software: 'polite-crawler 0.1.0' });

    const zip = await readZip(out);
    const archive = zip.get('archive/fixture.warc.gz');
    assert.equal(archive?.method, 0, 'archive/ is STORED');
    // one member per record: the members inflate, together, to the plain file
    assert.ok(gunzipSync(archive?.data ?? Buffer.alloc(0)).equals(readFileSync(fx.plain)));
    const dp = JSON.parse(zip.get('datapackage.json')?.data.toString() ?? '') as Record<string, unknown>;
    assert.equal(dp['title'], `${site.origin}/`, 'the title defaults to the main page');

    // each line: the same record bytes as at its offset in the plain file, same key and order
    const plainLines = readFileSync(cdxj, 'utf8').trim().split('\n');
    const plain = readFileSync(fx.plain);
    const records = await recordsByIndex(readFileSync(out), zip);
    assert.equal(records.length, plainLines.length);
    for (const [i, r] of records.entries()) {
      const was = JSON.parse(plainLines[i]?.slice(plainLines[i]?.indexOf(' {') + 1) ?? '') as Record<string, string>;
      assert.equal(r.line['url'], was['url']);
      assert.equal(r.line['filename'], 'fixture.warc.gz');
      assert.ok(r.record.equals(plain.subarray(Number(was['offset']), Number(was['offset']) + Number(was['length']))), was['url']);
    }
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
  });

  test('a file already at the target is not ours: untouched, unless the caller says it is', async () => {
    const { fx, site, dir } = setup;
    const cdxj = join(dir, 'mine.cdxj');
    await writeCdxj([fx.gz], cdxj);
    const out = join(dir, 'theirs.wacz');
    writeFileSync(out, 'not a zip of ours');
    const o = { out, warcPaths: [fx.gz], cdxjPath: cdxj, pages: pagesOf(site.origin), software: 'x' };
    await assert.rejects(writeWacz(o), (err: unknown) => isCrawlerError(err, 'ERR_WRITE') && /theirs\.wacz exists and was not written by this crawl/.test(err.message));
    assert.equal(readFileSync(out, 'utf8'), 'not a zip of ours');
    await writeWacz({ ...o, replace: true });
    assert.ok((await readZip(out)).has('datapackage.json'));
  });

  test('an index of other files is refused, and nothing is left behind', async () => {
    const { fx, site, dir } = setup;
    const sub = join(dir, 'other');
    mkdirSync(sub);
    const cdxj = join(sub, 'other.cdxj');
    await writeCdxj([fx.gz], cdxj);
    const out = join(sub, 'other.wacz');
    await assert.rejects(
      writeWacz({ out, warcPaths: [fx.plain], cdxjPath: cdxj, pages: pagesOf(site.origin), software: 'x' }),
      (err: unknown) => isCrawlerError(err, 'ERR_WRITE') && /line 1 names "fixture\.warc\.gz", which is not one of the WARC files packaged/.test(err.message),
    );
    assert.deepEqual(readdirSync(sub), ['other.cdxj']);
  });
});
