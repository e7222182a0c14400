/**
 * The HTML tokenizer that the link extractor (html.ts) and the requisite
 * reader (requisites.ts) share, so that both see the same tags: a
 * hand-written scanner that follows just enough of the WHATWG HTML tokenizer
 * (§13.2.5) to find start tags and their attributes where a browser would,
 * and nowhere else.
 *
 * - Tag and attribute names in any letter case; double-quoted, single-quoted
 *   or unquoted values; whitespace around `=`; attributes in any order; tags
 *   split across lines. Of attributes with the same name the first counts,
 *   as the tokenizer drops the later ones.
 * - An attribute value is decoded by the `entities` package's
 *   decodeHTMLAttribute (full WHATWG table, numeric decimal and hex with the
 *   spec's replacements, the attribute-value rule for legacy names without
 *   `;`), then leading/trailing ASCII whitespace is stripped, as browsers do
 *   before parsing a value as a URL. An attribute without a value has "".
 * - No tags are seen in comments (including `<!-->` and `<!--->`), in the
 *   contents of script, style, title, textarea, xmp, iframe, noembed and
 *   noframes (afterStartTag says where their text ends), in `<![CDATA[
 *   ... ]]>`, `<!DOCTYPE>`, `<?...>`, or after `<plaintext>`. End tags are
 *   skipped. A tag cut off by the end of the page is dropped, and ends the
 *   scan. noscript is normal markup: it is RAWTEXT only with scripting
 *   enabled, and a crawler has none (htmlparser2 agrees).
 * - The body is read as UTF-8; invalid bytes never throw (they become U+FFFD
 *   inside a value and are ignored elsewhere).
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
 * A reader scans the body once as a latin1 string (one char per byte, so
 * indexes are byte offsets), jumping from `<` to `<` with indexOf and looking
 * only at the characters that decide the tokenizer's state. The steps are
 * exported as plain functions over that string, and each reader keeps its
 * own few-line loop over them (the link extractor's, html.ts, shows the
 * shape). The link extractor is on the crawl's hot path (`node
 * dist/bench/bench.js --only extract`): a shared loop in a class, behind
 * method calls, cost it some 5% more instructions, as V8 then ran out of
 * inlining budget before the attribute value's code. Measure any change
 * here with that bench.
 */
import { isAsciiWhitespace, trimAsciiWhitespace } from './ascii-whitespace.js';
import { decodeHTMLAttribute } from './entities.js';

/** What a start tag's name makes of the text after it. */
const NORMAL = 0;
/** Elements whose content is raw text (RAWTEXT / script data / RCDATA): no tags inside. */
const RAW = 1;
/** `<plaintext>`: everything after it is text, for good. */
const PLAINTEXT = 2;

/** For RAW elements: the lower-case name whose end tag closes the raw text. */
let rawName = '';

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

/** Whether the `<` at index i opens a start tag (tag open state: an ASCII letter follows). */
export function opensStartTag(s: string, i: number): boolean {
  return ((s.charCodeAt(i + 1) | 0x20) - 0x61) >>> 0 < 26;
}

/** Whether s[a..b) is `lower` (lower-case ASCII) once ASCII upper-case letters are lowered, as the tokenizer does to names. */
export function nameEquals(s: string, a: number, b: number, lower: string): boolean {
  if (b - a !== lower.length) return false;
  for (let j = 0; j < lower.length; j++) {
    const c = s.charCodeAt(a + j);
    const d = lower.charCodeAt(j);
    if (c !== d && !(c >= 0x41 && c <= 0x5a && c + 0x20 === d)) return false;
  }
  return true;
}

/**
 * What the tag name s[a..b) makes of the text after the tag. Only a few
 * names matter, so it checks the length and first letter before lower-casing
 * anything.
 */
function textKind(s: string, a: number, b: number): number {
  const len = b - a;
  const c = s.charCodeAt(a) | 0x20;
  // s t x i n p: the first letters of the raw-text elements.
  if (len < 3 || len > 9 || (c !== 0x73 && c !== 0x74 && c !== 0x78 && c !== 0x69 && c !== 0x6e && c !== 0x70)) {
    return NORMAL;
  }
  const name = s.slice(a, b).toLowerCase();
  switch (name) {
    // The tree builder switches the tokenizer to RAWTEXT (style, xmp, iframe,
    // noembed, noframes), script data (script) or RCDATA (title, textarea)
    // for these; all of them end only at their own end tag. (noscript is
    // RAWTEXT only with scripting enabled; a crawler has none, so its tags
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
      return NORMAL;
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
    if (isAsciiWhitespace(after) || after === 0x2f || after === 0x3e) return k;
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

/** The final form of an attribute value taken from body[a..b) (s: the body as latin1): UTF-8, entities decoded, ASCII whitespace stripped. */
function attributeValue(body: Buffer, s: string, a: number, b: number): string {
  // Trim the raw range first (cheap, and usually all that is needed); a
  // decoded value is trimmed again, for `&#32;` and the like.
  while (a < b && (CLASS[s.charCodeAt(a)]! & SPACE) !== 0) a++;
  while (b > a && (CLASS[s.charCodeAt(b - 1)]! & SPACE) !== 0) b--;
  // Most values are plain ASCII; the rest go the long way. (Kept small, so
  // that V8 inlines it into the link extractor's loop.)
  for (let k = a; k < b; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0x80 || c === 0x26 || c === 0x0d || c === 0) return unusualValue(body, s, a, b, k);
  }
  return s.slice(a, b);
}

/** attributeValue for a trimmed range whose first byte >= 0x80, `&`, CR or NUL is at index `from`. */
function unusualValue(body: Buffer, s: string, a: number, b: number, from: number): string {
  let high = false;
  let special = false;
  for (let k = from; k < b; k++) {
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
  // Strip leading and trailing ASCII whitespace, as browsers do before
  // parsing a URL.
  return trimAsciiWhitespace(decodeHTMLAttribute(v));
}

/** The end of a tag name that starts at index p (tag name state: it ends at whitespace, `/` or `>`, or at the end of the page). */
export function tagNameEnd(s: string, p: number): number {
  const n = s.length;
  while (p < n && (CLASS[s.charCodeAt(p)]! & END_NAME) === 0) p++;
  return p;
}

/**
 * Skips what starts at the `<` at index i when it opens no start tag: an end
 * tag, a comment, a DOCTYPE, a CDATA section, a bogus comment, or a `<` that
 * is text. Returns the index of the next `<` after it, or -1 when there is
 * none or the page ends inside the construct.
 */
export function skipMarkup(s: string, i: number): number {
  // End tag open state, then tag name state. End tags carry attributes too
  // (dropped), and their quoted values may contain `>`, so they are scanned
  // like start tags. (The common case, kept small for V8 to inline.)
  const end = s.charCodeAt(i + 1) === 0x2f && opensStartTag(s, i + 1) ? scanAttributes(s, tagNameEnd(s, i + 3), null) : skipOther(s, i);
  return end < 0 ? -1 : s.indexOf('<', end);
}

/** skipMarkup's rarer cases: where the construct at the `<` at index i ends (the index after it), or -1. */
function skipOther(s: string, i: number): number {
  const c = s.charCodeAt(i + 1);
  let end: number;
  if (c === 0x2f /* / */) {
    // End tag open state, not followed by a letter.
    const d = s.charCodeAt(i + 2);
    if (d === 0x3e) return i + 3; // `</>`: "missing-end-tag-name", ignored
    if (i + 2 >= s.length) return -1; // `</` at EOF is text
    // "invalid-first-character-of-tag-name": a bogus comment up to `>`.
    end = s.indexOf('>', i + 2);
  } else if (c === 0x21 /* ! */) {
    // Markup declaration open state.
    if (s.charCodeAt(i + 2) === 0x2d && s.charCodeAt(i + 3) === 0x2d) return skipComment(s, i);
    if (s.startsWith('[CDATA[', i + 2)) {
      // A CDATA section ends at `]]>`, as it does in SVG and MathML and in
      // htmlparser2. Deliberately not the spec's rule for plain HTML content
      // (a bogus comment ending at the first `>`): without a tree builder we
      // can't tell the two apart, and hiding a tag an author wrapped in
      // CDATA is the safer mistake.
      end = s.indexOf(']]>', i + 9);
      return end < 0 ? -1 : end + 3;
    }
    // DOCTYPE and bogus comments both end at the first `>`: even a quoted
    // DOCTYPE identifier ends there ("abrupt-doctype-...").
    end = s.indexOf('>', i + 2);
  } else if (c === 0x3f /* ? */) {
    // "unexpected-question-mark-instead-of-tag-name": a bogus comment.
    end = s.indexOf('>', i + 2);
  } else {
    // Any other `<` is text.
    return i + 1;
  }
  return end < 0 ? -1 : end + 1;
}

/**
 * Where to look for the next tag after a start tag whose name is
 * s[nameStart..nameEnd) and which ends just before index `end`: the next
 * `<`, or, for a raw-text element (script, style, title, textarea, xmp,
 * iframe, noembed, noframes), the `</` of its end tag, so that its text,
 * s[end..result), is skipped; -1 when no tag can follow (the text runs to
 * the end of the page, as after `<plaintext>`).
 */
export function afterStartTag(s: string, nameStart: number, nameEnd: number, end: number): number {
  const kind = textKind(s, nameStart, nameEnd);
  if (kind === NORMAL) return s.indexOf('<', end);
  return kind === RAW ? findRawEnd(s, end, rawName) : -1;
}

/**
 * The attributes of a tag, as scanAttributes records them: ranges of the
 * latin1 page string. Reused from tag to tag (no allocation per tag).
 */
export class TagAttributes {
  /** name start, name end, value start, value end: four slots an attribute. */
  readonly ranges: number[] = [];
  count = 0;

  /** The index of the first attribute named `lower` (lower-case) in any letter case, or -1: the one that counts. */
  find(s: string, lower: string): number {
    const r = this.ranges;
    const len = lower.length;
    for (let k = 0; k < this.count; k++) {
      const a = r[4 * k]!;
      if (r[4 * k + 1]! - a === len && nameEquals(s, a, a + len, lower)) return k;
    }
    return -1;
  }

  /** Whether attribute k is named `lower` (lower-case), in any letter case. */
  is(s: string, k: number, lower: string): boolean {
    return nameEquals(s, this.ranges[4 * k]!, this.ranges[4 * k + 1]!, lower);
  }

  /** Attribute k's value: see attributeValue. */
  value(body: Buffer, s: string, k: number): string {
    return attributeValue(body, s, this.ranges[4 * k + 2]!, this.ranges[4 * k + 3]!);
  }
}

/**
 * Scans the attributes of a start or end tag, from just after its name, and
 * returns the index just past its `>`, or -1 if the page ends inside the tag
 * ("eof-in-tag": the tag is dropped). Records them in `into` when given.
 */
export function scanAttributes(s: string, p: number, into: TagAttributes | null): number {
  const n = s.length;
  let count = 0;
  let c = 0;
  for (;;) {
    // Before attribute name state. A `/` not followed by `>` sends the
    // self-closing start tag state straight back here, so it acts like space.
    while (p < n && ((CLASS[(c = s.charCodeAt(p))]! & SPACE) !== 0 || c === 0x2f)) p++;
    if (p >= n) return -1;
    if (c === 0x3e) {
      if (into !== null) into.count = count;
      return p + 1;
    }
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
    if (into !== null) {
      const r = into.ranges;
      const at = 4 * count++;
      r[at] = nameStart;
      r[at + 1] = nameEnd;
      r[at + 2] = valueStart;
      r[at + 3] = valueEnd;
    }
  }
}
