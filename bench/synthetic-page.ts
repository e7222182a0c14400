/**
 * Deterministic synthetic HTML pages for benchmarks and differential tests.
 *
 * A page looks like a real article or listing page (head with meta, style,
 * script, a nav, paragraphs with inline links, footer) and is spiced with
 * everything a link extractor can trip over: every way of writing
 * `<a href>`, character references, comments, scripts and styles holding
 * fake links, RCDATA, CDATA, doctype, processing instructions, non-link
 * elements with href attributes, and non-ASCII text. Each link passed in
 * appears exactly once as a real `<a href>`, in order, written so that an
 * HTML tokenizer decodes it back to exactly that string. Fake links (the
 * ones no HTML parser should report) all contain "nope".
 */

/** A seeded PRNG (mulberry32): returns floats in [0, 1). Same seed, same sequence. */
export function createRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Random = () => number;
const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Random, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

const WORDS = (
  'the crawler fetches pages politely and follows links breadth first while robots rules decide what may be ' +
  'fetched each host gets its own queue with a delay between requests search engines index words keywords ' +
  'and documents network latency bandwidth cache proxy server client socket header body status redirect ' +
  'café naïve résumé über straße 日本語 中文 русский ελληνικά emoji 🚀 déjà vu'
).split(' ');

const HOSTS = ['example.com', 'www.example.org', 'news.example.net', 'cs.example.edu', 'münchen.example', 'xn--bcher-kva.example'];
const SEGMENTS = ['index.html', 'about', 'news', '2024', 'articles', 'post', 'tags', 'c++', 'wiki', 'Café', '日本', 'a b', 'x_y-z', '~user', 'docs'];

/**
 * `count` plausible hrefs (absolute, relative, fragments, queries with raw
 * `&name=` pairs, non-ASCII, mailto/javascript, the empty link), from `seed`.
 */
export function syntheticLinks(seed: number, count: number): string[] {
  const r = createRandom(seed ^ 0x9e3779b9);
  const links: string[] = [];
  for (let k = 0; k < count; k++) {
    const path = Array.from({ length: int(r, 0, 3) }, () => pick(r, SEGMENTS)).join('/');
    const query = r() < 0.3 ? `?id=${int(r, 1, 9999)}&lang=en&copy=2&not=1&amp=${int(r, 0, 9)}&q=a+b` : '';
    const frag = r() < 0.1 ? `#sec-${int(r, 1, 9)}` : '';
    const kind = int(r, 0, 11);
    let link: string;
    if (kind <= 3) link = `http${r() < 0.5 ? 's' : ''}://${pick(r, HOSTS)}/${path}${query}${frag}`;
    else if (kind <= 6) link = `/${path}${query}${frag}`;
    else if (kind === 7) link = `../${path}${frag}`;
    else if (kind === 8) link = `${path || 'page.html'}${query}`;
    else if (kind === 9) link = r() < 0.5 ? `#top-${k}` : `?page=${k}&sort=desc`;
    else if (kind === 10) link = pick(r, ['mailto:someone@example.com', 'javascript:void(0)', '//cdn.example.com/lib.js', 'tel:+15551234']);
    else link = r() < 0.3 ? '' : `/quote"s/and'apos/<lt>/${k}`;
    links.push(link);
  }
  return links;
}

/** One of the ways of writing a reference to the character `ch` (a fallback literal when none applies). */
function charRef(r: Random, ch: string): string {
  const cp = ch.codePointAt(0)!;
  const named: Record<string, string[]> = {
    '&': ['&amp;', '&AMP;'], '"': ['&quot;', '&QUOT;'], "'": ['&apos;'], '<': ['&lt;'], '>': ['&gt;'],
    '/': ['&sol;'], '.': ['&period;'], é: ['&eacute;'], '#': ['&num;'], '?': ['&quest;'], '=': ['&equals;'],
  };
  const forms = [`&#${cp};`, `&#x${cp.toString(16)};`, `&#X${cp.toString(16).toUpperCase()};`, `&#0${cp};`, ...(named[ch] ?? [])];
  return pick(r, forms);
}

/**
 * Encodes `link` as an attribute value in quote `q` (`"`, `'` or '' for
 * unquoted) so that the tokenizer's attribute-value decoding gives `link`.
 */
function encodeValue(r: Random, link: string, q: string): string {
  let out = '';
  const chars = Array.from(link);
  for (let k = 0; k < chars.length; k++) {
    const ch = chars[k]!;
    const rest = chars.slice(k + 1, k + 12).join('');
    if (ch === '&') {
      // A raw `&` is safe before `name=` (the attribute rule keeps `&copy=`)
      // or before a character that can't start a reference.
      const named = /^[A-Za-z0-9]+=/.exec(rest);
      if (named && r() < 0.6) {
        // Copied verbatim: encoding a character of `name=` would undo the rule.
        out += '&' + named[0];
        k += Array.from(named[0]).length;
      } else if ((rest === '' || /^[^A-Za-z0-9#]/.test(rest)) && r() < 0.6) out += '&';
      // Legacy `&amp` without `;` decodes only if no alphanumeric, `=` or `;` follows.
      else if (/^[^A-Za-z0-9=;]/.test(rest) && r() < 0.5) out += '&amp';
      else out += charRef(r, ch);
    } else if (ch === q || ch === '"' && q === '' || ch === "'" && q === '' || (ch === '<' || ch === '>') && r() < 0.7) {
      out += charRef(r, ch);
    } else if (r() < 0.03) {
      out += charRef(r, ch); // gratuitous references, as some CMSs write them
    } else {
      out += ch;
    }
  }
  return out;
}

const CLASSES = ['nav-link', 'btn btn-primary', 'external', 'post-title', 'menu__item menu__item--active', 'tag'];

/** One `<a>` start tag whose href decodes to `link`, in one of many spellings. */
function anchorTag(r: Random, link: string): string {
  const unquotable = link !== '' && !/[\s"'<>`&=]/.test(link);
  const form = int(r, 0, 15);
  const cls = pick(r, CLASSES);
  const dq = (l: string): string => `"${encodeValue(r, l, '"')}"`;
  const sq = (l: string): string => `'${encodeValue(r, l, "'")}'`;
  if (link === '' && r() < 0.5) return pick(r, ['<a href>', '<a href=>', "<a href=''>", '<a class="x" href id="e">']);
  switch (form) {
    case 0: return `<A HREF=${dq(link)}>`;
    case 1: return `<a href = ${sq(link)}>`;
    case 2: return `<a\n      class="${cls}"\n      href=${dq(link)}\n      rel="nofollow">`;
    case 3: return unquotable ? `<a id=l${int(r, 1, 99)} href=${link} class=${cls.split(' ')[0]}>` : `<a href=${dq(link)}>`;
    case 4: return `<a data-href="/nope-data" href=${dq(link)}>`;
    case 5: return `<a href=${dq(link)} href="/nope-duplicate">`;
    case 6: return `<a title="a > b, href='/nope-title'" href=${dq(link)}>`;
    case 7: return `<a href="  ${encodeValue(r, link, '"')}\t">`;
    case 8: return `<a target=_blank href=${dq(link)}/>`;
    case 9: return `<a HrEf=${sq(link)} onclick="return go('<a href=/nope-onclick>')">`;
    case 10: return `<a/href=${dq(link)}>`;
    case 11: return `<a href=\n${dq(link)}>`;
    default: return `<a class="${cls}" href=${dq(link)}>`;
  }
}

function sentence(r: Random, words: number): string {
  const ws = Array.from({ length: words }, () => pick(r, WORDS));
  ws[0] = ws[0]!.charAt(0).toUpperCase() + ws[0]!.slice(1);
  return ws.join(' ') + '.';
}

/** Text with entities and stray `<` / `a href="` that are not markup. */
function paragraphText(r: Random): string {
  const parts: string[] = [];
  for (let k = int(r, 2, 6); k > 0; k--) {
    parts.push(sentence(r, int(r, 6, 18)));
    const x = int(r, 0, 9);
    if (x === 0) parts.push('Tom &amp; Jerry &copy; 2024&nbsp;&mdash; &lt;a href="/nope-escaped"&gt;');
    else if (x === 1) parts.push('if a < b and b <= c then a href="/nope-plaintext" is just text');
    else if (x === 2) parts.push('AT&T &notit; &#169; &#x1F600; &unknown; 5 &lt; 6');
  }
  return parts.join(' ');
}

/** Blocks that hold look-alike links no HTML parser reports (all contain "nope"). */
const NOISE: ReadonlyArray<(r: Random) => string> = [
  () => '<!-- <a href="/nope-comment">old nav</a> -->',
  () => '<!--><p>after an abruptly closed empty comment</p><!---><p>and another</p>',
  () => '<!-- a -- b <a href="/nope-dashes"> --!><p>incorrectly closed comment</p>',
  () => '<!----><!-- <!-- nested? <a href="/nope-nested"> -->',
  (r) =>
    `<script>var html = "<a href='/nope-script'>x</a>"; var s = '</scr' + 'ipt>';` +
    ` if (a < b && b > c) { document.write('<a href="/nope-write">' + ${int(r, 1, 9)} + '<\\/a>'); }` +
    ` /* ${sentence(r, 30)} */</script>`,
  () => '<script type="application/ld+json">{"@type":"WebPage","url":"<a href=\\"/nope-ld\\">"}</script>',
  () => '<SCRIPT>var t = "<a href=\'/nope-upper-script\'>";</SCRIPT >',
  (r) => `<style>a[href^="http"]::after { content: "<a href='/nope-style'>"; } /* </styl ${sentence(r, 10)} */ .x > .y { color: red }</style>`,
  () => '<textarea name="t"><a href="/nope-textarea">x</a> &amp; more</textarea>',
  () => '<![CDATA[ x > y <a href="/nope-cdata"> ]]>',
  () => '<?xml-stylesheet type="text/xsl" href="/nope-pi"?>',
  () => '<link rel="alternate" href="/nope-link"><area shape="rect" href="/nope-area"><abbr href="/nope-abbr" title="x">abbr</abbr>',
  () => '<img src="/img.png" alt="a > b"><input value=\'<a href="/nope-value">\'><button formaction="/nope-button">go</button>',
  () => '<svg viewBox="0 0 10 10" aria-hidden="true"><title>icon</title><path d="M0 0L10 10"/></svg>',
  () => '<div class="x"></div class="y"></p><br/><hr>',
  () => '<noframes><a href="/nope-noframes"></a></noframes><xmp><a href="/nope-xmp"></xmp><iframe src="/f"><a href="/nope-iframe"></iframe>',
  () => '<a name="anchor-without-href">no href here</a><a id="x" class="y">nor here</a>',
];

/** Options for generatePage. */
export interface PageOptions {
  /** Approximate size of the page in UTF-16 code units (≈ bytes); default: 10-30 K chosen from the seed. */
  targetSize?: number;
  /** Adds `<base href>` with this value (after a base without href, which must be ignored). */
  base?: string;
}

/**
 * A complete HTML page (UTF-8 when encoded) containing each of `links` as a
 * real `<a href>`, in order, among realistic text and markup and many
 * look-alike non-links. Deterministic: same seed and links, same page.
 */
export function generatePage(seed: number, links: readonly string[], options: PageOptions = {}): string {
  const r = createRandom(seed);
  const target = options.targetSize ?? int(r, 10_000, 30_000);
  const out: string[] = [];
  out.push(pick(r, ['<!DOCTYPE html>', '<!doctype html>', '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">']));
  out.push('\n<html lang="en">\n<head>\n<meta charset="utf-8">\n');
  out.push(`<title>${sentence(r, 5)} &amp; <a href="/nope-title"> &mdash; site</title>\n`);
  if (options.base !== undefined) {
    out.push(`<base target="_blank">\n<base href="${encodeValue(r, options.base, '"')}">\n<base href="/nope-second-base">\n`);
  }
  out.push('<meta name="viewport" content="width=device-width, initial-scale=1">\n');
  out.push('<link rel="stylesheet" href="/nope-css.css">\n');
  out.push(`<style>\nbody { font: 16px/1.5 sans-serif; }\n${Array.from({ length: int(r, 5, 30) }, (_, k) => `.c${k} > a[href] { margin: ${k}px; }`).join('\n')}\n</style>\n`);
  out.push(`<script>\nwindow.dataLayer = window.dataLayer || [];\nfunction gtag(){dataLayer.push(arguments);}\n${Array.from({ length: int(r, 5, 40) }, (_, k) => `var v${k} = "${sentence(r, 8)}" + (${k} < 3 ? '<a href="/nope-js">' : '');`).join('\n')}\n</script>\n`);
  out.push('</head>\n<body class="page">\n');
  let size = out.reduce((a, s) => a + s.length, 0);
  let next = 0;
  const linkItems = (count: number): string[] => {
    const items: string[] = [];
    for (let k = 0; k < count && next < links.length; k++) {
      items.push(`${anchorTag(r, links[next++]!)}${sentence(r, int(r, 1, 4)).slice(0, -1)}</a>`);
    }
    return items;
  };
  const remaining = (): number => links.length - next;
  while (size < target || next < links.length) {
    const left = Math.max(1, (target - size) / 600); // blocks still to come, roughly
    const share = Math.min(remaining(), Math.ceil(remaining() / left));
    let block: string;
    const kind = int(r, 0, 9);
    if (kind <= 1 && share > 0) {
      block = `<nav class="menu"><ul>${linkItems(share).map((a) => `<li>${a}</li>`).join('\n')}</ul></nav>\n`;
    } else if (kind <= 4) {
      block = `<p class="c${int(r, 0, 9)}">${paragraphText(r)} ${linkItems(share).join(' ')} ${sentence(r, int(r, 3, 12))}</p>\n`;
    } else if (kind <= 6) {
      block = `<div class="card"><h2 id="h${int(r, 1, 999)}">${sentence(r, 4)}</h2><p>${paragraphText(r)}</p></div>\n`;
    } else {
      block = pick(r, NOISE)(r) + '\n';
    }
    out.push(block);
    size += block.length;
  }
  out.push(`<footer><p>&copy; 2024 Example &middot; ${sentence(r, 6)}</p></footer>\n</body>\n</html>\n`);
  return out.join('');
}

/** One page of a synthetic corpus, with what an HTML parser should find in it. */
export interface SyntheticPage {
  html: string;
  links: string[];
  base: string | undefined;
}

/** `count` pages with 10-40 links each (a fifth of them with a base), from `seed`. */
export function generateCorpus(count: number, seed = 1): SyntheticPage[] {
  const r = createRandom(seed);
  const pages: SyntheticPage[] = [];
  for (let k = 0; k < count; k++) {
    const pageSeed = Math.floor(r() * 2 ** 32);
    const links = syntheticLinks(pageSeed, int(r, 10, 40));
    const base = r() < 0.2 ? pick(r, ['https://example.com/dir/', '/root/', ' https://例え.jp/ ', 'http://x.example/a?b=1&c=2']) : undefined;
    pages.push({ html: generatePage(pageSeed, links, { base }), links, base: base?.trim() });
  }
  return pages;
}
