/**
 * The payload of a response cut short, as its record holds it
 * (src/archive/recorded-payload.ts; WARC 1.1 §5.9, spec decision "The crawl
 * archive": "the digest of the payload as recorded"): the body bytes that
 * arrived with the transfer coding removed as far as it can be. Every cut
 * of a chunked message, at every byte, against what its chunks say.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finalHead, recordedPayload } from '../../src/archive/recorded-payload.js';

interface Chunk {
  /** Where the chunk's data starts in the message, once its size line arrived whole. */
  dataAt: number;
  data: string;
}

/** A chunked message made of `head`, then each of `pieces` as a chunk (the size line as written), then the last chunk and a trailer. */
function chunked(head: string, pieces: Array<[sizeLine: string, data: string, end: string]>): { message: Buffer; chunks: Chunk[]; end: number } {
  let text = head;
  const chunks: Chunk[] = [];
  for (const [sizeLine, data, end] of pieces) {
    text += sizeLine;
    chunks.push({ dataAt: text.length, data });
    text += data + end;
  }
  const end = text.length;
  text += '0\r\nX-Trailer: not payload\r\n\r\n';
  return { message: Buffer.from(text, 'latin1'), chunks, end };
}

/** What a cut after `n` bytes holds: each chunk whose size line arrived, as far as its data arrived. */
function expected(chunks: readonly Chunk[], n: number): string {
  let out = '';
  for (const c of chunks) {
    if (n < c.dataAt) break;
    out += c.data.slice(0, n - c.dataAt);
  }
  return out;
}

test('a chunked body cut at every byte: the data of each chunk whose size line arrived, as far as it arrived; never framing, extensions or trailers', () => {
  const head = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n';
  const { message, chunks, end } = chunked(head, [
    ['a\r\n', '<html>0123', '\r\n'],
    ['5;name="ext"\r\n', 'abcde', '\r\n'],
    // A bare LF after the size and after the data, as the parser accepts.
    ['3\n', 'xyz', '\n'],
    ['10 \r\n', 'sixteen bytes!!!', '\r\n'],
  ]);
  const bodyAt = head.length;
  for (let n = 0; n <= message.length; n++) {
    const got = recordedPayload(message.subarray(0, n));
    if (n < bodyAt) {
      assert.equal(got, undefined, `cut at ${n}, in the header section: no payload`);
      continue;
    }
    assert.equal(got?.toString('latin1'), expected(chunks, Math.min(n, end)), `cut at ${n}`);
  }
  assert.equal(recordedPayload(message)?.toString('latin1'), '<html>0123abcdexyzsixteen bytes!!!', 'the whole message: every chunk');
});

test('a Content-Length body cut short: the body bytes that arrived; a close-delimited one likewise; a 204 none', () => {
  const head = 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n';
  for (let n = head.length; n <= head.length + 10; n++) {
    assert.equal(recordedPayload(Buffer.from(`${head}0123456789`).subarray(0, n))?.toString(), '0123456789'.slice(0, n - head.length));
  }
  assert.equal(recordedPayload(Buffer.from('HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html>until the close'))?.toString(), '<html>until the close');
  assert.equal(recordedPayload(Buffer.from('HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n'))?.length, 0);
  // Transfer-Encoding wins over Content-Length (RFC 9112 §6.3), here as when the bytes arrived.
  assert.equal(recordedPayload(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n2\r\nef'))?.toString(), 'abcdef');
});

test('the decoding stops at the first byte that breaks the chunked framing: what follows is no payload', () => {
  const head = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n';
  assert.equal(recordedPayload(Buffer.from(`${head}4\r\nabcd\r\nzz\r\nmore`))?.toString(), 'abcd', 'a size that is no hex number');
  assert.equal(recordedPayload(Buffer.from(`${head}4\r\nabcdXY2\r\nef\r\n`))?.toString(), 'abcd', 'chunk data not followed by CRLF');
});

test('no payload when the final header section did not arrive whole, or cannot be read', () => {
  assert.equal(recordedPayload(Buffer.from('HTTP/1.1 200 OK\r\nContent-Le')), undefined);
  assert.equal(recordedPayload(Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n')), undefined, 'only the interim response arrived whole');
  assert.equal(recordedPayload(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcde')), undefined, 'conflicting lengths frame nothing');
  assert.equal(recordedPayload(Buffer.from('not http at all\r\n\r\nabc')), undefined);
  assert.equal(recordedPayload(Buffer.alloc(0)), undefined);
});

test('the final head: past interim responses and empty lines before a status line, with CRLF or bare LF lines, folded fields read', () => {
  const bytes = Buffer.from('\r\nHTTP/1.1 103 Early Hints\nLink: </a.css>\n\nHTTP/1.1 200 OK\nX-Folded: a\n  b\nContent-Length: 3\n\nabc');
  assert.deepEqual(finalHead(bytes), { framing: 'length', length: 3, bodyAt: bytes.length - 3, headers: [['X-Folded', 'a b'], ['Content-Length', '3']] });
});
