/** http(s) URLs: validation, identity keys, scope and the fields both programs print. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parseHttpUrl, resolveHttpUrl } from '../../src/url/http-url.js';
import { prefixScope, sameOriginScope } from '../../src/url/scope.js';
import { hasNonHtmlExtension, isHtmlContentType } from '../../src/url/non-html.js';
import { isCrawlerError } from '../../src/errors.js';

test('identity: fragment dropped, scheme and host lower-cased, default port dropped, dot segments resolved', () => {
  const u = parseHttpUrl('HTTP://WWW.Example.COM:80/a/./b/../c.html?Q=1#frag');
  assert.equal(u.key, 'http://www.example.com/a/c.html?Q=1');
  assert.equal(u.host, 'WWW.Example.COM');
  assert.equal(u.port, 80);
  assert.equal(u.pathAndQuery, '/a/c.html?Q=1');
  assert.equal(parseHttpUrl('https://h:443/').key, 'https://h/');
  assert.equal(parseHttpUrl('http://h:8080/x').key, 'http://h:8080/x');
});

test('identity: path and query otherwise kept as written (no percent-decoding)', () => {
  assert.equal(parseHttpUrl('http://h/A%2fb?x=%41').key, 'http://h/A%2fb?x=%41');
  assert.notEqual(parseHttpUrl('http://h/A').key, parseHttpUrl('http://h/a').key);
});

test('target: the request target as it goes on the wire, carried with the URL; the key ends with it', () => {
  const plain = parseHttpUrl('http://h/a/b.html?x=1&y=%41');
  assert.equal(plain.target, '/a/b.html?x=1&y=%41');
  assert.equal(plain.target, plain.pathAndQuery);
  const raw = resolveHttpUrl('/caf\u00e9 "x"?q=a b', plain);
  assert.equal(raw.pathAndQuery, '/caf\u00e9 "x"?q=a b');
  assert.equal(raw.target, '/caf%C3%A9%20%22x%22?q=a%20b');
  assert.equal(raw.key, raw.origin + raw.target);
  assert.equal(parseHttpUrl('http://h').target, '/');
});

test('a URL without a path has path "/" and says so', () => {
  const u = parseHttpUrl('http://h');
  assert.equal(u.path, '/');
  assert.equal(u.pathWasEmpty, true);
  assert.equal(parseHttpUrl('http://h/').pathWasEmpty, false);
});

test('userinfo is dropped and never part of the key', () => {
  const u = parseHttpUrl('http://user:secret@h:81/p');
  assert.equal(u.key, 'http://h:81/p');
  assert.ok(!u.href.includes('secret'));
});

test('IDN hosts become punycode for the wire, host kept as written', () => {
  const u = parseHttpUrl('http://bücher.example/');
  assert.equal(u.hostname, 'xn--bcher-kva.example');
  assert.equal(u.host, 'bücher.example');
});

for (const [bad, code] of [
  ['ftp://h/x', 'ERR_UNSUPPORTED_SCHEME'],
  ['mailto:a@b', 'ERR_UNSUPPORTED_SCHEME'],
  ['/relative', 'ERR_UNSUPPORTED_SCHEME'],
  ['http://h:0/', 'ERR_INVALID_PORT'],
  ['http://h:65536/', 'ERR_INVALID_PORT'],
  ['http://h:8x/', 'ERR_INVALID_PORT'],
  ['http:///path', 'ERR_INVALID_HOST'],
  ['http://a b/', 'ERR_INVALID_HOST'],
  ['http://h<x>/', 'ERR_INVALID_HOST'],
  ['http://[::1/', 'ERR_INVALID_HOST'],
  ['http://' + 'a'.repeat(3000) + '/', 'ERR_URL_TOO_LONG'],
] as const) {
  test(`invalid URL ${bad.slice(0, 40)} is rejected with ${code}`, () => {
    assert.throws(() => parseHttpUrl(bad), (e: unknown) => isCrawlerError(e, code));
  });
}

test('links: surrounding blanks trimmed, tab/CR/LF inside removed (as browsers do)', () => {
  const base = parseHttpUrl('http://h/dir/page.html');
  assert.equal(resolveHttpUrl('  a\r\nb.html\t ', base).key, 'http://h/dir/ab.html');
});

test('links resolve against the page, host as written kept for printing', () => {
  const base = parseHttpUrl('http://Www.MyPhotos.com/photos/january.html');
  const u = resolveHttpUrl('february.html', base);
  assert.equal(u.host, 'Www.MyPhotos.com');
  assert.equal(u.pathAndQuery, '/photos/february.html');
  assert.equal(resolveHttpUrl('../x/./y.html#f', base).pathAndQuery, '/x/y.html');
  assert.equal(resolveHttpUrl('//other:81/z', base).key, 'http://other:81/z');
  assert.equal(resolveHttpUrl('?q=1', base).pathAndQuery, '/photos/january.html?q=1');
});

test('IPv6 literal hosts', () => {
  const u = parseHttpUrl('http://[::1]:8080/x');
  assert.equal(u.hostname, '::1');
  assert.equal(u.key, 'http://[::1]:8080/x');
});

test('scope: same origin means same scheme, host and port', () => {
  const inScope = sameOriginScope(parseHttpUrl('http://h:8080/a'));
  assert.equal(inScope(parseHttpUrl('http://H:8080/b')), true);
  assert.equal(inScope(parseHttpUrl('http://h:8081/b')), false);
  assert.equal(inScope(parseHttpUrl('https://h:8080/b')), false);
  assert.equal(inScope(parseHttpUrl('http://other:8080/b')), false);
});

test('scope: --internal PREFIX designates a server or a path prefix', () => {
  const server = prefixScope('http://h:8080');
  assert.equal(server(parseHttpUrl('http://h:8080/anything')), true);
  assert.equal(server(parseHttpUrl('http://h:8081/anything')), false);
  const dir = prefixScope('http://h/tse/');
  assert.equal(dir(parseHttpUrl('http://h/tse/letters/a.html')), true);
  assert.equal(dir(parseHttpUrl('http://h/other/a.html')), false);
});

test('non-HTML extensions are recognised; pages are not', () => {
  for (const p of ['/a.png', '/b/c.PDF', '/x.tar.gz', '/m.mp4', '/s.css']) assert.equal(hasNonHtmlExtension(p), true, p);
  for (const p of ['/', '/a.html', '/b.htm', '/c.php', '/dir.v2/', '/noext', '/.hidden']) assert.equal(hasNonHtmlExtension(p), false, p);
});

test('Content-Type: HTML or absent is a page; anything else is not', () => {
  assert.equal(isHtmlContentType(undefined), true);
  assert.equal(isHtmlContentType('text/html; charset=ISO-8859-1'), true);
  assert.equal(isHtmlContentType('Application/XHTML+XML'), true);
  assert.equal(isHtmlContentType('image/png'), false);
  assert.equal(isHtmlContentType('text/plain'), false);
});

test('memory: an origin parsed from a link does not keep the page it was found on (the authority cache holds copies)', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const base = parseHttpUrl('http://127.0.0.1:8080/dir/page.html');
  gc();
  const before = process.memoryUsage().heapUsed;
  const origins: string[] = [];
  for (let i = 0; i < 40; i++) {
    // A link is a slice of its page's text, as the extractors give it.
    const page = `${'x'.repeat(1 << 20)}<a href="http://host${i}.example.org:8080/p.html">`;
    const link = page.slice(page.indexOf('http://'), page.length - 2);
    origins.push(resolveHttpUrl(link, base).origin);
  }
  gc();
  const grown = (process.memoryUsage().heapUsed - before) / 1048576;
  assert.equal(origins.length, 40);
  assert.ok(grown < 10, `40 origins keep ${grown.toFixed(1)} MiB: their 1 MiB pages are still referenced`);
});
