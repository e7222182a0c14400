/**
 * The CDXJ index (src/archive/cdxj.ts) of warcio-written fixtures, plain and
 * gzip: one line per response and revisit record, the same lines warcio's
 * own CDXJ indexer makes, sorted bytewise by SURT key and timestamp, and
 * every offset and length cutting exactly one record out of the file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, readFileSync, writeFileSync, copyFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { CDXIndexer, WARCParser } from 'warcio';
import { writeCdxj } from '../../src/archive/cdxj.js';
import { isCrawlerError } from '../../src/errors.js';
import { FIXTURE_PATHS, useWarcFixtures } from '../helpers/warc-fixtures.js';

const setup = useWarcFixtures('cdxj-');

interface Line {
  key: string;
  ts: string;
  json: Record<string, string>;
  text: string;
}

function parseLines(text: string): Line[] {
  assert.ok(text.endsWith('\n'));
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const m = /^(\S+) (\d{14}) (\{.*\})$/.exec(line);
      assert.ok(m !== null, line);
      return { key: m[1] ?? '', ts: m[2] ?? '', json: JSON.parse(m[3] ?? '') as Record<string, string>, text: line };
    });
}

/** warcio's CDXJ entries for `path`, as lines of our form (its digest has no `sha1:`; its plain length stops before CRLF CRLF). */
async function warcioLines(path: string, plain: boolean): Promise<string[]> {
  const indexer = new CDXIndexer({ format: 'cdxj' });
  const out: string[] = [];
  for await (const e of indexer.iterIndex([{ filename: basename(path), reader: createReadStream(path) }])) {
    const json: Record<string, string> = {
      url: String(e['url']),
      ...(e['mime'] === undefined ? {} : { mime: String(e['mime']) }),
      ...(e['status'] === undefined ? {} : { status: String(e['status']) }),
      ...(e['digest'] === undefined ? {} : { digest: `sha1:${String(e['digest'])}` }),
      length: String(Number(e['length']) + (plain ? 4 : 0)),
      offset: String(e['offset']),
      filename: String(e['filename']),
    };
    out.push(`${String(e['urlkey'])} ${String(e['timestamp'])} ${JSON.stringify(json)}`);
  }
  return out.sort();
}

describe('CDXJ index', () => {
  for (const form of ['plain', 'gz'] as const) {
    test(`${form}: one line per response and revisit, as warcio indexes them, sorted, each pointing at its record`, async () => {
      const warc = setup.fx[form];
      const out = join(setup.dir, `${form}.cdxj`);
      const count = await writeCdxj([warc], out);
      const text = readFileSync(out, 'utf8');
      const lines = parseLines(text);
      assert.equal(count, FIXTURE_PATHS.length);
      assert.equal(lines.length, count);

      // the same lines as warcio's indexer
      assert.deepEqual(lines.map((l) => l.text).sort(), await warcioLines(warc, form === 'plain'));

      // sorted bytewise by key, then timestamp
      const keys = lines.map((l) => Buffer.from(`${l.key} ${l.ts}`));
      for (let i = 1; i < keys.length; i++) assert.ok(Buffer.compare(keys[i - 1] ?? Buffer.alloc(0), keys[i] ?? Buffer.alloc(0)) <= 0);

      // the figures of the records the fixtures serialized: the revisit is record 8 (warcinfo, then 3 a capture)
      const records = form === 'plain' ? setup.fx.plainRecords : setup.fx.gzRecords;
      const revisitAt = records.slice(0, 8).reduce((n, r) => n + r.length, 0);
      const revisit = lines.find((l) => l.json['url'] === `${setup.site.origin}/dup.html`);
      assert.deepEqual(revisit?.json, {
        url: `${setup.site.origin}/dup.html`,
        mime: 'warc/revisit',
        status: '200',
        digest: lines.find((l) => l.json['url'] === `${setup.site.origin}/about.html`)?.json['digest'],
        length: String(records[8]?.length),
        offset: String(revisitAt),
        filename: basename(warc),
      });
      assert.equal(revisit?.key, `1,0,0,127:${setup.site.port})/dup.html`);
      assert.equal(revisit?.ts, '20261201100002');
      const byUrl = new Map(lines.map((l) => [l.json['url'], l.json]));
      assert.equal(byUrl.get(`${setup.site.origin}/old`)?.['status'], '301');
      assert.equal(byUrl.get(`${setup.site.origin}/missing.html`)?.['status'], '404');
      assert.equal(byUrl.get(`${setup.site.origin}/style.css`)?.['mime'], 'text/css');
      assert.equal(byUrl.get(`${setup.site.origin}/chunked.html`)?.['mime'], 'text/html');
      assert.ok(lines.some((l) => l.key === `1,0,0,127:${setup.site.port})/q?a=1&b=2`));

      // each offset and length cut exactly one record, of that URL and type, out of the file
      const file = readFileSync(warc);
      for (const l of lines) {
        const slice = file.subarray(Number(l.json['offset']), Number(l.json['offset']) + Number(l.json['length']));
        const parsed = [];
        for await (const r of new WARCParser([slice])) {
          await r.readFully();
          parsed.push(r);
        }
        assert.equal(parsed.length, 1, l.text);
        assert.equal(parsed[0]?.warcTargetURI, l.json['url']);
        assert.equal(parsed[0]?.warcType, l.json['mime'] === 'warc/revisit' ? 'revisit' : 'response');
      }
    });
  }

  test('two WARC files: lines of both, each naming its own file, merged in key order', async () => {
    const sub = join(setup.dir, 'two');
    mkdirSync(sub);
    const second = join(sub, 'second.warc');
    copyFileSync(setup.fx.plain, second);
    const out = join(setup.dir, 'two.cdxj');
    assert.equal(await writeCdxj([setup.fx.gz, second], out), 2 * FIXTURE_PATHS.length);
    const lines = parseLines(readFileSync(out, 'utf8'));
    // same key and time in both: the first file's line comes first
    for (let i = 0; i < lines.length; i += 2) {
      assert.equal(lines[i]?.key, lines[i + 1]?.key);
      assert.deepEqual([lines[i]?.json['filename'], lines[i + 1]?.json['filename']], ['fixture.warc.gz', 'second.warc']);
    }
  });

  test('an existing file is not ours to replace unless the caller says so', async () => {
    const out = join(setup.dir, 'theirs.cdxj');
    writeFileSync(out, 'someone else\n');
    await assert.rejects(writeCdxj([setup.fx.gz], out), (err: unknown) => isCrawlerError(err, 'ERR_WRITE') && /theirs\.cdxj exists/.test(err.message));
    assert.equal(readFileSync(out, 'utf8'), 'someone else\n');
    assert.equal(await writeCdxj([setup.fx.gz], out, { replace: true }), FIXTURE_PATHS.length);
    assert.match(readFileSync(out, 'utf8'), /^1,0,0,127:/);
  });

  test('two inputs with one base name are refused: the index could not tell them apart', async () => {
    const sub = join(setup.dir, 'same');
    mkdirSync(sub);
    copyFileSync(setup.fx.gz, join(sub, 'fixture.warc.gz'));
    await assert.rejects(writeCdxj([setup.fx.gz, join(sub, 'fixture.warc.gz')], join(setup.dir, 'same.cdxj')), /two WARC files named fixture\.warc\.gz/);
  });
});
