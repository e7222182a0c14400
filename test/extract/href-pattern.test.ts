/** HrefPatternExtractor: the EE122 KeywordHunter spec's literal `a href="` matcher, quirks included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HrefPatternExtractor } from '../../src/extract/href-pattern.js';
import { generateCorpus } from '../../bench/synthetic-page.js';
import { assertLinear } from '../helpers/linear-time.js';

const extractor = new HrefPatternExtractor();
const hrefs = (html: string | Buffer): string[] => extractor.extract(typeof html === 'string' ? Buffer.from(html, 'utf8') : html).hrefs;

test('a double-quoted link: the text after a href=" up to the closing quote', () => {
  assert.deepEqual(hrefs('<p><a href="http://h/x.html">x</a></p>'), ['http://h/x.html']);
});

test('an empty link a href="" gives ""', () => {
  assert.deepEqual(hrefs('<a href="">self</a>'), ['']);
});

test('quirk: A HREF= (or any other case) is ignored', () => {
  assert.deepEqual(hrefs('<A HREF="/up"><a HREF="/mixed"><A href="/cap">'), []);
});

test('quirk: single-quoted and unquoted links are ignored', () => {
  assert.deepEqual(hrefs(`<a href='/single'><a href=/bare>`), []);
});

test('quirk: white space around = or extra spaces do not match', () => {
  assert.deepEqual(hrefs('<a href = "/spaced"><a  href="/two-spaces"><a\nhref="/newline">'), []);
});

test('quirk: a href=" inside an HTML comment is still a link', () => {
  assert.deepEqual(hrefs('<!-- <a href="/commented">old</a> -->'), ['/commented']);
});

test('quirk: the pattern is found anywhere: scripts, text, other attributes, area href', () => {
  const html = `<script>var s = '<a href="/in-script">';</script> text a href="/in-text" <area href="/area"> <abbr title="a" data-a href="/data">`;
  assert.deepEqual(hrefs(html), ['/in-script', '/in-text', '/area', '/data']);
});

test('two links on one line are both found, in order', () => {
  assert.deepEqual(hrefs('<a href="/one">1</a> | <a href="/two">2</a>\n<a href="/three">'), ['/one', '/two', '/three']);
});

test('an unclosed quote at the line end gives no link, and the next line is still searched', () => {
  assert.deepEqual(hrefs('<a href="/unclosed\n">x</a>\n<a href="/next">'), ['/next']);
});

test('an unclosed quote at EOF gives no link', () => {
  assert.deepEqual(hrefs('<a href="/a"> <a href="/never-closed'), ['/a']);
});

test('\\r\\n line ends: links on CRLF lines are found; a quote only on the next line still means no link', () => {
  assert.deepEqual(hrefs('<a href="/x">X</a>\r\n<a href="/y">Y</a>\r\n'), ['/x', '/y']);
  assert.deepEqual(hrefs('<a href="/x\r\n">'), []);
});

test('the link is everything up to the next quote, > and spaces included', () => {
  assert.deepEqual(hrefs('<a href="/a b>c" class="k">'), ['/a b>c']);
});

test('the search resumes after the closing quote: a href="a href=" yields "a href="', () => {
  assert.deepEqual(hrefs('<a href="x a href="y">'), ['x a href=']);
});

test('no entity decoding: &amp; and &#47; stay as written', () => {
  assert.deepEqual(hrefs('<a href="/a?b=1&amp;c=2&#47;">'), ['/a?b=1&amp;c=2&#47;']);
});

test('base is always undefined, even with <base href>', () => {
  const r = extractor.extract(Buffer.from('<base href="http://h/"><a href="/x">'));
  assert.deepEqual(r, { hrefs: ['/x'], base: undefined });
});

test('UTF-8 non-ASCII in a link is preserved; invalid bytes become U+FFFD and do not throw', () => {
  assert.deepEqual(hrefs('<a href="/Café/日本">'), ['/Café/日本']);
  const body = Buffer.concat([Buffer.from([0xff, 0xc3]), Buffer.from('<a href="/b'), Buffer.from([0xe9]), Buffer.from('x"> <a href="/ok">')]);
  assert.deepEqual(hrefs(body), ['/b\ufffdx', '/ok']);
});

test('pathological inputs stay linear: many unclosed patterns on one long line', () => {
  assert.deepEqual(hrefs('a href="'.repeat(1 << 18)), Array(1 << 17).fill('a href='));
  // Patterns 1 and 3 are closed by the quotes of patterns 2 and 4; pattern 5 never closes.
  assert.deepEqual(hrefs('a href="x'.repeat(5) + 'y'.repeat(1 << 21)), ['xa href=', 'xa href=']);
  assert.deepEqual(hrefs(('a href="' + 'z'.repeat(1000) + '\n').repeat(2000)), []);
  assertLinear(hrefs, [(n) => 'a href="'.repeat(n / 8), (n) => 'a href="x'.repeat(5) + 'y'.repeat(n), (n) => ('a href="' + 'z'.repeat(1000) + '\n').repeat(n / 1000)]);
});

/** A second, independent reading of the spec: per \n-line, a regular expression. */
function reference(body: Buffer): string[] {
  const out: string[] = [];
  for (const line of body.toString('latin1').split('\n')) {
    for (const m of line.matchAll(/a href="([^"]*)"/g)) out.push(Buffer.from(m[1]!, 'latin1').toString('utf8'));
  }
  return out;
}

test('differential: on 200 generated pages the links equal a line-by-line regular-expression reading of the spec', () => {
  let total = 0;
  for (const [k, page] of generateCorpus(200, 77).entries()) {
    const body = Buffer.from(page.html, 'utf8');
    const got = hrefs(body);
    assert.deepEqual(got, reference(body), `page ${k}`);
    total += got.length;
  }
  assert.ok(total > 2000, `only ${total} links`);
});
