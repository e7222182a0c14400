/** HtmlLinkExtractor: every way of writing `<a href>`, everything that must hide one, and htmlparser2 as an oracle. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'htmlparser2';
import { HtmlLinkExtractor } from '../../src/extract/html.js';
import { generateCorpus, generatePage, syntheticLinks } from '../../bench/synthetic-page.js';
import { conformancePath, loadConformance } from '../helpers/conformance.js';
import { assertLinear } from '../helpers/linear-time.js';

const extractor = new HtmlLinkExtractor();
const hrefs = (html: string | Buffer): string[] => extractor.extract(typeof html === 'string' ? Buffer.from(html, 'utf8') : html).hrefs;
const base = (html: string): string | undefined => extractor.extract(Buffer.from(html, 'utf8')).base;

// --- the forms of <a href> -------------------------------------------------

test('double-quoted href', () => {
  assert.deepEqual(hrefs('<p><a href="/x.html">x</a></p>'), ['/x.html']);
});

test('single-quoted href (may contain double quotes)', () => {
  assert.deepEqual(hrefs(`<a href='/a"b'>x</a>`), ['/a"b']);
});

test('unquoted href ends at whitespace or >', () => {
  assert.deepEqual(hrefs('<a href=A.html>A</a> <a href=/b?c=d class=x>'), ['A.html', '/b?c=d']);
});

test('upper and mixed case tag and attribute names: <A HREF=>, <a HrEf=>', () => {
  assert.deepEqual(hrefs('<A HREF="/up">U</A><a HrEf=\'/mixed\'>'), ['/up', '/mixed']);
});

test('white space around = (spaces, tabs, newlines)', () => {
  assert.deepEqual(hrefs('<a href = "/one"><a href\t=\n\'/two\'><a href=\n/three>'), ['/one', '/two', '/three']);
});

test('other attributes before and after href, including ones that contain > and href=', () => {
  const html = `<a class="nav" title="a > b, href='/nope'" data-href="/nope2" href="/yes" rel=nofollow>`;
  assert.deepEqual(hrefs(html), ['/yes']);
});

test('a tag split across lines works (<a\\nhref="x">), and so does a value with a newline inside', () => {
  assert.deepEqual(hrefs('<a\nhref="x">'), ['x']);
  assert.deepEqual(hrefs('<a\n  class="c"\n  href="/a\nb">'), ['/a\nb']);
});

test('a stray = before an attribute name starts that name (spec), so <a = href=x> still has href x', () => {
  assert.deepEqual(hrefs('<a = href=x><a =href=y>'), ['x']);
});

test('the slash of <a/href="x"> separates like white space; <a href="x"/> is fine', () => {
  assert.deepEqual(hrefs('<a/href="/s1"><a href="/s2"/>'), ['/s1', '/s2']);
});

test('<a> without href gives nothing; href="", href=\'\', href= and bare href give ""', () => {
  assert.deepEqual(hrefs('<a name="top">x</a><a id=y>'), []);
  assert.deepEqual(hrefs(`<a href=""><a href=''><a href=><a href><a class="x" href id="e">`), ['', '', '', '', '']);
});

test('the first href attribute of a tag wins (duplicates dropped, as HTML does)', () => {
  assert.deepEqual(hrefs('<a href="/first" href="/second">'), ['/first']);
  assert.deepEqual(hrefs('<a HREF="/first" href="/second">'), ['/first']);
});

test('links come out in document order, several per line', () => {
  assert.deepEqual(hrefs('<a href=1><a href="2"></a><b><a href=\'3\'></b>'), ['1', '2', '3']);
});

// --- character references ---------------------------------------------------

test('entities: &amp; &#38; &#x26; &#X26; &AMP; all decode to &', () => {
  assert.deepEqual(hrefs('<a href="?a=1&amp;b=2&#38;c=3&#x26;d=4&#X26;e=5&AMP;f=6">'), ['?a=1&b=2&c=3&d=4&e=5&f=6']);
});

test('entities: &quot; in a double-quoted value, &apos; &lt; &gt; &nbsp;', () => {
  assert.deepEqual(hrefs('<a href="/&quot;q&quot;/&apos;/&lt;&gt;/a&nbsp;b">'), ['/"q"/\'/<>/a\u00a0b']);
});

test('entities: the full WHATWG table, including names beyond Latin-1 and two-character results', () => {
  assert.deepEqual(hrefs('<a href="/caf&eacute;/&Afr;/&hellip;/&NotEqualTilde;/&CounterClockwiseContourIntegral;">'), [
    '/café/\u{1D504}/…/\u2242\u0338/\u2233',
  ]);
});

test('numeric references: no ; needed, C1 controls remapped, NUL/surrogates/out of range become U+FFFD', () => {
  assert.deepEqual(hrefs('<a href="&#47x&#150;&#x80;&#0;&#xD800;&#x110000;&#99999999999999;&#x1F600;">'), [
    '/x\u2013\u20ac\ufffd\ufffd\ufffd\ufffd\u{1F600}',
  ]);
});

test('numeric references without digits stay literal: &# and &#x;', () => {
  assert.deepEqual(hrefs('<a href="/a&#;b&#x;c&#xg">'), ['/a&#;b&#x;c&#xg']);
});

test('no-semicolon rule: a legacy name followed by = or an alphanumeric stays literal in an attribute', () => {
  assert.deepEqual(hrefs('<a href="?x=1&copy=2&notit=3&amp=4&lang=en&notify">'), ['?x=1&copy=2&notit=3&amp=4&lang=en&notify']);
});

test('no-semicolon rule: a legacy name followed by anything else, or at the end, decodes', () => {
  assert.deepEqual(hrefs('<a href="/a&amp/b&copy.c&lt">'), ['/a&/b©.c<']);
});

test('attribute-value edge cases: &notit; stays, &notin; decodes, one level of &amp;, a non-ASCII letter ends a legacy name', () => {
  // htmlparser2 decodes with the same entities package, so these expected
  // values, read off the WHATWG tokenizer, are the independent check.
  assert.deepEqual(hrefs('<a href="/&notit;/&notin;/&amp;amp;/&ampx/&lt=/&lt\u00e9">'), ['/&notit;/\u2209/&amp;/&ampx/&lt=/<\u00e9']);
});

test('numeric edge cases: C1 without a Windows-1252 meaning is kept, leading zeros, thousands of digits, U+10FFFF', () => {
  const digits = '9'.repeat(3000);
  assert.deepEqual(hrefs(`<a href="/&#x81;/&#128;/&#00065;/&#${digits};/&#xdfff/&#1114111;">`), ['/\u0081/\u20ac/A/\ufffd/\ufffd/\u{10FFFF}']);
});

test('names that need a ; do not decode without one; unknown names stay literal', () => {
  assert.deepEqual(hrefs('<a href="/&hellip/&bogus;/&;/&">'), ['/&hellip/&bogus;/&;/&']);
});

test('character references are decoded in unquoted values too', () => {
  assert.deepEqual(hrefs('<a href=/a&amp;b&#x3D;c>'), ['/a&b=c']);
});

// --- white space, line ends, bytes -----------------------------------------

test('leading and trailing ASCII white space is stripped, inner and non-ASCII spaces kept', () => {
  assert.deepEqual(hrefs('<a href=" \t\n /a b \f\r\n">'), ['/a b']);
  assert.deepEqual(hrefs('<a href="&nbsp;/x&nbsp;">'), ['\u00a0/x\u00a0']);
  assert.deepEqual(hrefs('<a href="&#32;/y&#9;">'), ['/y']);
  assert.deepEqual(hrefs('<a href="\u00a0/z\u2003">'), ['\u00a0/z\u2003'], 'raw non-ASCII spaces are kept too');
});

test('CRLF and lone CR in a value become LF (input stream preprocessing), &#13; stays CR; NUL becomes U+FFFD', () => {
  assert.deepEqual(hrefs('<a href="/a\r\nb\rc&#13;d\0e">'), ['/a\nb\nc\rd\ufffde']);
  assert.deepEqual(hrefs('<a href="/a\r\nb\rc">'), ['/a\nb\nc']);
  assert.deepEqual(hrefs('<a href="/d\0e">'), ['/d\ufffde']);
});

test('UTF-8 non-ASCII in an href is preserved', () => {
  assert.deepEqual(hrefs('<a href="/wiki/Café/日本語/🚀">'), ['/wiki/Café/日本語/🚀']);
});

test('non-UTF-8 bytes around links do not throw and ASCII links are still found; inside an href they become U+FFFD', () => {
  const body = Buffer.concat([
    Buffer.from([0xff, 0xfe, 0xe9, 0x3c, 0xc3]),
    Buffer.from('<p>caf'),
    Buffer.from([0xe9, 0x80, 0x81]),
    Buffer.from('</p><a href="/ok">'),
    Buffer.from([0xc0, 0xaf, 0xff]),
    Buffer.from('<a href="/bad'),
    Buffer.from([0xe9]),
    Buffer.from('x">'),
  ]);
  assert.deepEqual(hrefs(body), ['/ok', '/bad\ufffdx']);
});

// --- base -------------------------------------------------------------------

test('<base href>: the first base with an href wins; a base without href is skipped', () => {
  assert.equal(base('<base target="_blank"><base href="https://h/first/"><base href="/second/">'), 'https://h/first/');
  assert.equal(base('<a href="/x">'), undefined);
  assert.equal(base('<base target="_top">'), undefined);
});

test('<base href> is decoded and trimmed like a link, counts anywhere in the page, and is not a link', () => {
  const r = extractor.extract(Buffer.from('<a href="/x"><BASE HREF=" http://h/?a=1&amp;b=2 ">'));
  assert.deepEqual(r, { hrefs: ['/x'], base: 'http://h/?a=1&b=2' });
});

test('a <base href> inside a comment or a script does not count', () => {
  assert.equal(base('<!-- <base href="/c/"> --><script>"<base href=/s/>"</script><base href="/real/">'), '/real/');
});

// --- where links are not ----------------------------------------------------

test('nothing from a comment', () => {
  assert.deepEqual(hrefs('<!-- <a href="/nope">old</a> --><a href="/yes">'), ['/yes']);
});

test('abruptly closed empty comments <!--> and <!---> end right there', () => {
  assert.deepEqual(hrefs('<!--><a href="/a"><!---><a href="/b">'), ['/a', '/b']);
});

test('comment ends: --> after extra dashes, --!>, <!---->; -- alone does not end it', () => {
  assert.deepEqual(hrefs('<!-- x -- <a href="/n1"> ---><a href="/a">'), ['/a']);
  assert.deepEqual(hrefs('<!-- x --!><a href="/b"><!----><a href="/c">'), ['/b', '/c']);
  assert.deepEqual(hrefs('<!-- x --!--><a href="/d">'), ['/d']);
  assert.deepEqual(hrefs('<!-- <!-- nested <a href="/n2"> --><a href="/e">'), ['/e']);
});

test('an unterminated comment runs to EOF: nothing after it', () => {
  assert.deepEqual(hrefs('<a href="/before"><!-- never closed <a href="/nope"> -- >'), ['/before']);
});

test('script: "<a href=\'x\'>" inside a JS string is not a link', () => {
  const html = `<script>var s = "<a href='/nope'>x</a>"; if (a < b) {} var t = '</scr' + 'ipt>';</script><a href="/yes">`;
  assert.deepEqual(hrefs(html), ['/yes']);
});

test('script ends only at </script followed by space, / or >, in any case (</SCRIPT>, </Script >)', () => {
  assert.deepEqual(hrefs('<script>x</scripty><a href="/n1"></SCRIPT><a href="/a">'), ['/a']);
  assert.deepEqual(hrefs('<SCRIPT type="text/javascript">"<a href=/n2>"</Script ><a href="/b">'), ['/b']);
  assert.deepEqual(hrefs('<script>"<a href=/n3>"</script/><a href="/c">'), ['/c']);
});

test('an unterminated script hides the rest of the page', () => {
  assert.deepEqual(hrefs('<a href="/a"><script>var x = 1; <a href="/nope">'), ['/a']);
});

test('style contents are not markup', () => {
  assert.deepEqual(hrefs(`<style>a[href^="x"]::after { content: "<a href='/nope'>" }</style><a href="/yes">`), ['/yes']);
});

test('textarea and title (RCDATA) contents are not markup', () => {
  assert.deepEqual(hrefs('<title>T <a href="/n1"></title><textarea><a href="/n2"></TEXTAREA><a href="/yes">'), ['/yes']);
});

test('xmp, iframe, noembed and noframes are raw text too; after <plaintext> everything is text', () => {
  const html = '<xmp><a href=/n1></xmp><iframe><a href=/n2></iframe><noembed><a href=/n3></noembed><noframes><a href=/n4></noframes><a href=/a><plaintext></plaintext><a href=/n5>';
  assert.deepEqual(hrefs(html), ['/a']);
});

test('<![CDATA[ ... ]]>, <!DOCTYPE ...> and <?...> hide what is inside them', () => {
  assert.deepEqual(hrefs('<![CDATA[ x > <a href="/n1"> ]]><a href="/a">'), ['/a']);
  assert.deepEqual(hrefs('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0//EN" "x.dtd"><a href="/b">'), ['/b']);
  assert.deepEqual(hrefs('<?xml-stylesheet href="/n2"?><! bogus <a href="/n3" ><a href="/c">'), ['/c']);
});

test('an unterminated tag at EOF is dropped (eof-in-tag): <a href="x" and <a href="x without quote', () => {
  assert.deepEqual(hrefs('<a href="/a"><a href="/b"'), ['/a']);
  assert.deepEqual(hrefs('<a href="/a"><a href="/b'), ['/a']);
  assert.deepEqual(hrefs('<a href="/a"><a href=/b'), ['/a']);
  assert.deepEqual(hrefs('<a href="/a"><a'), ['/a']);
});

test('only <a>: <area href> and <link href> are NOT extracted (by design), nor other elements with href', () => {
  const html = '<link rel="next" href="/n1"><map><area shape=rect href="/n2"></map><img href="/n3"><a href="/a">';
  assert.deepEqual(hrefs(html), ['/a']);
});

test('<abbr href>, <aside href>, <address href> are not confused with <a', () => {
  assert.deepEqual(hrefs('<abbr href="/n1">x</abbr><aside href=/n2><address href=\'/n3\'><a href="/a">'), ['/a']);
});

test('other one-letter elements with href (<b>, <p>, <i>) are not <a>', () => {
  assert.deepEqual(hrefs('<b href="/n1"><p href=/n2><I HREF="/n3"><a href="/a">'), ['/a']);
});

test('end tags are not links, and their quoted attribute values may hold >', () => {
  assert.deepEqual(hrefs(`</a href="/n1"></p title="> <a href='/n2'> "><a href="/a">`), ['/a']);
});

test('< not followed by a letter, !, / or ? is text; </ + non-letter is a bogus comment', () => {
  assert.deepEqual(hrefs('1 < 2 <3 <<a href="/a"> </ x <a href="/n"> > </><a href="/b">'), ['/a', '/b']);
});

// --- robustness and oracles --------------------------------------------------

test('pathological inputs stay linear (2 MB each, in CPU time)', () => {
  const cases = [(n: number) => '<!--' + '-- '.repeat(n / 3), (n: number) => '<script>' + '</'.repeat(n / 2), (n: number) => '<'.repeat(n), (n: number) => '<a x'.repeat(n / 4), (n: number) => '<a href="x'.repeat(n / 10)];
  assertLinear(hrefs, cases);
});

/** The oracle: htmlparser2's Parser, every <a> start tag with an href attribute, trimmed like ours. */
function oracle(html: string): { hrefs: string[]; base: string | undefined } {
  const trim = (s: string): string => s.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
  const found: string[] = [];
  let b: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (name === 'a' && attribs['href'] !== undefined) found.push(trim(attribs['href']));
        if (name === 'base' && attribs['href'] !== undefined && b === undefined) b = trim(attribs['href']);
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return { hrefs: found, base: b };
}

test('differential: on 400 generated pages the hrefs and base equal htmlparser2 and the links the generator wrote', () => {
  let links = 0;
  for (const [k, page] of generateCorpus(400, 2024).entries()) {
    const ours = extractor.extract(Buffer.from(page.html, 'utf8'));
    assert.deepEqual(ours, oracle(page.html), `page ${k}: differs from htmlparser2`);
    assert.deepEqual(ours, { hrefs: page.links, base: page.base }, `page ${k}: differs from the generator's links`);
    links += ours.hrefs.length;
  }
  assert.ok(links > 400 * 10, `only ${links} links`);
});

test('differential: the oracle is sensitive (it sees links the extractor must skip when markup is broken up)', () => {
  // Guards the differential test against a vacuous oracle: cut a page in the
  // middle of a comment and both must still agree, on a different answer.
  const html = generatePage(5, syntheticLinks(5, 20));
  const cut = html.slice(0, html.indexOf('<a ', html.length / 2));
  assert.deepEqual(hrefs(cut), oracle(cut).hrefs);
  assert.ok(hrefs(cut).length < 20);
  assert.equal(generatePage(5, syntheticLinks(5, 20)), html, 'the generator is deterministic');
});

interface LettersExpected {
  seed: string;
  by_maxDepth: Record<string, { page_count: number; files_bfs_order: Array<{ url: string; depth: number }> }>;
}

test('conformance: crawling the CS50 letters pages through the extractor reaches the expected pages at each depth', () => {
  const site = conformancePath('cs50-letters/site');
  const expected = loadConformance<LettersExpected>('cs50-letters/expected.json');
  const prefix = 'http://cs50tse.cs.dartmouth.edu/tse/letters/';
  const files = new Set(readdirSync(join(site, 'tse', 'letters')));
  const depth = new Map<string, number>([[expected.seed, 0]]);
  const queue = [expected.seed];
  while (queue.length > 0) {
    const url = queue.shift()!;
    const name = url.slice(prefix.length);
    if (!url.startsWith(prefix) || !files.has(name)) continue; // off-site (Wikipedia) links are not fetched
    const r = extractor.extract(readFileSync(join(site, 'tse', 'letters', name)));
    for (const href of r.hrefs) {
      const next = new URL(href, r.base === undefined ? url : new URL(r.base, url)).href;
      if (next.startsWith(prefix) && !depth.has(next)) {
        depth.set(next, depth.get(url)! + 1);
        queue.push(next);
      }
    }
  }
  const deepest = expected.by_maxDepth['10']!;
  assert.deepEqual(
    [...depth].map(([url, d]) => ({ url, depth: d })).sort((a, b) => a.url.localeCompare(b.url)),
    deepest.files_bfs_order.map(({ url, depth: d }) => ({ url, depth: d })).sort((a, b) => a.url.localeCompare(b.url)),
  );
});
