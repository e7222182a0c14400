/**
 * Our WARC reader (src/archive/warc-reader.ts) against warcio's reading of
 * the same files, plain and one gzip member per record: the same records in
 * the same order at the same offsets and lengths, and those offsets are the
 * ones the serialized records add up to. Files that break the rules are
 * refused with one line naming the offset.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { readWarcRecords, type WarcRecordInfo } from '../../src/archive/warc-reader.js';
import { warcField } from '../../src/archive/warc-reader-head.js';
import { isCrawlerError } from '../../src/errors.js';
import { FIXTURE_PATHS, fixtureRecords, serializeRecords, useWarcFixtures, type Capture } from '../helpers/warc-fixtures.js';

const setup = useWarcFixtures('cdxj-reader-');

async function ours(path: string): Promise<WarcRecordInfo[]> {
  const out: WarcRecordInfo[] = [];
  for await (const r of readWarcRecords(path)) out.push(r);
  return out;
}

async function warcios(path: string): Promise<{ type: string; uri: string | undefined; offset: number; length: number }[]> {
  const parser = new WARCParser(createReadStream(path));
  const out = [];
  for await (const r of parser) {
    await r.readFully();
    out.push({ type: r.warcType, uri: r.warcTargetURI ?? undefined, offset: parser.offset, length: parser.recordLength });
  }
  return out;
}

function offsetsOf(records: readonly Buffer[]): { offset: number; length: number }[] {
  let at = 0;
  return records.map((r) => {
    const o = { offset: at, length: r.length };
    at += r.length;
    return o;
  });
}

async function refusal(path: string): Promise<string> {
  try {
    await ours(path);
  } catch (err) {
    assert.ok(isCrawlerError(err, 'ERR_WRITE'), String(err));
    assert.doesNotMatch(err.message, /\n/);
    return err.message;
  }
  assert.fail(`${path} was read without complaint`);
}

describe('WARC reader', () => {
  for (const form of ['plain', 'gz'] as const) {
    test(`${form}: the same records, offsets and lengths as warcio and as the serialized records`, async () => {
      const path = setup.fx[form];
      const mine = await ours(path);
      const theirs = await warcios(path);
      // warcinfo, then request + response/revisit + metadata per capture
      assert.equal(mine.length, 1 + 3 * FIXTURE_PATHS.length);
      // warcio's length of a plain record stops before the CRLF CRLF that ends it; ours is the
      // whole record (WARC 1.1 §4: header CRLF block CRLF CRLF), so that the next one starts there.
      const tail = form === 'plain' ? 4 : 0;
      assert.deepEqual(
        mine.map((r) => ({ type: r.type, uri: warcField(r, 'WARC-Target-URI'), offset: r.offset, length: r.length - tail })),
        theirs,
      );
      assert.deepEqual(
        mine.map((r) => ({ offset: r.offset, length: r.length })),
        offsetsOf(form === 'plain' ? setup.fx.plainRecords : setup.fx.gzRecords),
      );
      assert.deepEqual(
        mine.filter((r) => r.type === 'revisit').map((r) => warcField(r, 'WARC-Target-URI')),
        [`${setup.site.origin}/dup.html`],
      );
      const response = mine.find((r) => r.type === 'response' && warcField(r, 'WARC-Target-URI') === `${setup.site.origin}/about.html`);
      assert.match(response?.blockStart.toString('latin1') ?? '', /^HTTP\/1\.1 200 OK\r\n[^]*<title>About us<\/title>/);
    });
  }

  test('a plain file cut short after its last block is refused at that record', async () => {
    const path = join(setup.dir, 'cut.warc');
    const whole = Buffer.concat(setup.fx.plainRecords);
    writeFileSync(path, whole.subarray(0, whole.length - 3));
    const last = offsetsOf(setup.fx.plainRecords).at(-1)?.offset;
    assert.match(await refusal(path), new RegExp(`cut\\.warc: .*cut short.* at offset ${last}$`));
  });

  test('a gzip file cut short in its last member is refused at that member', async () => {
    const path = join(setup.dir, 'cut.warc.gz');
    const whole = Buffer.concat(setup.fx.gzRecords);
    writeFileSync(path, whole.subarray(0, whole.length - 3));
    const last = offsetsOf(setup.fx.gzRecords).at(-1)?.offset;
    assert.match(await refusal(path), new RegExp(`cut short at offset ${last}$`));
  });

  test('a gzip member that holds two records is refused (a reader could not seek to the second)', async () => {
    const path = join(setup.dir, 'two.warc.gz');
    writeFileSync(path, Buffer.concat([setup.fx.gzRecords[0] ?? Buffer.alloc(0), gzipSync(Buffer.concat(setup.fx.plainRecords.slice(1, 3)))]));
    assert.match(await refusal(path), new RegExp(`more than one record.* at offset ${setup.fx.gzRecords[0]?.length}$`));
  });

  test('a gzip member whose CRC-32 is wrong is refused', async () => {
    const path = join(setup.dir, 'crc.warc.gz');
    const member = Buffer.from(setup.fx.gzRecords[1] ?? Buffer.alloc(0));
    member[member.length - 8] = (member[member.length - 8] ?? 0) ^ 0xff;
    writeFileSync(path, Buffer.concat([setup.fx.gzRecords[0] ?? Buffer.alloc(0), member]));
    assert.match(await refusal(path), /CRC-32/);
  });

  test('a file of something else is refused at offset 0', async () => {
    const path = join(setup.dir, 'html.warc');
    writeFileSync(path, '<html>\r\n\r\n</html>');
    assert.match(await refusal(path), /no WARC\/1\.0 or WARC\/1\.1 version line.* at offset 0$/);
  });

  test('records larger than the first read and the read-ahead (1.5 MB of incompressible body) are read whole, plain and gzip', async () => {
    const big: Capture = {
      url: `${setup.site.origin}/big.bin`,
      date: '2026-12-01T09:00:00Z',
      status: 200,
      statusText: 'OK',
      headers: [['Content-Type', 'application/octet-stream'], ['Content-Length', '1500000']],
      body: randomBytes(1_500_000),
    };
    for (const gzip of [false, true]) {
      const records = await serializeRecords(fixtureRecords([big, setup.fx.captures[0] as Capture]), gzip);
      const path = join(setup.dir, gzip ? 'big.warc.gz' : 'big.warc');
      writeFileSync(path, Buffer.concat(records));
      const mine = await ours(path);
      assert.deepEqual(mine.map((r) => ({ offset: r.offset, length: r.length })), offsetsOf(records));
      assert.ok((records[2]?.length ?? 0) > 1_500_000);
      assert.equal(mine[2]?.type, 'response');
      assert.equal(mine[2]?.blockStart.length, 64 * 1024);
    }
  });

  test('gzip members with optional header fields (FEXTRA, FNAME, FCOMMENT, FHCRC, RFC 1952 §2.3) are read at their true lengths', async () => {
    // Our writer puts the record's length in FEXTRA; other tools write a name or a comment.
    const member = (record: Buffer, i: number): Buffer => {
      const extra = Buffer.from(`LN${String.fromCharCode(8, 0)}${'x'.repeat(8)}`, 'latin1');
      const head = Buffer.concat([
        Buffer.from([0x1f, 0x8b, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, 255]),
        Buffer.from([extra.length, 0]),
        extra,
        Buffer.from(`record-${i}.warc\0a comment\0`, 'latin1'),
      ]);
      const hcrc = Buffer.alloc(2);
      hcrc.writeUInt16LE(crc32(head) & 0xffff);
      const trailer = Buffer.alloc(8);
      trailer.writeUInt32LE(crc32(record), 0);
      trailer.writeUInt32LE(record.length, 4);
      return Buffer.concat([head, hcrc, deflateRawSync(record), trailer]);
    };
    const members = setup.fx.plainRecords.slice(0, 5).map(member);
    const path = join(setup.dir, 'fields.warc.gz');
    writeFileSync(path, Buffer.concat(members));
    const mine = await ours(path);
    assert.deepEqual(mine.map((r) => ({ offset: r.offset, length: r.length })), offsetsOf(members));
    assert.deepEqual(mine.map((r) => r.type), ['warcinfo', 'request', 'response', 'metadata', 'request']);
  });

  test('an empty file has no records', async () => {
    const path = join(setup.dir, 'empty.warc');
    writeFileSync(path, '');
    assert.deepEqual(await ours(path), []);
  });
});
