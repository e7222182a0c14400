/**
 * The requisite reader (src/extract/requisites.ts) on HTML, and the CSS
 * reader (css-urls.ts, css-decode.ts) it and the fetcher use: every element
 * and attribute the module comment lists, the tokenizer rules the link
 * extractor follows (comments, raw text, first attribute wins, entities),
 * what is never a requisite (anchors, frames, data: and javascript: URLs),
 * srcset candidates, @import placement, escapes, and bytes that are no
 * HTML or CSS at all (never a throw).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readRequisites } from '../../src/extract/requisites.js';
import { readCssUrls } from '../../src/extract/css-urls.js';
import { decodeCss } from '../../src/extract/css-decode.js';
import { HtmlLinkExtractor } from '../../src/extract/html.js';

const read = (html: string): Array<[string, string]> => readRequisites(Buffer.from(html)).refs.map((r) => [r.kind, r.raw]);
const css = (text: string): Array<[string, string]> => readCssUrls(text).map((u) => [u.kind, u.raw]);

test('every element and attribute the reader lists, in document order, with its kind', () => {
  const html = `<html><head>
<link rel="stylesheet" href="/s.css"><link rel="Shortcut Icon" href="/f.ico"><link rel=preload href=/font.woff2 as=font>
<link rel="modulepreload" href="/m.js"><link rel="manifest" href="/app.webmanifest"><link rel="canonical" href="/other.html">
<script src="/a.js"></script><style>body { background: url(bg.png) } </style></head><body>
<img src="/i.png" srcset="/i-2x.png 2x, /i-3x.png 3x"><picture><source srcset="/p.webp"><img src="/p.png"></picture>
<video src="/v.mp4" poster="/v.jpg"><source src="/v.webm"><track src="/v.vtt"></video><audio src="/a.mp3"></audio>
<input type="IMAGE" src="/button.png"><input type="text" src="/not.png"><object data="/o.svg"></object><embed src="/e.swf">
<div style="background-image: url('/d.png')">x</div><a href="/page.html">page</a><iframe src="/frame.html"></iframe>
</body></html>`;
  assert.deepEqual(read(html), [
    ['stylesheet', '/s.css'],
    ['icon', '/f.ico'],
    ['preload', '/font.woff2'],
    ['modulepreload', '/m.js'],
    ['manifest', '/app.webmanifest'],
    ['script', '/a.js'],
    ['style-url', 'bg.png'],
    ['image', '/i.png'],
    ['image', '/i-2x.png'],
    ['image', '/i-3x.png'],
    ['image', '/p.webp'],
    ['image', '/p.png'],
    ['media', '/v.mp4'],
    ['image', '/v.jpg'],
    ['media', '/v.webm'],
    ['track', '/v.vtt'],
    ['media', '/a.mp3'],
    ['image', '/button.png'],
    ['object', '/o.svg'],
    ['object', '/e.swf'],
    ['style-url', '/d.png'],
  ]);
});

test('never requisites: anchors, frames, iframes, other rels, and data:, javascript:, about:, blob:, mailto: or empty URLs', () => {
  const html = `<a href="/x.png">x</a><frame src="/f.html"><iframe src="/i.html"></iframe><link rel="prefetch" href="/n.html"><link rel="next" href="/2.html">
<img src="data:image/png;base64,AAAA"><img src="javascript:alert(1)"><script src="about:blank"></script><img src="blob:x"><img src="mailto:a@b"><img src=""><img src="  ">`;
  assert.deepEqual(read(html), []);
});

test('the link extractor\'s tokenizer rules: comments and raw text hold no tags, the first of two attributes counts, entities are decoded, whitespace trimmed', () => {
  const html = `<!-- <img src="/in-comment.png"> --><script>document.write('<img src="/in-script.png">')</script>
<textarea><img src="/in-textarea.png"></textarea><title><img src="/in-title.png"></title>
<IMG SRC="/first.png" src="/second.png"><img src=" /a&amp;b.png?x=1&amp;y=2 "><img src=/unquoted.png alt=x>
<noscript><img src="/noscript.png"></noscript>`;
  assert.deepEqual(read(html), [
    ['image', '/first.png'],
    ['image', '/a&b.png?x=1&y=2'],
    ['image', '/unquoted.png'],
    ['image', '/noscript.png'],
  ]);
  // The link extractor sees the same tags: none in the comment, script or raw text.
  const links = new HtmlLinkExtractor().extract(Buffer.from('<!-- <a href="/c"> --><script>"<a href=/s>"</script><a href="/real">r</a>')).hrefs;
  assert.deepEqual(links, ['/real']);
});

test('<base href>: the first one is returned, unresolved, for the caller to resolve against', () => {
  const found = readRequisites(Buffer.from('<head><base href="https://cdn.example/static/"><base href="/ignored/"><link rel=stylesheet href="s.css"></head>'));
  assert.equal(found.base, 'https://cdn.example/static/');
  assert.deepEqual(found.refs.map((r) => r.raw), ['s.css']);
  assert.equal(readRequisites(Buffer.from('<img src=a.png>')).base, undefined);
});

test('srcset: every candidate, URLs with commas inside, descriptors dropped, invalid candidates left out', () => {
  assert.deepEqual(read('<img srcset="a.png 1x,b.png 2x , c,d.png 300w, e.png">').map(([, u]) => u), ['a.png', 'b.png', 'c,d.png', 'e.png']);
  assert.deepEqual(read('<img srcset="  ,, a.png 1x,  ">').map(([, u]) => u), ['a.png']);
});

test('CSS: url() in every form, escapes decoded, @font-face sources, image-set strings; not comments, format() or content strings', () => {
  assert.deepEqual(
    css(`/* url(no.png) */ a { background: URL( "q.png" ) } b { background: url(a\\)b.png) }
@font-face { src: url(f.woff2) format("woff2"), url('f.woff') format('woff') }
c { background-image: image-set("x1.png" 1x, "x2.png" 2x); content: "not-a-url.png" } d { background: url() } e { background: url(data:image/png;base64,AA) }`),
    [
      ['url', 'q.png'],
      ['url', 'a)b.png'],
      ['url', 'f.woff2'],
      ['url', 'f.woff'],
      ['url', 'x1.png'],
      ['url', 'x2.png'],
    ],
  );
});

test('CSS @import: string and url() forms, with media and layer, only before the first rule; a late @import is ignored as browsers ignore it', () => {
  assert.deepEqual(
    css(`@charset "utf-8";\n@import "a.css";\n@IMPORT url(b.css) screen;\n@import url("c.css") layer(x) supports(display: grid);\n@layer base, theme;\n@import 'd.css';\np { color: red }\n@import "late.css";`),
    [
      ['import', 'a.css'],
      ['import', 'b.css'],
      ['import', 'c.css'],
      ['import', 'd.css'],
    ],
  );
  assert.deepEqual(css('@media print { a { background: url(m.png) } } @import "after-block.css";'), [['url', 'm.png']]);
});

test('CSS bytes to text: a BOM, @charset, the HTTP charset, UTF-8 by default, latin-1', () => {
  assert.equal(decodeCss(Buffer.from('\uFEFFa { }', 'utf8')), 'a { }');
  assert.equal(decodeCss(Buffer.from('p { content: "é" }', 'latin1'), 'iso-8859-1'), 'p { content: "é" }');
  assert.equal(decodeCss(Buffer.from('@charset "iso-8859-1"; p { content: "é" }', 'latin1')).includes('é'), true);
  assert.equal(decodeCss(Buffer.from('p { content: "é" }', 'utf8')), 'p { content: "é" }');
});

test('bytes that are no HTML or CSS: never a throw', () => {
  for (let i = 0; i < 200; i++) {
    const b = randomBytes(1 + (i * 37) % 4000);
    readRequisites(b);
    readCssUrls(b.toString('latin1'));
  }
  for (const s of ['<img src="unterminated', '<style>a { background: url(', '<link rel=stylesheet href', '<', '<!--', 'url(', '@import', '@import "x']) {
    readRequisites(Buffer.from(s));
    readCssUrls(s);
  }
});
