/**
 * decodeCss: a stylesheet's bytes as text by CSS Syntax Level 3 §3.2 (a BOM,
 * then the protocol's charset, then a leading `@charset "x";`, then UTF-8),
 * with the Encoding standard's labels (latin1 means windows-1252).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeCss } from '../../src/extract/css-decode.js';
import { createRandom } from '../../bench/synthetic-page.js';

const bytes = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

test('UTF-8 by default; invalid bytes become U+FFFD and never throw', () => {
  assert.equal(decodeCss(Buffer.from('a { b: url(café.png) }')), 'a { b: url(café.png) }');
  assert.equal(decodeCss(bytes('x', [0xff, 0xc3], 'y', [0xe2, 0x82])), 'x\ufffd\ufffdy\ufffd');
  assert.equal(decodeCss(Buffer.alloc(0)), '');
});

test('a UTF-8 BOM is removed', () => {
  assert.equal(decodeCss(bytes([0xef, 0xbb, 0xbf], 'a{}')), 'a{}');
});

test('UTF-16 BOMs (LE and BE) decode UTF-16, the BOM removed', () => {
  assert.equal(decodeCss(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('url(é.png)', 'utf16le')])), 'url(é.png)');
  const be = Buffer.from('url(é.png)', 'utf16le').swap16();
  assert.equal(decodeCss(Buffer.concat([Buffer.from([0xfe, 0xff]), be])), 'url(é.png)');
});

test('a BOM beats both the protocol charset and @charset', () => {
  assert.equal(decodeCss(bytes([0xef, 0xbb, 0xbf], '@charset "windows-1252"; ', [0xc3, 0xa9]), 'windows-1252'), '@charset "windows-1252"; é');
  assert.equal(decodeCss(bytes([0xef, 0xbb, 0xbf], [0xc3, 0xa9]), 'iso-8859-1'), 'é');
});

test('the protocol charset: windows-1252 and its labels latin1, iso-8859-1, us-ascii (0x80-0x9F are not C1 controls)', () => {
  const body = bytes([0x80, 0x8a, 0x93, 0x99, 0x9f, 0xe9, 0x81, 0x8d]);
  const want = '\u20ac\u0160\u201c\u2122\u0178\u00e9\u0081\u008d';
  for (const label of ['windows-1252', 'latin1', 'ISO-8859-1', ' iso-8859-1 ', 'us-ascii', 'cp1252']) assert.equal(decodeCss(body, label), want, label);
});

test('the protocol charset: other encodings Node knows (Shift_JIS, ISO-8859-2, UTF-16LE without BOM)', () => {
  assert.equal(decodeCss(bytes([0x83, 0x65, 0x83, 0x58, 0x83, 0x67]), 'shift_jis'), 'テスト');
  assert.equal(decodeCss(bytes([0xa9]), 'iso-8859-2'), 'Š');
  assert.equal(decodeCss(Buffer.from('a{}', 'utf16le'), 'utf-16le'), 'a{}');
});

test('@charset "label"; at the very start picks the encoding when the protocol gives none', () => {
  assert.equal(decodeCss(bytes('@charset "windows-1252"; .x{content:"', [0x80], '"}')), '@charset "windows-1252"; .x{content:"€"}');
  assert.equal(decodeCss(bytes('@charset "ISO-8859-1";', [0xe9])), '@charset "ISO-8859-1";é');
});

test('the protocol charset beats @charset (the spec\'s order)', () => {
  assert.equal(decodeCss(bytes('@charset "windows-1252";', [0xc3, 0xa9]), 'utf-8'), '@charset "windows-1252";é');
});

test('@charset counts only in its exact form: first bytes, lower case, one space, double quotes, then ";"', () => {
  const tail = [0xe9];
  for (const head of [' @charset "latin1";', '@CHARSET "latin1";', '@charset  "latin1";', "@charset 'latin1';", '@charset "latin1" ;', '@charset "latin1"']) {
    assert.equal(decodeCss(bytes(head, tail)), head + '\ufffd', head);
  }
});

test('@charset "utf-16" (or a UTF-16 label) means UTF-8; an unknown label is ignored', () => {
  assert.equal(decodeCss(bytes('@charset "utf-16";', [0xc3, 0xa9])), '@charset "utf-16";é');
  assert.equal(decodeCss(bytes('@charset "UTF-16BE";', [0xc3, 0xa9])), '@charset "UTF-16BE";é');
  assert.equal(decodeCss(bytes('@charset "no-such-thing";', [0xc3, 0xa9])), '@charset "no-such-thing";é');
});

test('an unknown protocol label falls through to @charset, then UTF-8', () => {
  assert.equal(decodeCss(bytes('@charset "latin1";', [0xe9]), 'bogus'), '@charset "latin1";é');
  assert.equal(decodeCss(bytes([0xc3, 0xa9]), 'bogus'), 'é');
  assert.equal(decodeCss(bytes([0xc3, 0xa9]), ''), 'é');
});

test('random bytes with random labels never throw', () => {
  const random = createRandom(11);
  const rnd = (n: number): number => Math.floor(random() * n);
  const labels = [undefined, 'utf-8', 'latin1', 'utf-16be', 'shift_jis', 'iso-2022-kr', 'x-user-defined', 'bogus', ''];
  for (let n = 0; n < 500; n++) {
    const body = Buffer.from(Array.from({ length: rnd(40) }, () => rnd(256)));
    if (rnd(3) === 0) body.write('@charset "', 0, 'latin1');
    assert.equal(typeof decodeCss(body, labels[rnd(labels.length)]), 'string');
  }
});
