/**
 * One CDXJ line from one record (src/archive/cdxj-line.ts): which records
 * get a line, and what it says for HTTP heads as servers really send them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cdxjEntry, cdxjLine, timestamp14 } from '../../src/archive/cdxj-line.js';
import type { WarcRecordInfo } from '../../src/archive/warc-reader.js';
import { isCrawlerError } from '../../src/errors.js';

function record(type: string, fields: [string, string][], block: string): WarcRecordInfo {
  return {
    version: 'WARC/1.1',
    type,
    fields: [['WARC-Type', type], ...fields],
    contentLength: Buffer.byteLength(block, 'latin1'),
    offset: 1234,
    length: 567,
    blockStart: Buffer.from(block, 'latin1'),
  };
}

const URI: [string, string] = ['WARC-Target-URI', 'http://www.Example.com/b?z=1&a=2'];
const DATE: [string, string] = ['WARC-Date', '2026-12-01T10:20:30.123456Z'];

test('WARC-Date to the 14 digits of the index; anything else is no date', () => {
  assert.equal(timestamp14('2026-12-01T10:20:30Z'), '20261201102030');
  assert.equal(timestamp14('2026-12-01T10:20:30.123456Z'), '20261201102030');
  assert.equal(timestamp14('2026-12-01 10:20:30Z'), undefined);
  assert.equal(timestamp14('2026-12-01T10:20:30+01:00'), undefined);
  assert.equal(timestamp14(''), undefined);
});

test('a response: SURT key, timestamp, then url, mime (lower-cased), status, digest, length, offset, filename in that order', () => {
  const head = 'HTTP/1.1 404 Not Found\r\nServer: x\r\nContent-Type: Text/HTML ; charset=utf-8\r\n\r\n<html>';
  const e = cdxjEntry(record('response', [URI, DATE, ['WARC-Payload-Digest', 'sha1:ABC']], head), 'a.warc.gz');
  assert.ok(e !== undefined);
  assert.equal(
    cdxjLine(e),
    'com,example)/b?a=2&z=1 20261201102030 {"url":"http://www.Example.com/b?z=1&a=2","mime":"text/html","status":"404","digest":"sha1:ABC","length":"567","offset":"1234","filename":"a.warc.gz"}\n',
  );
});

test('bare LF line ends, folded and spaced header names: status and type still read', () => {
  const e = cdxjEntry(record('response', [URI, DATE], 'HTTP/1.0 200\nX-Long: a\n  b\ncontent-type : image/png\n\nPNG'), 'a.warc');
  assert.deepEqual([e?.json.status, e?.json.mime, e?.json.digest], ['200', 'image/png', undefined]);
});

test('a revisit is `warc/revisit`, with the status of its own head', () => {
  const e = cdxjEntry(record('revisit', [URI, DATE, ['WARC-Payload-Digest', 'sha1:ABC']], 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n'), 'a.warc');
  assert.deepEqual([e?.json.mime, e?.json.status, e?.json.digest], ['warc/revisit', '200', 'sha1:ABC']);
});

test('a server-not-modified revisit (a 304 to a conditional request) has no status: its payload is the earlier capture\'s, under either profile URI', () => {
  const head = 'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n';
  for (const profile of ['http://netpreserve.org/warc/1.1/revisit/server-not-modified', 'http://netpreserve.org/warc/1.0/revisit/server-not-modified', 'http://netpreserve.org/warc/1.0/server-not-modified']) {
    const e = cdxjEntry(record('revisit', [URI, DATE, ['WARC-Profile', profile], ['WARC-Payload-Digest', 'sha1:ABC']], head), 'a.warc');
    assert.deepEqual(Object.keys(e?.json ?? {}), ['url', 'mime', 'digest', 'length', 'offset', 'filename'], profile);
    assert.equal(e?.json.mime, 'warc/revisit');
  }
  const identical = cdxjEntry(record('revisit', [URI, DATE, ['WARC-Profile', 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest']], 'HTTP/1.1 200 OK\r\n\r\n'), 'a.warc');
  assert.equal(identical?.json.status, '200');
});

test('a response whose block is not HTTP (dns:, a non-HTTP scheme) has no status and no type', () => {
  const e = cdxjEntry(record('response', [['WARC-Target-URI', 'dns:example.com'], DATE], '20261201102030\nexample.com. 300 IN A 93.184.216.34\n'), 'a.warc');
  assert.equal(e?.key, 'dns:example.com 20261201102030');
  assert.deepEqual(Object.keys(e?.json ?? {}), ['url', 'length', 'offset', 'filename']);
});

test('WARC 1.0 angle brackets around the target URI are dropped', () => {
  const e = cdxjEntry(record('response', [['WARC-Target-URI', '<http://a.example/>'], DATE], 'HTTP/1.1 200 OK\r\n\r\n'), 'a.warc');
  assert.equal(e?.json.url, 'http://a.example/');
  assert.equal(e?.key, 'example,a)/ 20261201102030');
});

test('request, metadata, warcinfo and resource records get no line', () => {
  for (const type of ['request', 'metadata', 'warcinfo', 'resource', 'conversion']) {
    assert.equal(cdxjEntry(record(type, [URI, DATE], 'GET / HTTP/1.1\r\n\r\n'), 'a.warc'), undefined, type);
  }
});

test('a response without a valid WARC-Date is refused, naming the file and offset', () => {
  assert.throws(
    () => cdxjEntry(record('response', [URI, ['WARC-Date', 'yesterday']], 'HTTP/1.1 200 OK\r\n\r\n'), 'a.warc', '/tmp/x/a.warc'),
    (err: unknown) => isCrawlerError(err, 'ERR_WRITE') && err.message === 'not a valid WARC file: /tmp/x/a.warc: a response record without WARC-Target-URI or a valid WARC-Date at offset 1234',
  );
});
