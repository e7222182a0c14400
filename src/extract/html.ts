/**
 * An HTML-aware link extractor for the TinySearch crawler: a hand-written
 * scanner that follows just enough of the WHATWG HTML tokenizer (§13.2.5) to
 * find `<a href>` and `<base href>` where a browser would, and nowhere else.
 */
import type { ExtractedLinks, LinkExtractor } from './types.js';
import { decodeHTMLAttribute } from './entities.js';

// Tag kinds that change what the scanner does after the start tag.
const OTHER = 0;
const ANCHOR = 1;
const BASE = 2;
/** Elements whose content is raw text (RAWTEXT / script data / RCDATA): no tags inside. */
const RAW = 3;
/** `<plaintext>`: everything after it is text, for good. */
const PLAINTEXT = 4;

/**
 * Where the first href attribute of the tag just scanned sits: a range of the
 * latin1 page string (= a byte range of the body). Module-level slots instead
 * of a returned object: scanning is synchronous and this avoids an
 * allocation per tag on the hot path.
 */
let hrefStart = -1;
let hrefEnd = -1;
/** For RAW elements: the lower-case name whose end tag closes the raw text. */
let rawName = '';

/** ASCII whitespace as the tokenizer sees it (CR included: the input stream turns it into LF). */
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

// Character classes for the hot loops, indexed by char code (the page is a
// latin1 string, so every code is < 256): one table load instead of a chain
// of comparisons per character.
/** Ends a tag name: whitespace, `/`, `>`. */
const END_NAME = 1;
/** Ends an attribute name: whitespace, `/`, `>`, `=`. */
const END_ATTR = 2;
/** Ends an unquoted attribute value: whitespace, `>`. */
const END_VALUE = 4;
const SPACE = 8;
const CLASS = new Uint8Array(256);
for (const c of [0x20, 0x0a, 0x09, 0x0c, 0x0d]) CLASS[c] = END_NAME | END_ATTR | END_VALUE | SPACE;
CLASS[0x2f] = END_NAME | END_ATTR;
CLASS[0x3e] = END_NAME | END_ATTR | END_VALUE;
CLASS[0x3d] = END_ATTR;

function isAlpha(c: number): boolean {
  return ((c | 0x20) - 0x61) >>> 0 < 26;
}

/** Whether the attribute name s[a..b) is `href` in any letter case. */
function isHref(s: string, a: number, b: number): boolean {
  return (
    b - a === 4 &&
    (s.charCodeAt(a) | 0x20) === 0x68 &&
    (s.charCodeAt(a + 1) | 0x20) === 0x72 &&
    (s.charCodeAt(a + 2) | 0x20) === 0x65 &&
    (s.charCodeAt(a + 3) | 0x20) === 0x66
  );
}

/**
 * Classifies the tag name s[a..b). Only a few names matter, so it checks the
 * length and first letter before lower-casing anything.
 */
function classify(s: string, a: number, b: number): number {
  const len = b - a;
  const c = s.charCodeAt(a) | 0x20;
  if (len === 1) return c === 0x61 ? ANCHOR : OTHER;
  if (len === 4) return c === 0x62 && s.slice(a, b).toLowerCase() === 'base' ? BASE : OTHER;
  // s t x i n p: the first letters of the raw-text elements.
  if (len < 3 || len > 9 || (c !== 0x73 && c !== 0x74 && c !== 0x78 && c !== 0x69 && c !== 0x6e && c !== 0x70)) {
    return OTHER;
  }
  const name = s.slice(a, b).toLowerCase();
  switch (name) {
    // The tree builder switches the tokenizer to RAWTEXT (style, xmp, iframe,
    // noembed, noframes), script data (script) or RCDATA (title, textarea)
    // for these; all of them end only at their own end tag. (noscript is
    // RAWTEXT only with scripting enabled; a crawler has none, so its links
    // count, as htmlparser2 also does.)
    case 'script':
    case 'style':
    case 'title':
    case 'textarea':
    case 'xmp':
    case 'iframe':
    case 'noembed':
    case 'noframes':
      rawName = name;
      return RAW;
    case 'plaintext':
      return PLAINTEXT;
    default:
      return OTHER;
  }
}

/**
 * Scans the attributes of a start or end tag, from just after its name, and
 * returns the index just past its `>`, or -1 if the page ends inside the tag
 * ("eof-in-tag": the tag is dropped). Records the first href attribute in
 * hrefStart/hrefEnd when `want` is set; later duplicates are ignored, as the
 * tokenizer drops duplicate attributes.
 */
function scanAttributes(s: string, p: number, n: number, want: boolean): number {
  let c = 0;
  for (;;) {
    // Before attribute name state. A `/` not followed by `>` sends the
    // self-closing start tag state straight back here, so it acts like space.
    while (p < n && ((CLASS[(c = s.charCodeAt(p))]! & SPACE) !== 0 || c === 0x2f)) p++;
    if (p >= n) return -1;
    if (c === 0x3e) return p + 1;
    // Attribute name state. The first character is always part of the name,
    // even `=` ("unexpected-equals-sign-before-attribute-name").
    const nameStart = p++;
    while (p < n && (CLASS[s.charCodeAt(p)]! & END_ATTR) === 0) p++;
    const nameEnd = p;
    // After attribute name state.
    while (p < n && (CLASS[(c = s.charCodeAt(p))]! & SPACE) !== 0) p++;
    if (p >= n) return -1;
    let valueStart = p;
    let valueEnd = p; // an attribute without `=` has the empty value
    if (c === 0x3d) {
      p++;
      // Before attribute value state.
      while (p < n && (CLASS[(c = s.charCodeAt(p))]! & SPACE) !== 0) p++;
      if (p >= n) return -1;
      if (c === 0x22 || c === 0x27) {
        // Attribute value (double- or single-quoted) state: runs to the same
        // quote, across `>` and newlines.
        const close = s.indexOf(c === 0x22 ? '"' : "'", p + 1);
        if (close < 0) return -1;
        valueStart = p + 1;
        valueEnd = close;
        p = close + 1;
      } else if (c !== 0x3e) {
        // Attribute value (unquoted) state: ends at whitespace or `>`. (A
        // `>` right here is "missing-attribute-value": the value stays the
        // empty range above, and the loop's next turn ends the tag.)
        valueStart = p;
        while (p < n && (CLASS[s.charCodeAt(p)]! & END_VALUE) === 0) p++;
        if (p >= n) return -1;
        valueEnd = p;
      }
    }
    if (want && hrefStart < 0 && isHref(s, nameStart, nameEnd)) {
      hrefStart = valueStart;
      hrefEnd = valueEnd;
    }
  }
}

/**
 * Returns the index of the `</name` that ends a raw-text element (an
 * "appropriate end tag": `</` + the name in any case + whitespace, `/` or
 * `>`), or -1 when the page ends first: then everything after the start tag
 * is the element's text.
 */
function findRawEnd(s: string, from: number, name: string): number {
  const len = name.length;
  for (let k = s.indexOf('</', from); k >= 0; k = s.indexOf('</', k + 2)) {
    let j = 0;
    // Every name is letters only, so `| 0x20` lower-cases exactly those.
    while (j < len && (s.charCodeAt(k + 2 + j) | 0x20) === name.charCodeAt(j)) j++;
    if (j < len) continue;
    const after = s.charCodeAt(k + 2 + len); // NaN past the end: not an end tag
    if (isSpace(after) || after === 0x2f || after === 0x3e) return k;
  }
  return -1;
}

/** Where a comment that starts at `<!--` (index i) ends: the index after it, or -1 at EOF. */
function skipComment(s: string, i: number): number {
  let p = i + 4;
  // Comment start state: `<!-->`; comment start dash state: `<!--->`
  // ("abrupt-closing-of-empty-comment").
  if (s.charCodeAt(p) === 0x3e) return p + 1;
  if (s.charCodeAt(p) === 0x2d && s.charCodeAt(p + 1) === 0x3e) return p + 2;
  for (;;) {
    const d = s.indexOf('--', p);
    if (d < 0) return -1; // "eof-in-comment": the rest of the page is the comment
    // Comment end state: more dashes stay in it; `>` or `!>` (comment end
    // bang state, "incorrectly-closed-comment") ends the comment.
    let q = d + 2;
    while (s.charCodeAt(q) === 0x2d) q++;
    const c = s.charCodeAt(q);
    if (c === 0x3e) return q + 1;
    if (c === 0x21 && s.charCodeAt(q + 1) === 0x3e) return q + 2;
    p = q;
  }
}

/** The final form of an attribute value taken from body[a..b). */
function attributeValue(body: Buffer, s: string, a: number, b: number): string {
  // Trim the raw range first (cheap, and usually all that is needed); the
  // decoded value is trimmed again below, for `&#32;` and the like.
  while (a < b && (CLASS[s.charCodeAt(a)]! & SPACE) !== 0) a++;
  while (b > a && (CLASS[s.charCodeAt(b - 1)]! & SPACE) !== 0) b--;
  // One pass to learn which of the rare steps below this value needs.
  let high = false;
  let special = false;
  for (let k = a; k < b; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0x80) high = true;
    else if (c === 0x26 || c === 0x0d || c === 0) special = true;
  }
  // Bytes >= 0x80 are UTF-8 (invalid sequences become U+FFFD). Done before
  // entity decoding, which may produce non-ASCII characters of its own that
  // must not be reinterpreted as bytes.
  let v = high ? body.toString('utf8', a, b) : s.slice(a, b);
  if (!special) return v;
  // Input stream preprocessing (§13.2.3.5): CRLF and lone CR become LF,
  // before character references (so `&#13;` stays a CR); the tokenizer
  // replaces NUL in attribute values with U+FFFD.
  if (v.indexOf('\r') >= 0) v = v.replace(/\r\n?/g, '\n');
  if (v.indexOf('\0') >= 0) v = v.replace(/\0/g, '\ufffd');
  v = decodeHTMLAttribute(v);
  // Strip leading and trailing ASCII whitespace, as browsers do before
  // parsing an href as a URL (String.prototype.trim would also strip
  // U+00A0 and other Unicode spaces, which belong to the URL).
  let from = 0;
  let to = v.length;
  while (from < to && isSpace(v.charCodeAt(from))) from++;
  while (to > from && isSpace(v.charCodeAt(to - 1))) to--;
  return from === 0 && to === v.length ? v : v.slice(from, to);
}

/**
 * HTML-aware link extractor: the href of every `<a>` start tag, in document
 * order, as a browser's tokenizer would read it, plus the first `<base href>`.
 *
 * - Tag and attribute names in any letter case; double-quoted, single-quoted
 *   or unquoted values; whitespace around `=`; attributes in any order; tags
 *   split across lines. The first href attribute of a tag wins.
 * - Character references are decoded by the `entities` package's
 *   decodeHTMLAttribute (full WHATWG table, numeric decimal and hex with the
 *   spec's replacements, the attribute-value rule for legacy names without
 *   `;`), then leading/trailing ASCII whitespace is stripped. `href` with no
 *   value, or `href=""`, gives "" (a link to the page itself). `<a>` without
 *   href gives nothing.
 * - Nothing is taken from comments (including `<!-->` and `<!--->`), from the
 *   contents of script, style, title, textarea, xmp, iframe, noembed and
 *   noframes, from `<![CDATA[ ... ]]>`, `<!DOCTYPE>`, `<?...>`, end tags, or
 *   after `<plaintext>`. A tag cut off by the end of the page is dropped.
 * - Only `<a>`: `<area href>`, `<link href>` and other elements are ignored
 *   (a crawler following what a reader can click; add them here if needed).
 * - The body is read as UTF-8; invalid bytes never throw (they become U+FFFD
 *   inside an href and are ignored elsewhere).
 *
 * Simplifications, all shared with htmlparser2 unless noted: no tree builder,
 * so no foreign-content tracking (inside inline `<svg>`/`<math>`, `<style>`,
 * `<title>` etc. are still raw text here, while browsers and htmlparser2
 * parse their contents as markup); no script-data escape states (`<!--
 * <script> ... </script> -->` inside a script ends it at the first
 * `</script>`); `<![CDATA[` always ends at `]]>`. Following the spec where
 * htmlparser2 does not: end tags' quoted attribute values may hold `>`, a
 * CR or CRLF in a value becomes LF, a NUL becomes U+FFFD, and `<a = href=x>`
 * has an href (the `=` starts an attribute name).
 *
 * It scans the body once as a latin1 string (one char per byte, so indexes
 * are byte offsets), jumping from `<` to `<` with indexOf and looking only at
 * the characters that decide the tokenizer's state.
 */
export class HtmlLinkExtractor implements LinkExtractor {
  extract(body: Buffer): ExtractedLinks {
    const s = body.toString('latin1');
    const n = s.length;
    const hrefs: string[] = [];
    let base: string | undefined;
    // Data state: text (and its character references) never holds a link, so
    // jump straight to the next `<` (tag open state).
    let i = s.indexOf('<');
    while (i >= 0) {
      const c = s.charCodeAt(i + 1);
      if (isAlpha(c)) {
        // Tag name state: the name ends at whitespace, `/` or `>`.
        let p = i + 2;
        while (p < n && (CLASS[s.charCodeAt(p)]! & END_NAME) === 0) p++;
        const kind = classify(s, i + 1, p);
        hrefStart = -1;
        const end = scanAttributes(s, p, n, kind === ANCHOR || (kind === BASE && base === undefined));
        if (end < 0) break; // eof-in-tag: the tag never happened
        if (hrefStart >= 0) {
          const value = attributeValue(body, s, hrefStart, hrefEnd);
          if (kind === ANCHOR) hrefs.push(value);
          else base = value;
        }
        if (kind === RAW) {
          i = findRawEnd(s, end, rawName);
        } else if (kind === PLAINTEXT) {
          break;
        } else {
          i = s.indexOf('<', end);
        }
      } else if (c === 0x2f /* / */) {
        // End tag open state.
        const d = s.charCodeAt(i + 2);
        let end: number;
        if (isAlpha(d)) {
          let p = i + 3;
          while (p < n && (CLASS[s.charCodeAt(p)]! & END_NAME) === 0) p++;
          // End tags carry attributes too (dropped), and their quoted values
          // may contain `>`, so they are scanned like start tags.
          end = scanAttributes(s, p, n, false);
        } else if (d === 0x3e) {
          end = i + 3; // `</>`: "missing-end-tag-name", ignored
        } else if (i + 2 >= n) {
          break; // `</` at EOF is text
        } else {
          // "invalid-first-character-of-tag-name": a bogus comment up to `>`.
          end = s.indexOf('>', i + 2);
          if (end >= 0) end++;
        }
        if (end < 0) break;
        i = s.indexOf('<', end);
      } else if (c === 0x21 /* ! */) {
        // Markup declaration open state.
        let end: number;
        if (s.charCodeAt(i + 2) === 0x2d && s.charCodeAt(i + 3) === 0x2d) {
          end = skipComment(s, i);
        } else if (s.startsWith('[CDATA[', i + 2)) {
          // A CDATA section ends at `]]>`, as it does in SVG and MathML and
          // in htmlparser2. Deliberately not the spec's rule for plain HTML
          // content (a bogus comment ending at the first `>`): without a tree
          // builder we can't tell the two apart, and hiding a link an author
          // wrapped in CDATA is the safer mistake.
          end = s.indexOf(']]>', i + 9);
          if (end >= 0) end += 3;
        } else {
          // DOCTYPE and bogus comments both end at the first `>`: even a
          // quoted DOCTYPE identifier ends there ("abrupt-doctype-...").
          end = s.indexOf('>', i + 2);
          if (end >= 0) end++;
        }
        if (end < 0) break;
        i = s.indexOf('<', end);
      } else if (c === 0x3f /* ? */) {
        // "unexpected-question-mark-instead-of-tag-name": a bogus comment.
        const end = s.indexOf('>', i + 2);
        if (end < 0) break;
        i = s.indexOf('<', end + 1);
      } else {
        // Any other `<` is text.
        i = s.indexOf('<', i + 1);
      }
    }
    return { hrefs, base };
  }
}
