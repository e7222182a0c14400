/**
 * An exchange's trip to the archive's thread (src/archive/record-jobs.ts):
 * packed into the shared ring (or a buffer of its own when the ring is
 * full) and unpacked there, every byte and field as it was; each part placed
 * at its own offset modulo 8, which is what lets V8 copy it a word at a time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExchangeInput } from '../../src/archive/exchange-records.js';
import { packExchange, unpackExchange } from '../../src/archive/record-jobs.js';
import { SendRing } from '../../src/thread/send-ring.js';

/** `text` as a Buffer that starts `offset` bytes into its ArrayBuffer. */
function at(offset: number, text: string): Buffer {
  const b = Buffer.from(text);
  const own = Buffer.alloc(offset + b.length + 3, 0x7e);
  b.copy(own, offset);
  return own.subarray(offset, offset + b.length);
}

function input(request: Buffer, response: Buffer, payload: Buffer | undefined): ExchangeInput {
  return {
    uri: 'http://127.0.0.1:8080/a.html',
    ip: '127.0.0.1',
    date: '2026-12-04T13:00:00.123456Z',
    endDate: undefined,
    requestId: '<urn:uuid:1>',
    responseId: '<urn:uuid:2>',
    request,
    response,
    payload,
    truncated: 'length',
    failure: undefined,
    durationMs: 1.5,
    // A refresh's 304: what it revisits crosses to the thread with the rest.
    notModified: { refersTo: { uri: 'http://127.0.0.1:8080/a.html', date: '2026-12-01T13:00:00.123456Z', id: '<urn:uuid:0>' }, digest: 'sha1:AAAA' },
  };
}

function assertSame(back: ExchangeInput, x: ExchangeInput): void {
  const { request, response, payload, ...fields } = x;
  const { request: r2, response: s2, payload: p2, ...fields2 } = back;
  assert.deepEqual(fields2, fields);
  assert.equal(r2.toString(), request.toString());
  assert.equal(s2.toString(), response.toString());
  assert.equal(p2?.toString(), payload?.toString());
}

const REQUEST = 'GET /a.html HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n';
const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n';
const PLAIN = 'HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world';

describe('packing an exchange for the archive thread', () => {
  it('gives back every field and byte, for every offset of each part and of the ring, a decoded payload apart', () => {
    for (let ringShift = 0; ringShift < 8; ringShift++) {
      for (let off = 0; off < 8; off++) {
        const ring = new SendRing(1 << 16);
        if (ringShift > 0) ring.reserve(ringShift);
        const x = input(at(off, REQUEST), at((off + 3) % 8, CHUNKED), at((off + 5) % 8, 'hello world'));
        const packed = packExchange(x, ring);
        assert.equal(packed.bytes, undefined, 'placed in the ring');
        assertSame(unpackExchange(packed, ring.shared), x);
        // Each part sits at its own offset modulo 8 in the ring.
        const ringOffset = (partAt: number): number => (packed.ringAt + partAt) % 8;
        assert.equal(ringOffset(packed.requestAt), x.request.byteOffset % 8);
        assert.equal(ringOffset(packed.responseAt), x.response.byteOffset % 8);
        assert.equal(ringOffset(packed.payload![0]), x.payload!.byteOffset % 8);
        assert.ok(packed.responseAt >= packed.requestAt + packed.requestLength, 'the parts do not overlap');
        assert.ok(packed.payload![0] >= packed.responseAt + packed.responseLength);
      }
    }
  });

  it('sends a payload that is part of the response as its place there, not a second copy', () => {
    const ring = new SendRing(1 << 16);
    const response = at(3, PLAIN);
    const x = input(at(0, REQUEST), response, response.subarray(PLAIN.indexOf('hello')));
    const packed = packExchange(x, ring);
    const [start, length] = packed.payload!;
    assert.equal(start, packed.responseAt + PLAIN.indexOf('hello'));
    assert.equal(length, 11);
    assertSame(unpackExchange(packed, ring.shared), x);
    // The same exchange with its payload in a buffer apart takes the payload's 11 bytes more.
    const apart = new SendRing(1 << 16);
    packExchange(input(at(0, REQUEST), at(3, PLAIN), at(0, 'hello world')), apart);
    assert.equal(apart.used - ring.used, 11);
  });

  it('puts the bytes in a buffer of their own when the ring has no room, and they come back the same', () => {
    const ring = new SendRing(256);
    ring.reserve(200);
    const x = input(at(1, REQUEST), at(6, CHUNKED), at(2, 'hello world'));
    const packed = packExchange(x, ring);
    assert.ok(packed.bytes !== undefined, 'a buffer of its own');
    assert.equal(packed.ringEnd, 0, 'no place in the ring to give back');
    assertSame(unpackExchange(packed, ring.shared), x);
  });

  it('keeps an exchange with no payload and no response id (a request that got no answer)', () => {
    const ring = new SendRing(1 << 12);
    const x = { ...input(at(5, REQUEST), Buffer.alloc(0), undefined), responseId: undefined, failure: 'ERR_CONNECT: refused', endDate: '2026-12-04T13:00:01.000000Z', truncated: undefined };
    const packed = packExchange(x, ring);
    assert.equal(packed.payload, undefined);
    assertSame(unpackExchange(packed, ring.shared), x);
  });
});
