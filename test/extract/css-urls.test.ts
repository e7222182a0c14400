/**
 * readCssUrls: url() and @import as CSS Syntax Level 3 tokenizes them (§4:
 * comments, strings, escapes, url tokens, bad urls and strings, numbers),
 * the @import placement rule browsers keep (css-cascade: before any rule
 * but @charset and @layer statements), image-set() strings, and what is
 * never fetched (data:, javascript:, empty, @namespace).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readCssUrls, type CssUrl } from '../../src/extract/css-urls.js';
import { createRandom } from '../../bench/synthetic-page.js';
import { assertLinear } from '../helpers/linear-time.js';

const urls = (css: string): string[] => readCssUrls(css).map((u) => u.raw);
const imports = (css: string): string[] => readCssUrls(css).filter((u) => u.kind === 'import').map((u) => u.raw);
const u = (raw: string): CssUrl => ({ raw, kind: 'url' });
const i = (raw: string): CssUrl => ({ raw, kind: 'import' });

// --- url() ------------------------------------------------------------------

test('url() unquoted, double-quoted, single-quoted, in document order', () => {
  assert.deepEqual(readCssUrls(`a { background: url(a.png) } b { background: url("b.png") } c { background: url('c.png') }`), [
    u('a.png'),
    u('b.png'),
    u('c.png'),
  ]);
});

test('whitespace inside url( ... ) around the URL, unquoted and quoted, including newlines and tabs', () => {
  assert.deepEqual(urls('x { a: url(  a.png  ); b: url(\n\t"b.png"\n); c: url( \'c.png\' ) }'), ['a.png', 'b.png', 'c.png']);
});

test('URL( and Url( in any letter case; a property name or value word "url" alone is not one', () => {
  assert.deepEqual(urls('x { a: URL(a.png); b: Url("b.png"); --url: 1; c: url }'), ['a.png', 'b.png']);
});

test('escapes in an unquoted url: \\) \\( \\  and hex escapes with their one trailing space', () => {
  assert.deepEqual(urls('x { a: url(a\\)b.png); b: url(c\\(d\\ e.png); c: url(\\66 oo.png); d: url(\\000066oo.png) }'), ['a)b.png', 'c(d e.png', 'foo.png', 'foo.png']);
});

test('hex escapes: 0, surrogates and beyond U+10FFFF become U+FFFD; an astral code point is kept', () => {
  assert.deepEqual(urls('x { a: url(a\\0 b); b: url(\\D800 c); d: url(\\110000 e); e: url(\\1F600 .png) }'), ['a\ufffdb', '\ufffdc', '\ufffde', '\u{1F600}.png']);
});

test('escapes in a quoted url: \\" inside "...", a line continuation, hex escapes', () => {
  assert.deepEqual(urls('x { a: url("a\\"b.png"); b: url("c\\\nd.png"); c: url(\'e\\27 f.png\') }'), ['a"b.png', 'cd.png', "e'f.png"]);
});

test('an escaped url( is still url( (\\75 rl(x), u\\72 l(x)), as the tokenizer decodes the ident first', () => {
  assert.deepEqual(urls('x { a: \\75 rl(a.png); b: u\\72 l("b.png"); c: \\55RL(c.png) }'), ['a.png', 'b.png', 'c.png']);
});

test('the url of @font-face src lists, without the format() and tech() strings', () => {
  const css = `@font-face { font-family: "F"; src: url(f.woff2) format("woff2") tech(variations), url('f.woff') format('woff'), local("F Local"); }`;
  assert.deepEqual(readCssUrls(css), [u('f.woff2'), u('f.woff')]);
});

test('url() in any property: cursor, mask, filter, list-style, border-image, custom properties', () => {
  const css = 'x { cursor: url(c.cur), auto; mask: url(m.svg#m); filter: url(f.svg#f); list-style: url(l.png); border-image: url(b.png) 30; --bg: url(v.png) }';
  assert.deepEqual(urls(css), ['c.cur', 'm.svg#m', 'f.svg#f', 'l.png', 'b.png', 'v.png']);
});

test('strings that are not URLs: content, font-family, quotes, attribute selectors, @charset', () => {
  assert.deepEqual(urls(`@charset "utf-8"; a[href="x.png"]::after { content: "y.png"; font-family: "z.png"; quotes: "a" "b" }`), []);
});

test('image-set() and -webkit-image-set(): their strings are URLs, every candidate; nested type() strings are not', () => {
  const css = `x { background-image: image-set("a.png" 1x, url(b.png) 2x, 'c.avif' type("image/avif")); y: -webkit-image-set("d.png" 1x, "e.png" 2x); z: IMAGE-SET("f.png" 1x) }`;
  assert.deepEqual(urls(css), ['a.png', 'b.png', 'c.avif', 'd.png', 'e.png', 'f.png']);
});

test('strings in other functions are not URLs (cross-fade, attr, var, format)', () => {
  assert.deepEqual(urls(`x { a: cross-fade("a.png", "b.png"); b: attr(data-x, "c.png"); c: var(--v, "d.png") }`), []);
});

// --- what is not a url -------------------------------------------------------

test('comments are skipped, an unclosed one to the end; inside an unquoted url a comment is part of the URL', () => {
  assert.deepEqual(urls('/* url(a.png) */ x { b: url(b.png) /* url(c.png) */ } /* url(d.png)'), ['b.png']);
  assert.deepEqual(urls('x { a: url(/*not-a-comment*/e.png) }'), ['/*not-a-comment*/e.png']);
});

test('bad urls (a space inside, a quote, a parenthesis, a control character) are dropped, and reading goes on after them', () => {
  assert.deepEqual(urls('x { a: url(a b.png); b: url(c"d.png); c: url(e(f.png); d: url(g\u0001.png); e: url(ok.png) }'), ['ok.png']);
});

test('the remnants of a bad url run to its ), honouring escapes (\\) does not end them)', () => {
  assert.deepEqual(urls('x { a: url(a b\\) url(nope.png)); b: url(ok.png) }'), ['ok.png']);
});

test('a backslash before a newline makes a url bad; a string with a raw newline is a bad string and is dropped', () => {
  assert.deepEqual(urls('x { a: url(a\\\nb.png); b: url(ok1.png) }'), ['ok1.png']);
  assert.deepEqual(urls('x { a: url("bad\n); b: url(ok2.png) }'), ['ok2.png']);
  // The newline ends the bad string without being part of it, so the
  // quote on the next line opens a new string, which runs to its mate.
  assert.deepEqual(urls('x { content: "bad\n.png"; b: url(ok3.png) }'), []);
});

test('a url or string cut off by the end of the stylesheet still counts (eof-in-url, eof-in-string)', () => {
  assert.deepEqual(urls('x { a: url(a.png'), ['a.png']);
  assert.deepEqual(urls('x { a: url("b.png'), ['b.png']);
  assert.deepEqual(urls('x { a: url( c.png  '), ['c.png']);
});

test('a number, dimension, hash or longer name before ( is no url: 1url(x) #url(x) -url(x) myurl(x) url-x(y)', () => {
  assert.deepEqual(urls('x { a: 1url(a.png); b: #url(b.png); c: -url(c.png); d: myurl(d.png); e: url-x(e.png); f: 1.5e3url(f.png) }'), []);
});

test('-- and - starting idents and CDC: --url(x) is a function, --> and <!-- are skipped', () => {
  assert.deepEqual(urls('<!-- x { a: --url(a.png); b: url(b.png) } -->'), ['b.png']);
});

test('empty URLs are dropped: url(), url(""), url(\'  \')', () => {
  assert.deepEqual(urls(`x { a: url(); b: url(""); c: url('  '); d: url(ok.png) }`), ['ok.png']);
});

test('data:, javascript:, about:, blob:, mailto: URLs are dropped, in any letter case; others stay', () => {
  const css = `x { a: url(data:image/png;base64,iVBORw0KGgo=); b: url("DATA:image/svg+xml,<svg/>"); c: url('javascript:alert(1)'); c2: url( JavaScript:void(0) ); d: url(about:blank); e: url(blob:https://h/1); f: url(mailto:x@y); g: url(https://h/ok.png); h: url(data.png); i: url(//cdn/x.png) }`;
  assert.deepEqual(urls(css), ['https://h/ok.png', 'data.png', '//cdn/x.png']);
});

test('CR, CRLF and FF are newlines and NUL is U+FFFD (preprocessing): a CRLF continues a string, NUL stays in the URL', () => {
  assert.deepEqual(urls('x { a: url("a\\\r\nb.png"); b: url(c\0d.png); c: url("e\fx") }'), ['ab.png', 'c\ufffdd.png']);
});

test('non-ASCII URLs and idents are kept as they are', () => {
  assert.deepEqual(urls('.café { background: url(bilder/straße.png) } .x { a: url("日本/🚀.png") }'), ['bilder/straße.png', '日本/🚀.png']);
});

// --- @import ----------------------------------------------------------------

test('@import with a string, url(), url("") and with media queries, layer() and supports()', () => {
  const css = `@import "a.css"; @import 'b.css' screen; @import url(c.css) print, screen and (min-width: 40em); @import url("d.css") layer(base) supports(display: grid); @import url( 'e.css' );`;
  assert.deepEqual(readCssUrls(css), [i('a.css'), i('b.css'), i('c.css'), i('d.css'), i('e.css')]);
});

test('@IMPORT in any letter case, even escaped (@\\69mport), and without a space before the string', () => {
  assert.deepEqual(imports('@IMPORT "a.css"; @Import"b.css"; @\\69mport "c.css";'), ['a.css', 'b.css', 'c.css']);
});

test('@import after @charset, other @imports, @layer statements, CDO/CDC, comments and unknown statements still counts', () => {
  const css = `@charset "utf-8"; /* c */ <!-- @layer base, theme; @import "a.css"; --> @unknown foo; @import url(b.css);`;
  assert.deepEqual(imports(css), ['a.css', 'b.css']);
});

test('@import after a style rule, a block at-rule or @layer with a block is ignored by browsers, so not read at all', () => {
  assert.deepEqual(readCssUrls('a { color: red } @import "late.css"; b { background: url(x.png) }'), [u('x.png')]);
  assert.deepEqual(readCssUrls('@media print { a { b: c } } @import url(late.css);'), []);
  assert.deepEqual(readCssUrls('@font-face { src: url(f.woff) } @import "late.css";'), [u('f.woff')]);
  assert.deepEqual(readCssUrls('@layer base { } @import "late.css";'), []);
  assert.deepEqual(readCssUrls('@layer base; @import "ok.css";'), [i('ok.css')]);
});

test('@import after @namespace is ignored; the @namespace URL itself is never read', () => {
  assert.deepEqual(readCssUrls('@import "a.css"; @namespace svg url(http://www.w3.org/2000/svg); @import "late.css"; svg|a { b: url(x.png) }'), [i('a.css'), u('x.png')]);
  assert.deepEqual(readCssUrls('@namespace "http://www.w3.org/1999/xhtml";'), []);
});

test('@import nested in a block is invalid: neither an import nor a url', () => {
  assert.deepEqual(readCssUrls('@media screen { @import url(n.css); a { b: url(x.png) } }'), [u('x.png')]);
});

test('text before @import that is not a rule start swallows it into a style rule prelude (`foo; @import` is no import)', () => {
  assert.deepEqual(readCssUrls('foo; @import "a.css"; x { }'), []);
});

test('only the first token of an @import prelude is its URL: url()s in a supports() condition are not read', () => {
  assert.deepEqual(readCssUrls('@import "a.css" supports(background: url(n.png)); @import foo "b.css";'), [i('a.css')]);
});

test('an @import of a data: URL or an empty one is dropped', () => {
  assert.deepEqual(readCssUrls('@import "data:text/css,a{}"; @import url(); @import ""; @import "ok.css";'), [i('ok.css')]);
});

test('url()s inside rules after the imports and in nested blocks; one in an @supports condition is read too (an extra fetch, never a missing one)', () => {
  const css = '@import "a.css"; @supports (background: url(s.png)) { @media (min-width: 1px) { x { y: url(b.png) } } } z { w: url(c.png) }';
  assert.deepEqual(readCssUrls(css), [i('a.css'), u('s.png'), u('b.png'), u('c.png')]);
});

test('a stray ) or ] or } does not close what it does not match; url()s after it are still read', () => {
  assert.deepEqual(urls('x { a: ) ] url(a.png) } } ] ) y { b: url(b.png) }'), ['a.png', 'b.png']);
});

// --- robustness -------------------------------------------------------------

test('never throws, and finds nothing or something, on every cut of a stylesheet full of edge cases', () => {
  const css = `@charset "x"; @import url("a.css") screen; x { a: url(b\\)c.png); b: image-set("d.png" 1x); c: "e\\\n"; } /* f */ @font-face { src: url(g.woff) format("woff") } h { i: url(j k) } @\\69mport "l";`;
  const full = urls(css);
  assert.deepEqual(full, ['a.css', 'b)c.png', 'd.png', 'g.woff']);
  for (let k = 0; k <= css.length; k++) {
    const part = urls(css.slice(0, k));
    assert.ok(Array.isArray(part));
    assert.ok(part.length <= full.length + 1, `cut at ${k}: ${JSON.stringify(part)}`);
  }
});

test('random bytes and random CSS-ish text never throw', () => {
  const random = createRandom(7);
  const rnd = (n: number): number => Math.floor(random() * n);
  const alphabet = ['url(', 'URL(', '"', "'", '\\', '\n', ' ', ')', '(', '@import', '{', '}', ';', '/*', '*/', 'a', '1', '-', '#', 'image-set(', ',', '\0', '\r', 'é', '\ud800'];
  for (let n = 0; n < 2000; n++) {
    let css = '';
    const len = rnd(60);
    for (let k = 0; k < len; k++) css += alphabet[rnd(alphabet.length)];
    assert.doesNotThrow(() => readCssUrls(css), JSON.stringify(css));
    assert.doesNotThrow(() => readCssUrls(String.fromCharCode(...Array.from({ length: len }, () => rnd(0x10000)))));
  }
});

test('pathological inputs stay linear (2 MB each, in CPU time)', () => {
  const cases = [(n: number) => 'url('.repeat(n / 4), (n: number) => '"'.repeat(n), (n: number) => '\\'.repeat(n), (n: number) => '/*'.repeat(n / 2), (n: number) => '('.repeat(n), (n: number) => '{'.repeat(n), (n: number) => '@import '.repeat(n / 8), (n: number) => 'url(a b'.repeat(n / 7), (n: number) => 'image-set('.repeat(n / 10)];
  assertLinear(readCssUrls, cases);
});
