/**
 * Answers waiting for their turn (held-answers.ts): counted with their
 * fields, not only their bodies; beyond the budget their fields and body go
 * to the spill and come back whole; the count returns to zero.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { FileBodySpill, type BodySpill } from '../../src/sink/body-spill.js';
import { answerBytes, HeldAnswers } from '../../src/engine/held-answers.js';
import type { FetchResponse } from '../../src/http/client.js';
import type { Field } from '../../src/http/header-lines.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('pc-held-');

function response(headers: Field[], body: Buffer, trailers: Field[] = []): FetchResponse {
  return {
    url: parseHttpUrl('http://a.test/p'),
    reused: false,
    version: '1.1',
    status: 200,
    reason: 'OK',
    headers,
    trailers,
    body,
    keepAlive: true,
    framing: 'length',
    notes: undefined,
  } as FetchResponse;
}

/** A spill that counts what it is given. */
function counting(dir: string): BodySpill & { puts: number } {
  const file = new FileBodySpill(dir);
  const s = { puts: 0, put: (b: Buffer) => (s.puts++, file.put(b)), take: (x: Parameters<BodySpill['take']>[0]) => file.take(x), close: () => file.close() };
  return s;
}

test('an answer counts its fields as well as its body: many fields and a small body spill past the budget', () => {
  const spill = counting(dirs.temp());
  const fields: Field[] = Array.from({ length: 200 }, (_, i) => [`x-field-${i}`, 'v'.repeat(40)]);
  const big = response(fields, Buffer.from('tiny'));
  assert.ok(answerBytes(big) > 200 * 40, `${answerBytes(big)} counts the fields`);
  const held = new HeldAnswers(spill, answerBytes(big) - 1);
  const h = held.hold(big);
  assert.equal(spill.puts, 1, 'the body alone (4 bytes) is under the budget; with its fields it is not');
  assert.equal(held.bytes, 0);
  assert.deepEqual(big.headers, [], 'the fields left memory with the body');
  held.restore(big, h);
  assert.deepEqual(big.headers, fields);
  assert.equal(big.body.toString(), 'tiny');
  spill.close();
});

test('fields, trailers and body come back exactly (Latin-1 and JSON-special characters, empty values, a binary body)', () => {
  const dir = dirs.temp();
  const spill = counting(dir);
  const held = new HeldAnswers(spill, 0);
  const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) & 0xff));
  const headers: Field[] = [
    ['Content-Type', 'text/html; charset="iso-8859-1"'],
    ['X-Odd', 'caf\u00e9 \\ "q" \u00ff\u0001'],
    ['X-Empty', ''],
  ];
  const trailers: Field[] = [['Digest', 'sha-256=abc']];
  const r = response(headers, body, trailers);
  const plain = response([['Content-Type', 'text/plain']], Buffer.from('plain'));
  const h1 = held.hold(r);
  const h2 = held.hold(plain);
  assert.equal(spill.puts, 2);
  assert.deepEqual(readdirSync(dir), [], 'the spill leaves no name in the directory');
  held.restore(plain, h2);
  held.restore(r, h1);
  assert.deepEqual(r.headers, headers);
  assert.deepEqual(r.trailers, trailers);
  assert.ok(r.body.equals(body));
  assert.deepEqual(plain.trailers, []);
  assert.equal(plain.body.toString(), 'plain');
  held.close();
});

test('within the budget answers wait in memory, counted, and the count returns to zero as they are handed out', () => {
  const spill = counting(dirs.temp());
  const held = new HeldAnswers(spill, 1 << 20);
  const rs = Array.from({ length: 10 }, (_, i) => response([['Content-Type', 'text/html']], Buffer.alloc(1000, i)));
  const hs = rs.map((r) => held.hold(r));
  assert.equal(spill.puts, 0);
  assert.equal(held.bytes, rs.reduce((n, r) => n + answerBytes(r), 0));
  for (const [i, r] of rs.entries()) held.restore(r, hs[i]!);
  assert.equal(held.bytes, 0);
  assert.ok(rs[3]!.body.equals(Buffer.alloc(1000, 3)));
  spill.close();
});

test('without a spill every answer waits in memory, whatever the budget', () => {
  const held = new HeldAnswers(undefined, 0);
  const r = response([['A', 'b']], Buffer.from('body'));
  const h = held.hold(r);
  assert.equal(r.body.toString(), 'body');
  assert.ok(held.bytes > 0);
  held.restore(r, h);
  assert.equal(held.bytes, 0);
});
