/**
 * RFC 3986 §5: reference resolution. The §5.4 examples are facts of the
 * standard and are written out here; the conformance file of the same
 * table (with Node 20's WHATWG answers beside them) is checked as well.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUriReference, removeDotSegments, resolveReference } from '../../src/url/uri.js';
import { loadConformance } from '../helpers/conformance.js';

const BASE = 'http://a/b/c/d;p?q';

// RFC 3986 §5.4.1 Normal Examples
const NORMAL: Array<[string, string]> = [
  ['g:h', 'g:h'], ['g', 'http://a/b/c/g'], ['./g', 'http://a/b/c/g'], ['g/', 'http://a/b/c/g/'],
  ['/g', 'http://a/g'], ['//g', 'http://g'], ['?y', 'http://a/b/c/d;p?y'], ['g?y', 'http://a/b/c/g?y'],
  ['#s', 'http://a/b/c/d;p?q#s'], ['g#s', 'http://a/b/c/g#s'], ['g?y#s', 'http://a/b/c/g?y#s'],
  [';x', 'http://a/b/c/;x'], ['g;x', 'http://a/b/c/g;x'], ['g;x?y#s', 'http://a/b/c/g;x?y#s'],
  ['', 'http://a/b/c/d;p?q'], ['.', 'http://a/b/c/'], ['./', 'http://a/b/c/'], ['..', 'http://a/b/'],
  ['../', 'http://a/b/'], ['../g', 'http://a/b/g'], ['../..', 'http://a/'], ['../../', 'http://a/'],
  ['../../g', 'http://a/g'],
];
// RFC 3986 §5.4.2 Abnormal Examples (strict parser: "http:g" keeps its scheme)
const ABNORMAL: Array<[string, string]> = [
  ['../../../g', 'http://a/g'], ['../../../../g', 'http://a/g'], ['/./g', 'http://a/g'], ['/../g', 'http://a/g'],
  ['g.', 'http://a/b/c/g.'], ['.g', 'http://a/b/c/.g'], ['g..', 'http://a/b/c/g..'], ['..g', 'http://a/b/c/..g'],
  ['./../g', 'http://a/b/g'], ['./g/.', 'http://a/b/c/g/'], ['g/./h', 'http://a/b/c/g/h'], ['g/../h', 'http://a/b/c/h'],
  ['g;x=1/./y', 'http://a/b/c/g;x=1/y'], ['g;x=1/../y', 'http://a/b/c/y'], ['g?y/./x', 'http://a/b/c/g?y/./x'],
  ['g?y/../x', 'http://a/b/c/g?y/../x'], ['g#s/./x', 'http://a/b/c/g#s/./x'], ['g#s/../x', 'http://a/b/c/g#s/../x'],
  ['http:g', 'http:g'],
];

for (const [ref, expected] of NORMAL) {
  test(`RFC 3986 §5.4.1 normal: "${ref}" resolves to ${expected}`, () => assert.equal(resolveReference(BASE, ref), expected));
}
for (const [ref, expected] of ABNORMAL) {
  test(`RFC 3986 §5.4.2 abnormal: "${ref}" resolves to ${expected}`, () => assert.equal(resolveReference(BASE, ref), expected));
}

test('RFC 3986 §5.2.4: remove_dot_segments examples from the text', () => {
  assert.equal(removeDotSegments('/a/b/c/./../../g'), '/a/g');
  assert.equal(removeDotSegments('mid/content=5/../6'), 'mid/6');
  assert.equal(removeDotSegments('/a/b/'), '/a/b/');
});

/** §5.2.4 as the RFC words it: a buffer that loses its first segment at each step. The code works on an index instead. */
function removeDotSegmentsAsWritten(path: string): string {
  let input = path;
  let output = '';
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = '/' + input.slice(3);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../') || input === '/..') {
      input = '/' + input.slice(input === '/..' ? 3 : 4);
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const end = next === -1 ? input.length : next;
      output += input.slice(0, end);
      input = input.slice(end);
    }
  }
  return output;
}

test('RFC 3986 §5.2.4: every path of up to 7 pieces ("/", ".", "..", "a", "./", "../", "/.", "/..", ".a", "..b") as the RFC words it', () => {
  const pieces = ['/', '.', '..', 'a', './', '../', '/.', '/..', '.a', '..b'];
  let paths = [''];
  let checked = 0;
  for (let len = 1; len <= 7; len++) {
    // Every path of `len` pieces would be 10^7 at the end; a fixed stride through them keeps each length's share.
    const next: string[] = [];
    for (const p of paths) for (const x of pieces) next.push(p + x);
    paths = len < 5 ? next : next.filter((_, k) => k % (len - 3) === 0);
    for (const p of paths) {
      assert.equal(removeDotSegments(p), removeDotSegmentsAsWritten(p), JSON.stringify(p));
      checked++;
    }
  }
  assert.ok(checked > 100_000, `${checked} paths`);
  assert.equal(removeDotSegmentsAsWritten('/a/b/c/./../../g'), '/a/g', 'the reference gives the RFC example too');
});

test('RFC 3986 §5.2.4: long absolute paths and long runs of ".." as the RFC words it', () => {
  for (const p of ['/a'.repeat(300) + '/./b', '/a'.repeat(256) + '/../b/.', '/a'.repeat(257) + '/..', '/..'.repeat(300) + '/x', '/a/b'.repeat(200) + '/../'.repeat(150) + 'c']) {
    assert.equal(removeDotSegments(p), removeDotSegmentsAsWritten(p), `${p.slice(0, 20)}... (${p.length} characters)`);
  }
});

test('RFC 3986 Appendix B: components are split as written, case kept', () => {
  assert.deepEqual(parseUriReference('HTTP://Ex.COM:80/P/a?Q=1#F'), { scheme: 'HTTP', authority: 'Ex.COM:80', path: '/P/a', query: 'Q=1', fragment: 'F' });
  assert.deepEqual(parseUriReference('a/b'), { scheme: undefined, authority: undefined, path: 'a/b', query: undefined, fragment: undefined });
  assert.equal(parseUriReference('?').query, '');
  assert.equal(parseUriReference('#').fragment, '');
});

interface Row { base: string; ref: string; expected: string; section: string }
const rows = loadConformance<Row[]>('rfc3986-resolution.json');
test('conformance: rfc3986-resolution.json, every row of the §5.4 table', () => {
  assert.ok(rows.length >= 40);
  for (const r of rows) assert.equal(resolveReference(r.base, r.ref), r.expected, `${r.section}: ${r.ref}`);
});
