/**
 * The page requisites of an HTML page (issue 44, `--page-requisites`): the
 * URLs a browser fetches to display the page, as the page states them. A
 * pure function over the body's bytes, no I/O, read with the tokenizer the
 * link extractor uses (tag-scanner.ts: same comments, raw text, attribute
 * rules, entity decoding, UTF-8), so both see the same tags.
 *
 * What is read, by start tag (names and attributes in any letter case; of
 * attributes with the same name the first counts):
 *
 * | element | attribute | kind |
 * | --- | --- | --- |
 * | `<link>` whose rel has the token `stylesheet` | href | stylesheet |
 * | `<link>` whose rel has `modulepreload` | href | modulepreload |
 * | `<link>` whose rel has `preload` | href, every imagesrcset candidate | preload |
 * | `<link>` whose rel has `icon` (so `shortcut icon`), `apple-touch-icon`, `apple-touch-icon-precomposed` or `mask-icon` | href | icon |
 * | `<link>` whose rel has `manifest` | href | manifest |
 * | `<script>` | src | script |
 * | `<img>` | src, every srcset candidate | image |
 * | `<source>` (in `<picture>`) | every srcset candidate | image |
 * | `<source>` (in `<video>`, `<audio>`) | src | media |
 * | `<video>` | src / poster | media / image |
 * | `<audio>` | src | media |
 * | `<track>` | src | track |
 * | `<input type=image>` | src | image |
 * | `<object>` / `<embed>` | data / src | object |
 * | any element | style: every url() (css-urls.ts) | style-url |
 * | `<style>` (its text, as CSS) | every url() / every valid @import | style-url / style-import |
 *
 * - rel is a set of space-separated tokens in any letter case. A `<link>`
 *   gives one requisite, of the first kind that applies in the order of the
 *   table (`rel="stylesheet preload"` is a stylesheet). Alternate
 *   stylesheets (`rel="alternate stylesheet"`) and disabled ones (with the
 *   `disabled` attribute) are read: a browser fetches them once the user or
 *   a script switches them on (theme and dark-mode switchers do), and an
 *   archive without them cannot replay that. Other rels (prefetch,
 *   preconnect, next, alternate feeds, canonical) are not requisites.
 * - Neither `type` nor `media` is looked at (`<script type=module>`,
 *   `<link media=print>`, `<style type=text/css>` all count); `<input>`'s
 *   type must be `image` in any letter case (stripped of whitespace like
 *   every value, so `type="image "`, a text input to a browser, counts).
 * - srcset and imagesrcset: the HTML spec's "parse a srcset attribute"
 *   (srcset.ts); every valid candidate, not the one a browser would pick, so
 *   that the archive replays on any screen; candidates with invalid
 *   descriptors are dropped as browsers drop them.
 * - A `<source>` is read the same whatever its parent (no tree builder):
 *   srcset is only meaningful in `<picture>` and src only in media elements.
 * - style attributes give their url()s; an @import there is invalid and is
 *   not read. `<style>` text is read as UTF-8, like the rest of the page.
 * - Not requisites, never returned: `<a>`, `<area>`, `<iframe>`, `<frame>`
 *   (other pages: the crawl's scope decides them), and URLs inside
 *   comments, scripts and other raw text. `<noscript>` is normal markup (as
 *   in the link extractor: a crawler has no scripting), so what is in it
 *   counts.
 * - Not read, though a browser may fetch them: inline SVG's `<image href>`
 *   and `<use href>`, the legacy `background` attribute (`<body
 *   background>`, `<td background>`), `<image src>` (which the tree builder
 *   renames `<img>`), and URLs that scripts use (`data-src` lazy loading).
 * - Dropped: empty URLs, and URLs with the scheme data:, javascript:,
 *   about:, blob: or mailto: (never fetched; fetchable-url.ts).
 * - `raw` is the URL as the page states it: entities decoded, ASCII
 *   whitespace stripped (as browsers do before parsing a URL), unresolved.
 *   Requisites come in document order, and within a tag in the order of its
 *   attributes; duplicates are kept (the caller resolves and dedupes).
 * - `base` is the first `<base href>`, unresolved, as the link extractor
 *   returns it; undefined when there is none.
 *
 * Never throws, on any bytes.
 */
import { readCssUrls } from './css-urls.js';
import { fetchableUrl } from './fetchable-url.js';
import { srcsetUrls } from './srcset.js';
import { afterStartTag, opensStartTag, scanAttributes, skipMarkup, tagNameEnd, TagAttributes } from './tag-scanner.js';

/** What a requisite is for (see the module comment's table). */
export type RequisiteKind =
  | 'stylesheet'
  | 'modulepreload'
  | 'preload'
  | 'icon'
  | 'manifest'
  | 'script'
  | 'image'
  | 'media'
  | 'track'
  | 'object'
  | 'style-url'
  | 'style-import';

/** One URL a page needs to be displayed. */
export interface Requisite {
  /** The URL as the page states it (entities decoded, ASCII whitespace stripped), unresolved. */
  raw: string;
  kind: RequisiteKind;
}

/** What readRequisites found in one page. */
export interface Requisites {
  /** The first `<base href>`, unresolved; undefined when the page has none. */
  base: string | undefined;
  /** Document order, duplicates kept. */
  refs: Requisite[];
}

/** An attribute whose value is a URL (or, with `srcset`, a srcset list of them) of a given kind. */
interface UrlAttribute {
  name: string;
  kind: RequisiteKind;
  srcset?: boolean;
}

/**
 * The URL attributes of each element read, as in the module comment's table
 * (`<link>`'s kind depends on its rel: linkAttributes; `<input>`'s only count
 * with type=image).
 */
const URL_ATTRIBUTES = new Map<string, UrlAttribute[]>([
  ['script', [{ name: 'src', kind: 'script' }]],
  ['img', [{ name: 'src', kind: 'image' }, { name: 'srcset', kind: 'image', srcset: true }]],
  ['source', [{ name: 'src', kind: 'media' }, { name: 'srcset', kind: 'image', srcset: true }]],
  ['video', [{ name: 'src', kind: 'media' }, { name: 'poster', kind: 'image' }]],
  ['audio', [{ name: 'src', kind: 'media' }]],
  ['track', [{ name: 'src', kind: 'track' }]],
  ['input', [{ name: 'src', kind: 'image' }]],
  ['object', [{ name: 'data', kind: 'object' }]],
  ['embed', [{ name: 'src', kind: 'object' }]],
  ['link', []],
  ['style', []],
  ['base', []],
]);

/** The URL attributes of a `<link>` whose rel gives it `kind`. */
const LINK_ATTRIBUTES = new Map<RequisiteKind, UrlAttribute[]>(
  (['stylesheet', 'modulepreload', 'preload', 'icon', 'manifest'] as const).map((kind) => [
    kind,
    kind === 'preload' ? [{ name: 'href', kind }, { name: 'imagesrcset', kind, srcset: true }] : [{ name: 'href', kind }],
  ]),
);

/** The tag name s[a..b) lower-cased when it is an element read, else ''. */
function elementOf(s: string, a: number, b: number): string {
  if (b - a < 3 || b - a > 6) return ''; // every name read has 3 to 6 letters
  // The page is latin1, where only A-Z lower-case to ASCII, as in the tokenizer.
  const name = s.slice(a, b).toLowerCase();
  return URL_ATTRIBUTES.has(name) ? name : '';
}

/** ASCII letters lowered, nothing else (as HTML compares keywords: `toLowerCase` would turn U+212A KELVIN SIGN into k). */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** A `<link>`'s kind from its rel value, or undefined when it is no requisite. */
function linkKind(rel: string): RequisiteKind | undefined {
  const tokens = new Set(asciiLower(rel).split(/[\t\n\f\r ]+/));
  if (tokens.has('stylesheet')) return 'stylesheet';
  if (tokens.has('modulepreload')) return 'modulepreload';
  if (tokens.has('preload')) return 'preload';
  if (tokens.has('icon') || tokens.has('apple-touch-icon') || tokens.has('apple-touch-icon-precomposed') || tokens.has('mask-icon')) {
    return 'icon';
  }
  if (tokens.has('manifest')) return 'manifest';
  return undefined;
}

/** The attributes of the tag being read: reused (reading is synchronous). */
const attributes = new TagAttributes();

/** The requisites and the base URL of one HTML page body (see the module comment for exactly what is read). */
export function readRequisites(body: Buffer): Requisites {
  const s = body.toString('latin1');
  const refs: Requisite[] = [];
  let base: string | undefined;
  const value = (k: number): string => attributes.value(body, s, k);
  const add = (raw: string, kind: RequisiteKind): void => {
    const url = fetchableUrl(raw);
    if (url !== undefined) refs.push({ raw: url, kind });
  };
  /** Whether attribute k is the first one named `name`: the one that counts. */
  const first = (k: number, name: string): boolean => attributes.is(s, k, name) && attributes.find(s, name) === k;
  // The tokenizer's loop, as in the link extractor (html.ts). (Not a shared
  // function: a nextStartTag() both call cost the link extractor 2.5% more
  // instructions.)
  let i = s.indexOf('<');
  while (i >= 0) {
    if (!opensStartTag(s, i)) {
      i = skipMarkup(s, i);
      continue;
    }
    const nameEnd = tagNameEnd(s, i + 2);
    const element = elementOf(s, i + 1, nameEnd);
    // Every tag's attributes are kept: any element may have a style attribute.
    const end = scanAttributes(s, nameEnd, attributes);
    if (end < 0) break; // eof-in-tag: the tag never happened
    let wanted = URL_ATTRIBUTES.get(element);
    if (element === 'link') {
      const rel = attributes.find(s, 'rel');
      const kind = rel < 0 ? undefined : linkKind(value(rel));
      wanted = kind === undefined ? undefined : LINK_ATTRIBUTES.get(kind);
    } else if (element === 'input') {
      const type = attributes.find(s, 'type');
      if (type < 0 || asciiLower(value(type)) !== 'image') wanted = undefined;
    } else if (element === 'base' && base === undefined) {
      const href = attributes.find(s, 'href');
      if (href >= 0) base = value(href);
    }
    // The attributes in their order, each name's first occurrence only.
    for (let k = 0; k < attributes.count; k++) {
      if (first(k, 'style')) {
        for (const u of readCssUrls(value(k))) if (u.kind === 'url') refs.push({ raw: u.raw, kind: 'style-url' });
        continue;
      }
      const w = wanted?.find((a) => first(k, a.name));
      if (w === undefined) continue;
      if (w.srcset === true) for (const u of srcsetUrls(value(k))) add(u, w.kind);
      else add(value(k), w.kind);
    }
    const next = afterStartTag(s, i + 1, nameEnd, end);
    if (element === 'style') {
      // Its text, raw (no entities), up to its end tag or the end of the page.
      const css = body.toString('utf8', end, next < 0 ? s.length : next);
      for (const u of readCssUrls(css)) refs.push({ raw: u.raw, kind: u.kind === 'import' ? 'style-import' : 'style-url' });
    }
    i = next;
  }
  return { base, refs };
}
