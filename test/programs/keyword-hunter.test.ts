/**
 * KeywordHunter's policy (src/programs/keyword-hunter.ts) in process: the
 * keyword decision, made once per response, and the spec's link resolution.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeywordDecision, resolveKhLink } from '../../src/programs/keyword-hunter.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { fakeResponse } from '../helpers/fakes.js';

const url = parseHttpUrl('http://h.example/page.html');

test('a 200 holding the keyword answers its line (the bytes as sent, without the line end); without it, scan', () => {
  const d = new KeywordDecision('needle');
  const line = d.of(fakeResponse(url, 200, [], 'first\r\n<p>a needle here</p>\r\nlast\n'));
  assert.ok(Buffer.isBuffer(line));
  assert.equal(line.toString('latin1'), '<p>a needle here</p>');
  assert.equal(d.of(fakeResponse(url, 200, [], 'no Needle, no NEEDLE\n')), 'scan', 'case-sensitive');
});

test('any status but 200 is skipped, keyword or not', () => {
  const d = new KeywordDecision('needle');
  for (const status of [404, 500, 203, 301]) assert.equal(d.of(fakeResponse(url, status, [], 'needle\n')), 'skip', `HTTP ${status}`);
});

test('decided once per response: asked again, the very answer, even when the body has changed since', () => {
  const d = new KeywordDecision('needle');
  const holding = fakeResponse(url, 200, [], 'a needle\n');
  const first = d.of(holding);
  holding.body.fill(0x20); // the needle is gone: a second search would say 'scan'
  assert.equal(d.of(holding), first, 'the same Buffer instance');

  const without = fakeResponse(url, 200, [], 'a haystack\n');
  assert.equal(d.of(without), 'scan');
  without.body.write('needle'); // a second search would now find it
  assert.equal(d.of(without), 'scan');

  assert.ok(Buffer.isBuffer(d.of(fakeResponse(url, 200, [], 'a needle\n'))), 'another response with the same body is decided afresh');
});

test('the spec\'s link resolution: a URL without a path means /index.html, its query kept', () => {
  const base = parseHttpUrl('http://h.example/dir/page.html');
  assert.equal(resolveKhLink('http://other.example', base, 2048).key, 'http://other.example/index.html');
  assert.equal(resolveKhLink('http://other.example?x=1', base, 2048).key, 'http://other.example/index.html?x=1');
  assert.equal(resolveKhLink('http://other.example/', base, 2048).key, 'http://other.example/');
  assert.equal(resolveKhLink('b.html', base, 2048).key, 'http://h.example/dir/b.html');
});
