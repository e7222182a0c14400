/**
 * The archive's parts on their own: digests (RFC 4648 base32 vectors),
 * WARC-Date, the header section of a response past interim 1xx, gzip
 * members of ours, the series' names, sizes on the command line, and what
 * a finished archive says it holds (files and pages, for the index and the
 * package), and an archive whose disk is full.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { base32, sha1Digest } from '../../src/archive/digest.js';
import { headEnd } from '../../src/archive/exchange-records.js';
import { CrawlArchive } from '../../src/archive/crawl-archive.js';
import { inspectWarc } from '../../src/archive/warc-existing.js';
import { gzipMember, ourMemberLength } from '../../src/archive/warc-gzip.js';
import { seriesIndex, seriesName, workerName } from '../../src/sink/warc-names.js';
import { warcDate } from '../../src/archive/warc-record.js';
import { parseSize } from '../../src/cli/size.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, sha1b32 } from '../helpers/warc-check.js';

const { temp, tmpfs } = useTempDirs('warc-parts-');

test('RFC 4648 §10 base32 vectors, and sha1 digests as WARC writes them', () => {
  const vectors: Array<[string, string]> = [['', ''], ['f', 'MY======'], ['fo', 'MZXQ===='], ['foo', 'MZXW6==='], ['foob', 'MZXW6YQ='], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI======']];
  for (const [input, output] of vectors) assert.equal(base32(Buffer.from(input)), output);
  assert.equal(sha1Digest(Buffer.alloc(0)), 'sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
  assert.equal(sha1Digest(Buffer.from('ab'), Buffer.from('c')), sha1b32(Buffer.from('abc')));
});

test('WARC-Date: UTC with microseconds', () => {
  assert.equal(warcDate(Date.UTC(2026, 11, 3, 16, 5, 33, 123) + 0.4567), '2026-12-03T16:05:33.123456Z');
  assert.equal(warcDate(Date.UTC(2026, 0, 1)), '2026-01-01T00:00:00.000000Z');
});

test('a revisit keeps the final response\'s header section: past a 100 Continue, with CRLF or bare LF lines', () => {
  const crlf = Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nA: b\r\n\r\nbody');
  assert.equal(crlf.toString('latin1', 0, headEnd(crlf)), 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nA: b\r\n\r\n');
  const lf = Buffer.from('HTTP/1.1 200 OK\nA: b\n\nbody\r\n\r\n');
  assert.equal(lf.toString('latin1', 0, headEnd(lf)), 'HTTP/1.1 200 OK\nA: b\n\n');
});

test('a gzip member of ours is plain gzip, says its length in FEXTRA, and a foreign gzip file is not ours', async () => {
  const data = Buffer.from('WARC/1.1\r\n'.repeat(50));
  const member = await gzipMember(data);
  assert.deepEqual(gunzipSync(member), data);
  assert.equal(ourMemberLength(member), member.length);
  assert.deepEqual(gunzipSync(Buffer.concat([member, member])), Buffer.concat([data, data]), 'members concatenate into one stream');
  assert.equal(ourMemberLength(gzipSync(data)), undefined);
  const dir = temp();
  const foreign = join(dir, 'foreign.warc.gz');
  writeFileSync(foreign, gzipSync(data));
  assert.equal((await inspectWarc(foreign, true)).ours, false);
  const empty = join(dir, 'empty.warc');
  writeFileSync(empty, '');
  assert.deepEqual(await inspectWarc(empty, true), { ours: true, end: 0, size: 0 });
});

test('the series\' names: NAME-00002 before the extension, a worker\'s tag before that', () => {
  assert.equal(seriesName('/d/crawl.warc.gz', 1), '/d/crawl.warc.gz');
  assert.equal(seriesName('/d/crawl.warc.gz', 2), '/d/crawl-00002.warc.gz');
  assert.equal(seriesName('/d/crawl.warc', 12), '/d/crawl-00012.warc');
  assert.equal(seriesName('/d/archive', 3), '/d/archive-00003');
  assert.equal(workerName('/d/crawl.warc.gz', 'host.example-42'), '/d/crawl-whost_example-42.warc.gz');
  assert.equal(seriesIndex('/d/crawl.warc.gz', 'crawl-00002.warc.gz'), 2);
  assert.equal(seriesIndex('/d/crawl.warc.gz', 'crawl.warc.gz'), 1);
  assert.equal(seriesIndex('/d/crawl.warc.gz', 'crawl-00002.warc'), undefined);
  assert.equal(seriesIndex('/d/crawl.warc.gz', 'crawl-other.warc.gz'), undefined);
});

test('sizes: bytes, decimal and binary units; anything else is refused naming the flag', () => {
  assert.equal(parseSize('1GB', '--x'), 1_000_000_000);
  assert.equal(parseSize('500K', '--x'), 500_000);
  assert.equal(parseSize('64KiB', '--x'), 65_536);
  assert.equal(parseSize('1.5MiB', '--x'), 1_572_864);
  assert.equal(parseSize('4096', '--x'), 4096);
  assert.throws(() => parseSize('lots', '--warc-max-size'), /--warc-max-size must be a size/);
});

/** A wire exchange of `target` as the HTTP client reports it. */
function exchange(target: string, response: string, payload: string, at: number) {
  return {
    url: parseHttpUrl(target),
    method: 'GET' as const,
    ip: '127.0.0.1',
    sent: true,
    startedAt: at,
    endedAt: at + 5,
    request: Buffer.from(`GET ${parseHttpUrl(target).target} HTTP/1.1\r\nHost: h\r\n\r\n`),
    response: Buffer.from(response),
    payload: Buffer.from(payload),
    status: Number(response.slice(9, 12)),
    reused: false,
  };
}

test('a finished archive names its files and its pages (URL, WARC-Date, status, title), redirects and failures left out', async () => {
  const dir = temp();
  const path = join(dir, 'pages.warc');
  const archive = await CrawlArchive.open({ path, maxSize: 1e9, resume: false, ordered: true, robots: 'obey', userAgent: 'ua', commandLine: ['crawler'] });
  const home = '<html><head><title>\n  Home  page </title></head><a href="/next">n</a></html>';
  const a = parseHttpUrl('http://h.example/old');
  const b = parseHttpUrl('http://h.example/');
  archive.consume({ type: 'exchange', exchange: exchange(a.href, 'HTTP/1.1 301 Moved\r\nLocation: /\r\nContent-Length: 0\r\n\r\n', '', Date.UTC(2026, 0, 1)) });
  archive.consume({ type: 'response', url: a, depth: 0, status: 301 });
  archive.consume({ type: 'redirect', from: a, depth: 0, target: b, raw: '/', action: 'follow' });
  archive.consume({ type: 'exchange', exchange: exchange(b.href, `HTTP/1.1 200 OK\r\nContent-Length: ${home.length}\r\n\r\n${home}`, home, Date.UTC(2026, 0, 1, 0, 0, 1)) });
  archive.consume({ type: 'response', url: b, depth: 0, status: 200 });
  archive.consume({ type: 'saved', url: b, depth: 0, id: 1 });
  const summary = await archive.finish();
  assert.deepEqual(summary.warcPaths, [path]);
  assert.deepEqual(summary.pages, [{ url: 'http://h.example/', ts: '2026-01-01T00:00:01.000000Z', status: 200, title: 'Home page' }]);
  const records = await checkArchive([path]);
  assert.deepEqual(records.map((r) => r.type), ['warcinfo', 'request', 'response', 'metadata', 'request', 'response', 'metadata']);
});

test('a full disk: nothing after the failed write counts as written, every wait rejects naming the archive, the file holds whole records', async (t) => {
  const dir = tmpfs(t, '64k');
  if (dir === undefined) return;
  const path = join(dir, 'full.warc');
  const archive = await CrawlArchive.open({ path, maxSize: 1e9, resume: false, ordered: true, robots: 'obey', userAgent: 'ua', commandLine: ['crawler'] });
  const body = `<html><title>x</title>${'<p>filler</p>'.repeat(600)}</html>`;
  let mark = 0;
  // 40 pages of 8 KB: about five fit.
  for (let i = 0; i < 40; i++) {
    const url = parseHttpUrl(`http://h.example/p${i}.html`);
    archive.consume({ type: 'exchange', exchange: exchange(url.href, `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`, body, Date.UTC(2026, 0, 1, 0, 0, i)) });
    archive.consume({ type: 'response', url, depth: 1, status: 200 });
    archive.consume({ type: 'saved', url, depth: 1, id: i + 1 });
    mark = archive.mark();
  }
  await assert.rejects(archive.writtenThrough(mark), /^CrawlerError: the disk is full: cannot write the archive .*full\.warc \(ENOSPC\)/);
  assert.equal(archive.isWritten(mark), false, 'the last page is not written');
  // The backlog is small, yet the wait for room rejects too: a crawl must stop, not go on without its archive.
  await assert.rejects(archive.room(), /ENOSPC/);
  await assert.rejects(archive.finish(), /cannot write the archive .*ENOSPC/);
  const records = await checkArchive([path]);
  const responses = records.filter((r) => r.type === 'response').length;
  assert.ok(responses >= 1 && responses < 40, `${responses} whole responses before the disk was full`);
});
