/**
 * A body the reader has no use for (`wantsBody` false, asked of the head):
 * the parser reads it only while it is short (UNWANTED_BODY_DRAIN_BYTES, or
 * maxBodyBytes when lower) and otherwise ends the message at once without
 * it. Every framing is fed as one chunk, in two pieces cut at every offset
 * and byte by byte: TCP may cut a response anywhere, and the outcome (and
 * the bytes left over) must not depend on where.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResponseParser, UNWANTED_BODY_DRAIN_BYTES, type ParsedResponse, type ResponseHead, type ResponseParserOptions } from '../../src/http/response-parser.js';
import { isCrawlerError } from '../../src/errors.js';

const NOT_WANTED = (): boolean => false;

interface Fed {
  response: ParsedResponse | undefined;
  extra: string;
}

function feedPieces(pieces: Buffer[], options: ResponseParserOptions, end: boolean): Fed {
  const p = new ResponseParser(options);
  for (const piece of pieces) p.feed(piece);
  if (end) p.end();
  return { response: p.response, extra: p.extra.toString('latin1') };
}

/** Feeds `raw` every way; asserts they agree and returns the outcome. */
function feedEveryWay(raw: string, options: ResponseParserOptions, end = false): Fed {
  const all = Buffer.from(raw, 'latin1');
  const whole = feedPieces([all], options, end);
  const ways: Buffer[][] = [[...all].map((b) => Buffer.from([b]))];
  for (let i = 1; i < all.length; i++) ways.push([all.subarray(0, i), all.subarray(i)]);
  for (const pieces of ways) {
    const fed = feedPieces(pieces, options, end);
    assert.deepEqual(fed.response, whole.response, `cut into ${pieces.map((x) => x.length).join('+')}`);
    assert.equal(fed.extra, whole.extra, `extra, cut into ${pieces.map((x) => x.length).join('+')}`);
  }
  return whole;
}

// A drain threshold of 10 bytes (maxBodyBytes below UNWANTED_BODY_DRAIN_BYTES): short messages show every case.
const SMALL: ResponseParserOptions = { limits: { maxBodyBytes: 10 }, wantsBody: NOT_WANTED };

test('an unwanted Content-Length body within the threshold is read to its end: kept, connection reusable', () => {
  const { response, extra } = feedEveryWay('HTTP/1.1 200 OK\r\nContent-Type: text/x-python\r\nContent-Length: 10\r\n\r\n0123456789', SMALL);
  assert.equal(response?.unwanted, 'drained');
  assert.equal(response?.body.toString(), '0123456789');
  assert.equal(response?.keepAlive, true);
  assert.equal(extra, '');
});

test('an unwanted Content-Length body past the threshold ends the message at its head: no body, not reusable, no size error', () => {
  const body = 'x'.repeat(11);
  const { response, extra } = feedEveryWay(`HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: 11\r\n\r\n${body}`, SMALL);
  assert.equal(response?.unwanted, 'cut');
  assert.equal(response?.status, 200);
  assert.equal(response?.body.length, 0);
  assert.equal(response?.keepAlive, false);
  assert.equal(extra, body, 'what came after the head is past the message');
  // The same body, wanted, is over the cap.
  assert.throws(() => feedPieces([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n${body}`)], { limits: { maxBodyBytes: 10 } }, false), (e: unknown) => isCrawlerError(e, 'ERR_BODY_OVERFLOW'));
});

test('an unwanted chunked body is read while its chunks stay within the threshold, and ends at the size line of the chunk that would pass it', () => {
  const drained = feedEveryWay('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n6\r\nefghij\r\n0\r\n\r\n', SMALL);
  assert.equal(drained.response?.unwanted, 'drained');
  assert.equal(drained.response?.body.toString(), 'abcdefghij');
  assert.equal(drained.response?.keepAlive, true);
  const cut = feedEveryWay('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n7\r\nefghijk\r\n0\r\n\r\n', SMALL);
  assert.equal(cut.response?.unwanted, 'cut');
  assert.equal(cut.response?.body.length, 0);
  assert.equal(cut.response?.keepAlive, false);
  assert.equal(cut.extra, 'efghijk\r\n0\r\n\r\n');
});

test('an unwanted body delimited by the close is read while it stays within the threshold, and cut once more bytes came', () => {
  const drained = feedEveryWay('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n0123456789', SMALL, true);
  assert.equal(drained.response?.unwanted, 'drained');
  assert.equal(drained.response?.body.toString(), '0123456789');
  const p = new ResponseParser(SMALL);
  p.feed(Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n01234'));
  assert.equal(p.done, false);
  p.feed(Buffer.from('567890'));
  assert.equal(p.done, true, 'the 11th byte ends it, with no close');
  assert.equal(p.response?.unwanted, 'cut');
  assert.equal(p.response?.body.length, 0);
  assert.equal(p.extra.toString(), '567890', 'the piece that passed the threshold is past the message');
});

test('wantsBody is asked once, of the final head, and only when a body may follow', () => {
  const asked: ResponseHead[] = [];
  const ask = (head: ResponseHead): boolean => {
    asked.push(head);
    return false;
  };
  const noBody = ['HTTP/1.1 304 Not Modified\r\nContent-Type: image/png\r\n\r\n', 'HTTP/1.1 204 No Content\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 0\r\n\r\n'];
  for (const raw of noBody) {
    const res = feedPieces([Buffer.from(raw)], { wantsBody: ask }, false).response;
    assert.equal(res?.unwanted, undefined, raw);
    assert.equal(res?.keepAlive, true, raw);
  }
  const head = feedPieces([Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 5\r\n\r\n')], { wantsBody: ask, headRequest: true }, false).response;
  assert.equal(head?.unwanted, undefined, 'a HEAD answer has no body');
  assert.equal(asked.length, 0);
  const res = feedPieces([Buffer.from('HTTP/1.1 100 Continue\r\nContent-Type: text/plain\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 2\r\n\r\nhi')], { wantsBody: (h) => asked.push(h) > 0 }, false).response;
  assert.equal(asked.length, 1);
  assert.equal(asked[0]?.status, 200, 'the final head, not the interim one');
  assert.equal(res?.unwanted, undefined, 'a wanted body is read as usual');
  assert.equal(res?.body.toString(), 'hi');
});

test(`the threshold is UNWANTED_BODY_DRAIN_BYTES (${UNWANTED_BODY_DRAIN_BYTES}): a body of that length is read, one byte more is not`, () => {
  const at = (n: number): ParsedResponse | undefined => {
    const p = new ResponseParser({ wantsBody: NOT_WANTED });
    p.feed(Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: ${n}\r\n\r\n`));
    if (!p.done) p.feed(Buffer.alloc(n, 0x61));
    return p.response;
  };
  assert.equal(at(UNWANTED_BODY_DRAIN_BYTES)?.unwanted, 'drained');
  assert.equal(at(UNWANTED_BODY_DRAIN_BYTES)?.body.length, UNWANTED_BODY_DRAIN_BYTES);
  assert.equal(at(UNWANTED_BODY_DRAIN_BYTES + 1)?.unwanted, 'cut');
});
