/**
 * resolveHttpUrl's shortcut for the common links against a parsed base
 * gives exactly what the general resolution (RFC 3986 §5.2, taken when the
 * base is a string) gives: every field, or the same error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHttpUrl, resolveHttpUrl, resolveOnBase, type HttpUrl } from '../../src/url/http-url.js';
import { isCrawlerError } from '../../src/errors.js';

const BASES = [
  'http://example.com/',
  'http://example.com',
  'http://example.com/a/b/c.html',
  'http://example.com/a/b/',
  'http://example.com/a/b/c.html?x=1&y=2',
  'http://Example.COM:8080/dir/page',
  'https://example.com:443/a/./b/../c/d.html',
  'https://example.com:8443/.well-known/x/',
  'http://[::1]:8080/a/b',
  'http://bücher.example/straße/seite.html',
  'http://example.com/a%20b/c d/e',
  'http://example.com//double//slash/',
];

const SEGMENTS = ['a', 'b.html', '.', '..', '', '.a', '..b', '...', 'x y', '%2e', '%2E%2E', 'é', 'a:b', 'a@b', 'a;b=c', '~u'];
const TAILS = ['', '?', '?q=1', '?q=../x', '#', '#f', '#f?x', '?q#f', '?a?b', '?é'];

/** Relative references built from the segments above, plus hand-picked ones that must leave the shortcut. */
function references(): string[] {
  const out = new Set<string>();
  for (const a of SEGMENTS) {
    for (const tail of TAILS) {
      out.add(a + tail);
      for (const b of SEGMENTS) {
        out.add(`${a}/${b}${tail}`);
        out.add(`${a}/${b}/`);
      }
    }
  }
  for (const r of ['', '?x', '#x', '/abs', '//other.example/x', 'http://x.example/', 'HTTPS://x.example/a', 'mailto:a@b', 'javascript:void(0)', 'a b:c', '1a:b', ' a.html ', '\ta\n.html', 'a\\b', '../'.repeat(40) + 'x', 'a'.repeat(3000)]) {
    out.add(r);
  }
  return [...out];
}

/** A URL's fields, or its error's code and message. */
function outcome(resolve: () => HttpUrl): unknown {
  try {
    return { ...resolve() };
  } catch (err) {
    if (!isCrawlerError(err)) throw err;
    return { code: err.code, message: err.message };
  }
}

test('the shortcut and the general resolution agree on every field, for every base and reference', () => {
  const refs = references();
  let compared = 0;
  for (const href of BASES) {
    const base = parseHttpUrl(href);
    // Absolute paths, and absolute URLs on the base's own authority as it is written, and near misses of it.
    const start = base.href.slice(0, base.href.length - base.pathAndQuery.length);
    const own = refs.filter((r) => r.length < 40).flatMap((r) => [`/${r}`, `${start}/${r}`, `${start}${r}`, `${start}0/${r}`, `${start.toUpperCase()}/${r}`, `${start.replace('//', '//u@')}/${r}`]);
    for (const ref of [...refs, ...own]) {
      for (const maxLength of [2048, 40]) {
        const fast = outcome(() => resolveHttpUrl(ref, base, maxLength));
        const general = outcome(() => resolveHttpUrl(ref, base.href, maxLength));
        assert.deepEqual(fast, general, `${JSON.stringify(ref)} against ${href} (max ${maxLength})`);
        compared++;
      }
    }
  }
  assert.ok(compared > 500_000, `compared ${compared}`);
});

test('the shortcut takes relative paths, absolute paths and links on the base\'s own authority, and leaves the rest', () => {
  const base = parseHttpUrl('http://Host.example:8080/b/c/d.html?q');
  for (const ref of ['g', '../g', './g?y#s', 'g;x', '/g', '/../g?y', 'http://Host.example:8080/g', 'http://Host.example:8080/?y']) {
    assert.equal(resolveOnBase(ref, base, 2048)?.href, resolveHttpUrl(ref, base.href).href, ref);
  }
  for (const ref of ['', '?y', '#s', '//other.example/g', 'http://host.example:8080/g', 'HTTP://Host.example:8080/g', 'http://Host.example:80800/g', 'http://Host.example:8080', 'mailto:a@b', 'a:b', 'a b:c/d']) {
    assert.equal(resolveOnBase(ref, base, 2048), undefined, ref);
  }
  assert.equal(resolveOnBase('g', base, 20), undefined, 'over the length cap: the general path says why');
});

test('relative paths resolve as RFC 3986 §5.4.1 says (the shortcut\'s own cases)', () => {
  const base = parseHttpUrl('http://a/b/c/d;p?q');
  const cases: Array<[string, string]> = [
    ['g', 'http://a/b/c/g'],
    ['./g', 'http://a/b/c/g'],
    ['g/', 'http://a/b/c/g/'],
    ['g?y', 'http://a/b/c/g?y'],
    ['g#s', 'http://a/b/c/g'],
    ['g?y#s', 'http://a/b/c/g?y'],
    [';x', 'http://a/b/c/;x'],
    ['g;x', 'http://a/b/c/g;x'],
    ['g;x?y#s', 'http://a/b/c/g;x?y'],
    ['.', 'http://a/b/c/'],
    ['./', 'http://a/b/c/'],
    ['..', 'http://a/b/'],
    ['../', 'http://a/b/'],
    ['../g', 'http://a/b/g'],
    ['../..', 'http://a/'],
    ['../../', 'http://a/'],
    ['../../g', 'http://a/g'],
    ['../../../g', 'http://a/g'],
    ['../../../../g', 'http://a/g'],
    ['g.', 'http://a/b/c/g.'],
    ['.g', 'http://a/b/c/.g'],
    ['g..', 'http://a/b/c/g..'],
    ['..g', 'http://a/b/c/..g'],
    ['./../g', 'http://a/b/g'],
    ['./g/.', 'http://a/b/c/g/'],
    ['g/./h', 'http://a/b/c/g/h'],
    ['g/../h', 'http://a/b/c/h'],
    ['g;x=1/./y', 'http://a/b/c/g;x=1/y'],
    ['g;x=1/../y', 'http://a/b/c/y'],
    ['g?y/./x', 'http://a/b/c/g?y/./x'],
    ['g?y/../x', 'http://a/b/c/g?y/../x'],
    ['g#s/./x', 'http://a/b/c/g'],
    ['g#s/../x', 'http://a/b/c/g'],
  ];
  for (const [ref, want] of cases) assert.equal(resolveHttpUrl(ref, base).href, want, ref);
});

test('absolute paths and absolute URLs on the base\'s own authority resolve as the RFC says', () => {
  const base = parseHttpUrl('http://Host.example:8080/b/c/d.html');
  assert.equal(resolveHttpUrl('/g/../h?q#f', base).key, 'http://host.example:8080/h?q');
  assert.equal(resolveHttpUrl('/g/../h?q#f', base).href, 'http://Host.example:8080/h?q');
  assert.equal(resolveHttpUrl('http://Host.example:8080/./x/../y', base).href, 'http://Host.example:8080/y');
  // The base's authority is a prefix of this one's, which is not a valid port.
  assert.throws(() => resolveHttpUrl('http://Host.example:80800/y', base), (err: unknown) => isCrawlerError(err) && err.code === 'ERR_INVALID_PORT');
});

test('a link resolved by the shortcut over the length cap fails as the general path says', () => {
  const base = parseHttpUrl('http://example.com/dir/');
  assert.throws(
    () => resolveHttpUrl('a'.repeat(30), base, 40),
    (err: unknown) => isCrawlerError(err) && err.code === 'ERR_URL_TOO_LONG' && err.message.startsWith('URL longer than 40 characters'),
  );
  assert.equal(resolveHttpUrl('a'.repeat(19), base, 42).href, `http://example.com/dir/${'a'.repeat(19)}`);
});
