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
 *   type must be `image` in any letter case.
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
import { TagScanner } from './tag-scanner.js';

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

// The elements read, by tag name.
const OTHER = 0;
const LINK = 1;
const SCRIPT = 2;
const IMG = 3;
const SOURCE = 4;
const VIDEO = 5;
const AUDIO = 6;
const TRACK = 7;
const INPUT = 8;
const OBJECT = 9;
const EMBED = 10;
const STYLE = 11;
const BASE = 12;

function elementOf(t: TagScanner): number {
  switch (t.nameLength()) {
    case 3:
      return t.nameIs('img') ? IMG : OTHER;
    case 4:
      return t.nameIs('link') ? LINK : t.nameIs('base') ? BASE : OTHER;
    case 5:
      if (t.nameIs('style')) return STYLE;
      if (t.nameIs('video')) return VIDEO;
      if (t.nameIs('audio')) return AUDIO;
      if (t.nameIs('track')) return TRACK;
      if (t.nameIs('input')) return INPUT;
      return t.nameIs('embed') ? EMBED : OTHER;
    case 6:
      if (t.nameIs('script')) return SCRIPT;
      if (t.nameIs('source')) return SOURCE;
      return t.nameIs('object') ? OBJECT : OTHER;
    default:
      return OTHER;
  }
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

/** The requisites and the base URL of one HTML page body (see the module comment for exactly what is read). */
export function readRequisites(body: Buffer): Requisites {
  const t = new TagScanner(body);
  const refs: Requisite[] = [];
  let base: string | undefined;
  const add = (raw: string, kind: RequisiteKind): void => {
    const url = fetchableUrl(raw);
    if (url !== undefined) refs.push({ raw: url, kind });
  };
  /** Whether attribute k is the first one named `name`: the one that counts. */
  const first = (k: number, name: string): boolean => t.attributeIs(k, name) && t.attribute(name) === k;
  while (t.nextStartTag()) {
    const element = elementOf(t);
    // Every tag's attributes are kept: any element may have a style attribute.
    if (!t.readAttributes(true)) break; // eof-in-tag: the tag never happened
    let linkAs: RequisiteKind | undefined;
    let imageButton = false;
    if (element === LINK) {
      const rel = t.attribute('rel');
      linkAs = rel < 0 ? undefined : linkKind(t.value(rel));
    } else if (element === INPUT) {
      const type = t.attribute('type');
      imageButton = type >= 0 && asciiLower(t.value(type)) === 'image';
    } else if (element === BASE && base === undefined) {
      const href = t.attribute('href');
      if (href >= 0) base = t.value(href);
    }
    for (let k = 0; k < t.attributeCount; k++) {
      if (first(k, 'style')) {
        for (const u of readCssUrls(t.value(k))) if (u.kind === 'url') refs.push({ raw: u.raw, kind: 'style-url' });
        continue;
      }
      switch (element) {
        case LINK:
          if (linkAs === undefined) break;
          if (first(k, 'href')) add(t.value(k), linkAs);
          else if (linkAs === 'preload' && first(k, 'imagesrcset')) for (const u of srcsetUrls(t.value(k))) add(u, 'preload');
          break;
        case SCRIPT:
          if (first(k, 'src')) add(t.value(k), 'script');
          break;
        case IMG:
          if (first(k, 'src')) add(t.value(k), 'image');
          else if (first(k, 'srcset')) for (const u of srcsetUrls(t.value(k))) add(u, 'image');
          break;
        case SOURCE:
          if (first(k, 'src')) add(t.value(k), 'media');
          else if (first(k, 'srcset')) for (const u of srcsetUrls(t.value(k))) add(u, 'image');
          break;
        case VIDEO:
          if (first(k, 'src')) add(t.value(k), 'media');
          else if (first(k, 'poster')) add(t.value(k), 'image');
          break;
        case AUDIO:
          if (first(k, 'src')) add(t.value(k), 'media');
          break;
        case TRACK:
          if (first(k, 'src')) add(t.value(k), 'track');
          break;
        case INPUT:
          if (imageButton && first(k, 'src')) add(t.value(k), 'image');
          break;
        case OBJECT:
          if (first(k, 'data')) add(t.value(k), 'object');
          break;
        case EMBED:
          if (first(k, 'src')) add(t.value(k), 'object');
          break;
        default:
          break;
      }
    }
    if (element === STYLE && t.textStart >= 0) {
      const css = body.toString('utf8', t.textStart, t.textEnd);
      for (const u of readCssUrls(css)) refs.push({ raw: u.raw, kind: u.kind === 'import' ? 'style-import' : 'style-url' });
    }
  }
  return { base, refs };
}
