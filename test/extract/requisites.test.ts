/**
 * readRequisites: the URLs a page needs to be displayed (issue 44), element
 * by element as the module comment's table lists them; srcset by the HTML
 * spec's "parse a srcset attribute"; what is never a requisite; the
 * tokenizer's rules it shares with the link extractor (the two are run over
 * the same tricky markup and must agree on which tags exist); and
 * htmlparser2 as an independent HTML reader on a realistic Sphinx page and
 * 400 generated pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Parser } from 'htmlparser2';
import { readCssUrls } from '../../src/extract/css-urls.js';
import { HtmlLinkExtractor } from '../../src/extract/html.js';
import { readRequisites, type Requisite, type RequisiteKind, type Requisites } from '../../src/extract/requisites.js';
import { srcsetUrls } from '../../src/extract/srcset.js';
import { createRandom, generateCorpus } from '../../bench/synthetic-page.js';
import { SPHINX_PAGE, SPHINX_REQUISITES } from '../helpers/requisite-pages.js';
import { assertLinear } from '../helpers/linear-time.js';

const read = (html: string | Buffer): Requisites => readRequisites(typeof html === 'string' ? Buffer.from(html, 'utf8') : html);
const refs = (html: string | Buffer): Requisite[] => read(html).refs;
const raws = (html: string | Buffer): string[] => refs(html).map((r) => r.raw);
const r = (raw: string, kind: RequisiteKind): Requisite => ({ raw, kind });

// --- each element -------------------------------------------------------------

test('<link rel=stylesheet href> in any letter case, with other attributes around it', () => {
  assert.deepEqual(refs('<link rel="stylesheet" href="a.css"><LINK REL=STYLESHEET HREF=b.css><link type="text/css" href=\'c.css\' media=print rel=Stylesheet>'), [
    r('a.css', 'stylesheet'),
    r('b.css', 'stylesheet'),
    r('c.css', 'stylesheet'),
  ]);
});

test('rel is a set of tokens separated by any ASCII whitespace; "stylesheets" or "my-icon" is no token', () => {
  assert.deepEqual(refs('<link rel="\tstylesheet\n" href=a.css><link rel="stylesheets" href=n1.css><link rel="my-icon" href=n2.ico><link rel=" " href=n3>'), [r('a.css', 'stylesheet')]);
});

test('alternate and disabled stylesheets are read (a user or script may switch them on)', () => {
  assert.deepEqual(raws('<link rel="alternate stylesheet" title="Dark" href="dark.css"><link rel=stylesheet href=off.css disabled>'), ['dark.css', 'off.css']);
});

test('icons: icon, shortcut icon, apple-touch-icon(-precomposed), mask-icon', () => {
  const html = '<link rel="shortcut icon" href="/favicon.ico"><link rel=ICON type=image/png sizes=32x32 href=/i32.png><link rel="apple-touch-icon" href="/a.png"><link rel="apple-touch-icon-precomposed" href="/ap.png"><link rel="mask-icon" href="/m.svg" color="#000">';
  assert.deepEqual(refs(html), [r('/favicon.ico', 'icon'), r('/i32.png', 'icon'), r('/a.png', 'icon'), r('/ap.png', 'icon'), r('/m.svg', 'icon')]);
});

test('preload (with imagesrcset candidates), modulepreload, manifest', () => {
  const html = '<link rel=preload as=font href=/f.woff2 crossorigin><link rel=preload as=image href=/hero.jpg imagesrcset="/hero-1x.jpg 1x, /hero-2x.jpg 2x"><link rel=modulepreload href=/m.js><link rel=manifest href=/site.webmanifest>';
  assert.deepEqual(refs(html), [r('/f.woff2', 'preload'), r('/hero.jpg', 'preload'), r('/hero-1x.jpg', 'preload'), r('/hero-2x.jpg', 'preload'), r('/m.js', 'modulepreload'), r('/site.webmanifest', 'manifest')]);
});

test('a <link> with several requisite rels gives one requisite, of the first kind in the table order', () => {
  assert.deepEqual(refs('<link rel="preload stylesheet" href=a.css><link rel="icon manifest" href=b><link rel="manifest modulepreload" href=c.js>'), [
    r('a.css', 'stylesheet'),
    r('b', 'icon'),
    r('c.js', 'modulepreload'),
  ]);
});

test('other rels are not requisites: next, prev, index, search, canonical, alternate feeds, prefetch, preconnect, dns-prefetch', () => {
  const html = '<link rel=next href=n1><link rel=prev href=n2><link rel=index href=n3><link rel=search href=n4><link rel=canonical href=n5><link rel=alternate type=application/rss+xml href=n6><link rel=prefetch href=n7><link rel=preconnect href=n8><link rel=dns-prefetch href=n9><link href=n10>';
  assert.deepEqual(refs(html), []);
});

test('imagesrcset counts only for preload', () => {
  assert.deepEqual(raws('<link rel=icon href=i.png imagesrcset="n.png 2x">'), ['i.png']);
});

test('<script src> whatever its type; inline scripts give nothing', () => {
  assert.deepEqual(refs('<script src=a.js></script><SCRIPT TYPE=module SRC="/b.mjs" async></SCRIPT><script type="text/x-template" src=c.html></script><script>var x = 1;</script>'), [
    r('a.js', 'script'),
    r('/b.mjs', 'script'),
    r('c.html', 'script'),
  ]);
});

test('<img src> and every srcset candidate, in attribute order', () => {
  assert.deepEqual(refs('<img src=a.png srcset="a.png 1x, a@2x.png 2x"><img srcset="w400.jpg 400w, w800.jpg 800w" sizes="50vw" src=w.jpg>'), [
    r('a.png', 'image'),
    r('a.png', 'image'),
    r('a@2x.png', 'image'),
    r('w400.jpg', 'image'),
    r('w800.jpg', 'image'),
    r('w.jpg', 'image'),
  ]);
});

test('<picture><source srcset> are images; <source src> in <video>/<audio> are media', () => {
  const html = '<picture><source media="(min-width: 800px)" srcset="big.webp 1x, big@2x.webp 2x" type=image/webp><img src=small.jpg></picture><audio controls><source src=a.ogg type=audio/ogg><source src="a.mp3"></audio>';
  assert.deepEqual(refs(html), [r('big.webp', 'image'), r('big@2x.webp', 'image'), r('small.jpg', 'image'), r('a.ogg', 'media'), r('a.mp3', 'media')]);
});

test('<video src poster>, <audio src>, <track src>', () => {
  assert.deepEqual(refs('<video poster=p.jpg src=v.mp4 controls><track kind=subtitles src=s.vtt></video><audio src=/a.mp3></audio>'), [
    r('p.jpg', 'image'),
    r('v.mp4', 'media'),
    r('s.vtt', 'track'),
    r('/a.mp3', 'media'),
  ]);
});

test('<input type=image src> in any letter case; other inputs with src are not read', () => {
  assert.deepEqual(refs('<input type=image src=go.png><INPUT TYPE="IMAGE" SRC="go2.png"><input type=submit src=n1.png><input src=n2.png><input type="image " src=n3.png>'), [
    r('go.png', 'image'),
    r('go2.png', 'image'),
    // The type value is trimmed like every value here: a browser would treat
    // "image " as a text input. The cost is one extra fetch.
    r('n3.png', 'image'),
  ]);
});

test('<object data> and <embed src>', () => {
  assert.deepEqual(refs('<object data=movie.swf type=application/x-shockwave-flash><param name=movie value=n.swf></object><embed src=e.svg type=image/svg+xml>'), [
    r('movie.swf', 'object'),
    r('e.svg', 'object'),
  ]);
});

test('style attributes on any element: every url(), entities decoded first; an @import there is invalid and not read', () => {
  const html = `<div style="background: url(&quot;a.png&quot;) no-repeat, url('b.png')"><p STYLE=background-image:url(c.png)><span style="@import 'n.css'; color: red">`;
  assert.deepEqual(refs(html), [r('a.png', 'style-url'), r('b.png', 'style-url'), r('c.png', 'style-url')]);
});

test('<style> text is CSS: @import and url() in order, entities not decoded (raw text), an unclosed one runs to the end', () => {
  const html = '<style>@import "a.css"; .x { background: url(b&amp;c.png) } @import "late.css";</style><STYLE media=print>.y{background:url(d.png)}</STYLE><style>.z{background:url(e.png)}';
  assert.deepEqual(refs(html), [r('a.css', 'style-import'), r('b&amp;c.png', 'style-url'), r('d.png', 'style-url'), r('e.png', 'style-url')]);
});

test('a "</style" inside CSS ends the element where the HTML tokenizer ends it; what follows is markup', () => {
  assert.deepEqual(refs('<style>.x::after { content: "</style>"; background: url(n.png) }</style><img src=after.png>'), [r('after.png', 'image')]);
});

test('an element\'s style attribute and its own requisite, in attribute order', () => {
  assert.deepEqual(refs('<img style="background:url(s.png)" src=i.png><img src=j.png style="background:url(t.png)">'), [
    r('s.png', 'style-url'),
    r('i.png', 'image'),
    r('j.png', 'image'),
    r('t.png', 'style-url'),
  ]);
});

// --- what is not a requisite ------------------------------------------------------

test('links and frames are pages, not requisites: <a>, <area>, <iframe>, <frame>, and src/href on other elements', () => {
  const html = '<a href=a.html><img src=in-a.png></a><map><area href=b.html></map><iframe src=c.html></iframe><frameset><frame src=d.html></frameset><form action=e.cgi><button formaction=f></button></form><blockquote cite=g><img data-src=lazy.png><div src=h.png href=i.css>';
  assert.deepEqual(refs(html), [r('in-a.png', 'image')]);
});

test('data:, javascript:, about:, blob:, mailto: URLs are dropped, however written; look-alikes stay', () => {
  const html = [
    '<img src="data:image/png;base64,iVBORw0KGgo=">',
    '<script src="JavaScript:void(0)"></script>',
    '<embed src="java&#9;script:x">',
    '<img src=" &#1;data:x">',
    '<img src="about:blank"><video src="blob:https://h/5b1a"></video><object data="mailto:a@b"></object>',
    '<img srcset="data:image/gif;base64,R0lGOD,lh 1x, ok.gif 2x">',
    '<img src="data.png"><img src="https://h/data:x.png"><img src="./javascript:x.png">',
  ].join('');
  assert.deepEqual(raws(html), ['ok.gif', 'data.png', 'https://h/data:x.png', './javascript:x.png']);
});

test('empty values are dropped: src="", src, src= , whitespace only, an empty srcset', () => {
  assert.deepEqual(refs('<img src=""><img src><script src= ></script><img src="  \t\n"><img srcset=""><img srcset=" , "><link rel=stylesheet href>'), []);
});

test('nothing from comments, script, textarea, title, xmp, noembed, noframes, iframe content, CDATA, after <plaintext>', () => {
  const html = [
    '<!-- <img src=n1.png> -->',
    '<script>document.write("<img src=n2.png>")</script>',
    '<textarea><img src=n3.png></textarea>',
    '<title><link rel=stylesheet href=n4.css></title>',
    '<xmp><img src=n5.png></xmp><noembed><img src=n6.png></noembed><noframes><img src=n7.png></noframes>',
    '<iframe><img src=n8.png></iframe>',
    '<![CDATA[ <img src=n9.png> ]]>',
    '<img src=yes.png>',
    '<plaintext><img src=n10.png>',
  ].join('');
  assert.deepEqual(raws(html), ['yes.png']);
});

test('<noscript> is normal markup, as in the link extractor: its requisites count', () => {
  assert.deepEqual(refs('<noscript><img src="pixel.gif"><link rel=stylesheet href=noscript.css></noscript>'), [r('pixel.gif', 'image'), r('noscript.css', 'stylesheet')]);
});

test('a tag cut off by the end of the page is dropped (eof-in-tag)', () => {
  assert.deepEqual(raws('<img src=a.png><img src="b.png"'), ['a.png']);
  assert.deepEqual(raws('<img src=a.png><img src="b.png'), ['a.png']);
  assert.deepEqual(raws('<img src=a.png><img src=b.png'), ['a.png']);
});

// --- attribute values -------------------------------------------------------------

test('entity-encoded URLs are decoded: &amp; numeric references, &quot; in a value, a legacy name in a query', () => {
  assert.deepEqual(raws('<img src="/i?a=1&amp;b=2&#38;c=&#x33;"><script src="&#x2F;s.js"></script><img src="/&quot;q&quot;.png"><img src="/x?copy=1&lang=en">'), [
    '/i?a=1&b=2&c=3',
    '/s.js',
    '/"q".png',
    '/x?copy=1&lang=en',
  ]);
});

test('values are stripped of ASCII whitespace (also from references), not of other spaces', () => {
  assert.deepEqual(raws('<img src="  a.png \n"><img src="&#32;b.png&#9;"><img src="&nbsp;c.png">'), ['a.png', 'b.png', '\u00a0c.png']);
});

test('the first of duplicate attributes counts; bare attributes and unquoted values work', () => {
  assert.deepEqual(raws('<img src=first.png src=second.png><img alt src=bare.png hidden><link rel=stylesheet rel=icon href=a.css href=b.css>'), ['first.png', 'bare.png', 'a.css']);
});

test('uppercase and mixed-case tags and attributes; tags split across lines; slashes as separators', () => {
  assert.deepEqual(raws('<IMG\nSRC="a.png"\n><Img SrcSet="b.png 2x"><img/src=c.png/><VIDEO POSTER=d.jpg></VIDEO>'), ['a.png', 'b.png', 'c.png/', 'd.jpg']);
});

test('UTF-8 URLs are kept; invalid bytes become U+FFFD and never throw', () => {
  const body = Buffer.concat([Buffer.from('<img src="/caf\u00e9/日本.png"><img src="/x'), Buffer.from([0xe9, 0xff]), Buffer.from('.png"><img src=ok.png>')]);
  assert.deepEqual(raws(body), ['/café/日本.png', '/x\ufffd\ufffd.png', 'ok.png']);
});

test('document order across elements; duplicates are kept', () => {
  assert.deepEqual(raws('<img src=a.png><script src=b.js></script><img src=a.png><link rel=stylesheet href=c.css>'), ['a.png', 'b.js', 'a.png', 'c.css']);
});

// --- <base> -------------------------------------------------------------------------

test('<base href> is returned, the first one with an href, decoded and trimmed, and is no requisite itself', () => {
  assert.deepEqual(read('<base target=_top><base href=" /docs/?a=1&amp;b=2 "><base href="/second/"><img src=a.png>'), { base: '/docs/?a=1&b=2', refs: [r('a.png', 'image')] });
  assert.equal(read('<img src=a.png>').base, undefined);
  assert.equal(read('<!-- <base href=/c/> --><script>"<base href=/s/>"</script>').base, undefined);
});

// --- srcset (the HTML spec's "parse a srcset attribute") ---------------------------

test('srcset: a URL alone, with 1x/2x, with 100w, with w and h, fractional and exponent densities', () => {
  assert.deepEqual(srcsetUrls('a.png'), ['a.png']);
  assert.deepEqual(srcsetUrls('a.png 1x, b.png 2x'), ['a.png', 'b.png']);
  assert.deepEqual(srcsetUrls('a.png 100w,b.png 200w'), ['a.png', 'b.png']);
  assert.deepEqual(srcsetUrls('a.png 100w 50h'), ['a.png']);
  assert.deepEqual(srcsetUrls('a.png 1.5x, b.png .5x, c.png 1e1x, d.png 0x'), ['a.png', 'b.png', 'c.png', 'd.png']);
});

test('srcset: a URL may hold commas, except at its end; "a.png,b.png" with no space is one URL', () => {
  assert.deepEqual(srcsetUrls('a,b.png 1x, c.png 2x'), ['a,b.png', 'c.png']);
  assert.deepEqual(srcsetUrls('a.png,b.png'), ['a.png,b.png']);
  assert.deepEqual(srcsetUrls('a.png, b.png'), ['a.png', 'b.png']);
  assert.deepEqual(srcsetUrls('https://h/img?w=1,2&h=3 2x'), ['https://h/img?w=1,2&h=3']);
});

test('srcset: leading, trailing and repeated commas and whitespace are separators', () => {
  assert.deepEqual(srcsetUrls(' , a.png 1x,,, b.png,, c.png 3x ,'), ['a.png', 'b.png', 'c.png']);
  assert.deepEqual(srcsetUrls('\n\ta.png\n\t2x\n'), ['a.png']);
  assert.deepEqual(srcsetUrls(''), []);
  assert.deepEqual(srcsetUrls(' ,, '), []);
});

test('srcset: candidates with invalid descriptors are dropped, as browsers drop them', () => {
  assert.deepEqual(srcsetUrls('n1 1x 2x, n2 100w 2x, n3 0w, n4 -1x, n5 50h, n6 1X, n7 foo, n8 1.x, n9 100w 50h 60h, n10 1e, ok 2x'), ['ok']);
});

test('srcset: a comma inside parentheses does not end a candidate (future descriptors), and the candidate is then invalid', () => {
  assert.deepEqual(srcsetUrls('a.png (x, y) 1x, b.png 2x'), ['b.png']);
});

test('srcset in HTML: decoded first (&#44; is a comma in the URL, &#32; separates), data: candidates dropped', () => {
  assert.deepEqual(raws('<img srcset="a&#44;b.png 1x, c.png&#32;2x, data:image/png;base64,AAAA 3x">'), ['a,b.png', 'c.png']);
});

// --- the same tags as the link extractor ------------------------------------------

const links = new HtmlLinkExtractor();

test('tricky markup: the link extractor and the requisite reader see the same tags (an <a href> and an <img src> in the same places)', () => {
  // Each template holds slots; filled with <a href=X> the link extractor
  // must find the same X, in the same order, as the requisite reader finds
  // when they are filled with <img src=X>.
  const templates = [
    '<!-- $1 --> $2 <!--> $3 <!---> $4 <!-- -- $5 --!> $6',
    '<script> "$1" </script> $2 <script>"</scr" + "ipt>$3"</script> $4',
    '<SCRIPT type=text/javascript> $1 </Script > $2 <script> $3 </scripty> $4 </script/> $5',
    '<style> $1 </style> $2 <title> $3 </title> $4 <textarea> $5 </TEXTAREA> $6',
    '<xmp>$1</xmp>$2<noembed>$3</noembed>$4<noframes>$5</noframes>$6<iframe>$7</iframe>$8',
    '<noscript>$1</noscript><template>$2</template><svg><foreignObject>$3</foreignObject></svg>',
    '<![CDATA[ $1 ]]> $2 <!DOCTYPE html $3> $4 <?pi $5 ?> $6 </p title="$7"> $8',
    '1 < 2 $1 <<$2 </ x $3 > </>$4 <div title="a > b $5">$6</div>',
    '$1 <p class="unterminated $2',
    '$1 <script> $2',
    '$1 <!-- $2',
    '$1 <plaintext> $2 </plaintext> $3',
    '<div\n  data-x="1"\n>$1</div\n>$2<br/>$3<img/>$4',
  ];
  let found = 0;
  for (const template of templates) {
    const fill = (tag: (k: number) => string): string => template.replace(/\$(\d)/g, (_, k: string) => tag(Number(k)));
    const asLinks = links.extract(Buffer.from(fill((k) => `<a href="/x${k}">`))).hrefs;
    const asImages = raws(fill((k) => `<img src="/x${k}">`));
    assert.deepEqual(asImages, asLinks, template);
    found += asLinks.length;
  }
  assert.ok(found >= 25, `only ${found} slots were visible`);
});

test('generated pages: every <a href> turned into <img src> is found by the requisite reader exactly where the link extractor finds it', () => {
  let total = 0;
  for (const [k, page] of generateCorpus(400, 2024).entries()) {
    const expected = links
      .extract(Buffer.from(page.html))
      .hrefs.filter((h) => h !== '' && !/^(data|javascript|about|blob|mailto):/i.test(h.replace(/[\t\n\r]/g, '')));
    // <a ...> start tags become <img ...>, every href attribute a src; the
    // generator's own <img src="/img.png"> stays, and is left out here.
    const images = page.html.replace(/<a(?=[\s/>])/gi, '<img').replace(/\bhref(?=[\s=/>])/gi, 'src');
    const found = refs(images)
      .filter((x) => x.raw !== '/img.png')
      .map((x) => x.raw);
    assert.deepEqual(found, expected, `page ${k}`);
    total += found.length;
  }
  assert.ok(total > 400 * 10, `only ${total} images`);
});

// --- htmlparser2 as an independent HTML reader ----------------------------------------

/** The requisite table read off htmlparser2's tags: an independent tokenizer, the same rules. */
function oracle(html: string): Requisites {
  const found: Requisite[] = [];
  let base: string | undefined;
  const keep = (value: string, kind: RequisiteKind): void => {
    const raw = value.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');
    if (raw !== '' && !/^[\0- ]*(data|javascript|about|blob|mailto):/i.test(raw.replace(/[\t\n\r]/g, ''))) found.push({ raw, kind });
  };
  let style: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const rel = new Set((attribs['rel'] ?? '').toLowerCase().split(/[\t\n\f\r ]+/));
        const linkKind: RequisiteKind | undefined = rel.has('stylesheet')
          ? 'stylesheet'
          : rel.has('modulepreload')
            ? 'modulepreload'
            : rel.has('preload')
              ? 'preload'
              : ['icon', 'apple-touch-icon', 'apple-touch-icon-precomposed', 'mask-icon'].some((t) => rel.has(t))
                ? 'icon'
                : rel.has('manifest')
                  ? 'manifest'
                  : undefined;
        if (name === 'base' && base === undefined && attribs['href'] !== undefined) base = attribs['href'].trim();
        for (const [attr, value] of Object.entries(attribs)) {
          const at = `${name} ${attr}`;
          if (attr === 'style') for (const u of readCssUrls(value)) if (u.kind === 'url') found.push({ raw: u.raw, kind: 'style-url' });
          if (name === 'link' && linkKind !== undefined && attr === 'href') keep(value, linkKind);
          if (name === 'link' && linkKind === 'preload' && attr === 'imagesrcset') for (const x of srcsetUrls(value)) keep(x, 'preload');
          if (at === 'script src') keep(value, 'script');
          if (at === 'img src' || at === 'video poster' || (at === 'input src' && attribs['type']?.toLowerCase() === 'image')) keep(value, 'image');
          if ((name === 'img' || name === 'source') && attr === 'srcset') for (const x of srcsetUrls(value)) keep(x, 'image');
          if (at === 'source src' || at === 'video src' || at === 'audio src') keep(value, 'media');
          if (at === 'track src') keep(value, 'track');
          if (at === 'object data' || at === 'embed src') keep(value, 'object');
        }
        if (name === 'style') style = '';
      },
      ontext(text) {
        if (style !== undefined) style += text;
      },
      onclosetag(name) {
        if (name !== 'style' || style === undefined) return;
        for (const u of readCssUrls(style)) found.push({ raw: u.raw, kind: u.kind === 'import' ? 'style-import' : 'style-url' });
        style = undefined;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return { base, refs: found };
}

test('a Sphinx documentation page: exactly the requisites listed by hand, and the same as htmlparser2 reads', () => {
  const ours = read(SPHINX_PAGE);
  assert.deepEqual(ours, { base: undefined, refs: SPHINX_REQUISITES });
  assert.deepEqual(ours, oracle(SPHINX_PAGE));
});

test('the oracle is sensitive: with the Sphinx page cut inside a comment, both agree on a shorter list', () => {
  const cut = SPHINX_PAGE.replace('<!-- <img src="_images/commented-out.png"> -->', '<!-- <img src="_images/commented-out.png">');
  const ours = read(cut);
  assert.deepEqual(ours, oracle(cut));
  assert.ok(ours.refs.length < SPHINX_REQUISITES.length && ours.refs.length > 10, `${ours.refs.length} refs`);
});

test('400 generated pages, as written and with their anchors turned into images: the same as htmlparser2 reads', () => {
  let total = 0;
  for (const [k, page] of generateCorpus(400, 99).entries()) {
    const images = page.html.replace(/<a(?=[\s/>])/gi, '<img').replace(/\bhref(?=[\s=/>])/gi, 'src');
    for (const html of [page.html, images]) {
      const ours = read(html);
      assert.deepEqual(ours.refs, oracle(html).refs, `page ${k}`);
      total += ours.refs.length;
    }
  }
  assert.ok(total > 400 * 10, `only ${total} requisites`);
});

// --- robustness ---------------------------------------------------------------------

test('never throws: every cut of the Sphinx page, and random bytes', () => {
  for (let k = 0; k <= SPHINX_PAGE.length; k += 7) assert.ok(Array.isArray(read(SPHINX_PAGE.slice(0, k)).refs));
  const random = createRandom(44);
  const pieces = ['<img src=', '<link rel=stylesheet href="', '"', "'", '>', '<style>', '</style>', 'url(', ')', '<!--', '-->', '&amp;', '&#', ' srcset="', ',', ' 2x', '\0', '\r', '<', '/', 'é', '<script>', '<base href='];
  for (let n = 0; n < 2000; n++) {
    const parts = Array.from({ length: Math.floor(random() * 30) }, () => pieces[Math.floor(random() * pieces.length)]);
    assert.doesNotThrow(() => read(parts.join('')));
    assert.doesNotThrow(() => read(Buffer.from(Array.from({ length: 64 }, () => Math.floor(random() * 256)))));
  }
});

test('pathological inputs stay linear (2 MB each, in CPU time)', () => {
  const cases = [
    (n: number) => '<img srcset="' + 'a 1x,'.repeat(n / 5) + '">',
    (n: number) => '<img srcset="' + '('.repeat(n) + '">',
    (n: number) => '<style>' + 'url('.repeat(n / 4),
    (n: number) => '<img ' + 'src=x '.repeat(n / 6) + '>',
    (n: number) => '<img ' + 'a '.repeat(n / 2) + 'style="x">',
    (n: number) => '<link rel="' + 'stylesheet '.repeat(n / 11) + '" href=a>',
    (n: number) => '<div style="' + 'background:url(x);'.repeat(n / 19) + '">',
  ];
  assertLinear(read, cases);
});
