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
 *   noframes (their text is handed to the caller instead), in `<![CDATA[
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
 * It scans the body once as a latin1 string (one char per byte, so indexes
 * are byte offsets), jumping from `<` to `<` with indexOf and looking only at
 * the characters that decide the tokenizer's state. The link extractor is on
 * the crawl's hot path (`node dist/bench/bench.js --only extract`): keep the
 * loops here lean.
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
for (const c of [0x20, 0x0a, 0x09, 0x0c, 0x0d])
  CLASS[c] = END_NAME | END_ATTR | END_VALUE | SPACE;
CLASS[0x2f] = END_NAME | END_ATTR;
CLASS[0x3e] = END_NAME | END_ATTR | END_VALUE;
CLASS[0x3d] = END_ATTR;
function isAlpha(c: number): boolean {
  return ((c | 0x20) - 0x61) >>> 0 < 26;
}
/** Whether s[a..b) is `lower` (lower-case ASCII) once ASCII upper-case letters are lowered, as the tokenizer does to names. */
function nameEquals(s: string, a: number, b: number, lower: string): boolean {
  if (b - a !== lower.length)
    return false;
  for (let j = 0; j < lower.length; j++) {
    const c = s.charCodeAt(a + j);
    const d = lower.charCodeAt(j);
    if (c !== d && !(c >= 0x41 && c <= 0x5a && c + 0x20 === d))
      return false;
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
    while (j < len && (s.charCodeAt(k + 2 + j) | 0x20) === name.charCodeAt(j))
      j++;
    if (j < len)
      continue;
    const after = s.charCodeAt(k + 2 + len); // NaN past the end: not an end tag
    if (isAsciiWhitespace(after) || after === 0x2f || after === 0x3e)
      return k;
  }
  return -1;
}
/** Where a comment that starts at `<!--` (index i) ends: the index after it, or -1 at EOF. */
function skipComment(s: string, i: number): number {
  let p = i + 4;
  // Comment start state: `<!-->`; comment start dash state: `<!--->`
  // ("abrupt-closing-of-empty-comment").
  if (s.charCodeAt(p) === 0x3e)
    return p + 1;
  if (s.charCodeAt(p) === 0x2d && s.charCodeAt(p + 1) === 0x3e)
    return p + 2;
  for (;;) {
    const d = s.indexOf('--', p);
    if (d < 0)
      return -1; // "eof-in-comment": the rest of the page is the comment
    // Comment end state: more dashes stay in it; `>` or `!>` (comment end
    // bang state, "incorrectly-closed-comment") ends the comment.
    let q = d + 2;
    while (s.charCodeAt(q) === 0x2d)
      q++;
    const c = s.charCodeAt(q);
    if (c === 0x3e)
      return q + 1;
    if (c === 0x21 && s.charCodeAt(q + 1) === 0x3e)
      return q + 2;
    p = q;
  }
}
/** The final form of an attribute value taken from body[a..b). */
function attributeValue(body: Buffer, s: string, a: number, b: number): string {
  // Trim the raw range first (cheap, and usually all that is needed); the
  // decoded value is trimmed again below, for `&#32;` and the like.
  while (a < b && (CLASS[s.charCodeAt(a)] & SPACE) !== 0)
    a++;
  while (b > a && (CLASS[s.charCodeAt(b - 1)] & SPACE) !== 0)
    b--;
  // One pass to learn which of the rare steps below this value needs.
  let high = false;
  let special = false;
  for (let k = a; k < b; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0x80)
      high = true;
    else if (c === 0x26 || c === 0x0d || c === 0)
      special = true;
  }
  // Bytes >= 0x80 are UTF-8 (invalid sequences become U+FFFD). Done before
  // entity decoding, which may produce non-ASCII characters of its own that
  // must not be reinterpreted as bytes.
  let v = high ? body.toString('utf8', a, b) : s.slice(a, b);
  if (!special)
    return v;
  // Input stream preprocessing (§13.2.3.5): CRLF and lone CR become LF,
  // before character references (so `&#13;` stays a CR); the tokenizer
  // replaces NUL in attribute values with U+FFFD.
  if (v.indexOf('\r') >= 0)
    v = v.replace(/\r\n?/g, '\n');
  if (v.indexOf('\0') >= 0)
    v = v.replace(/\0/g, '\ufffd');
  // Strip leading and trailing ASCII whitespace, as browsers do before
  // parsing a URL.
  return trimAsciiWhitespace(decodeHTMLAttribute(v));
}
/**
 * Walks the start tags of one page body in document order:
 *
 *     const t = new TagScanner(body);
 *     while (t.nextStartTag()) {
 *       // t.nameIs('img') ...
 *       if (!t.readAttributes(true)) break;
 *       const k = t.attribute('src'); if (k >= 0) use(t.value(k));
 *     }
 *
 * After nextStartTag returns true, call readAttributes once (nextStartTag
 * does it, unrecorded, if the caller did not): it reads the tag to its `>`,
 * keeps the attributes when asked, and learns where the next tag can be.
 */
export class TagScanner {
  /** The page as a latin1 string: one char per byte, so indexes are byte offsets. */
  private readonly s: string;
  private readonly body: Buffer;
  /** Index of the next `<` to look at, or -1 when the scan is over. */
  private next: number;
  /** Whether the current start tag's attributes are still unread. */
  private pending = false;
  /** The current start tag's name, s[nameStart..nameEnd). */
  private nameStart = 0;
  private nameEnd = 0;
  /** The recorded attributes: name start, name end, value start, value end, four slots each. */
  private readonly attrs: number[] = [];
  /** How many attributes the last readAttributes(true) recorded (0 after readAttributes(false)). */
  attributeCount = 0;
  /**
   * For a raw-text element (script, style, title, textarea, xmp, iframe,
   * noembed, noframes, plaintext): where its text starts and ends in the
   * body, byte offsets; -1 for other elements. The text runs to the end of
   * the page when its end tag never comes.
   */
  textStart = -1;
  textEnd = -1;
  constructor(body: Buffer) {
    this.body = body;
    this.s = body.toString('latin1');
    this.next = this.s.indexOf('<');
  }
  /** Moves to the next start tag; false when there is none. */
  nextStartTag(): boolean {
    if (this.pending && !this.readAttributes(false))
      return false;
    const s = this.s;
    const n = s.length;
    // Data state: text (and its character references) never holds a tag, so
    // jump straight to the next `<` (tag open state).
    let i = this.next;
    while (i >= 0) {
      const c = s.charCodeAt(i + 1);
      if (isAlpha(c)) {
        // Tag name state: the name ends at whitespace, `/` or `>`.
        let p = i + 2;
        while (p < n && (CLASS[s.charCodeAt(p)] & END_NAME) === 0)
          p++;
        this.nameStart = i + 1;
        this.nameEnd = p;
        this.pending = true;
        return true;
      }
      else if (c === 0x2f /* / */) {
        // End tag open state.
        const d = s.charCodeAt(i + 2);
        let end;
        if (isAlpha(d)) {
          let p = i + 3;
          while (p < n && (CLASS[s.charCodeAt(p)] & END_NAME) === 0)
            p++;
          // End tags carry attributes too (dropped), and their quoted values
          // may contain `>`, so they are scanned like start tags.
          end = this.scanAttributes(p, false);
        }
        else if (d === 0x3e) {
          end = i + 3; // `</>`: "missing-end-tag-name", ignored
        }
        else if (i + 2 >= n) {
          break; // `</` at EOF is text
        }
        else {
          // "invalid-first-character-of-tag-name": a bogus comment up to `>`.
          end = s.indexOf('>', i + 2);
          if (end >= 0)
            end++;
        }
        if (end < 0)
          break;
        i = s.indexOf('<', end);
      }
      else if (c === 0x21 /* ! */) {
        // Markup declaration open state.
        let end;
        if (s.charCodeAt(i + 2) === 0x2d && s.charCodeAt(i + 3) === 0x2d) {
          end = skipComment(s, i);
        }
        else if (s.startsWith('[CDATA[', i + 2)) {
          // A CDATA section ends at `]]>`, as it does in SVG and MathML and
          // in htmlparser2. Deliberately not the spec's rule for plain HTML
          // content (a bogus comment ending at the first `>`): without a tree
          // builder we can't tell the two apart, and hiding a tag an author
          // wrapped in CDATA is the safer mistake.
          end = s.indexOf(']]>', i + 9);
          if (end >= 0)
            end += 3;
        }
        else {
          // DOCTYPE and bogus comments both end at the first `>`: even a
          // quoted DOCTYPE identifier ends there ("abrupt-doctype-...").
          end = s.indexOf('>', i + 2);
          if (end >= 0)
            end++;
        }
        if (end < 0)
          break;
        i = s.indexOf('<', end);
      }
      else if (c === 0x3f /* ? */) {
        // "unexpected-question-mark-instead-of-tag-name": a bogus comment.
        const end = s.indexOf('>', i + 2);
        if (end < 0)
          break;
        i = s.indexOf('<', end + 1);
      }
      else {
        // Any other `<` is text.
        i = s.indexOf('<', i + 1);
      }
    }
    this.next = -1;
    return false;
  }
  /** Whether the current tag's name is `lower` (lower-case) in any letter case. */
  nameIs(lower: string): boolean {
    return nameEquals(this.s, this.nameStart, this.nameEnd, lower);
  }
  /** The length of the current tag's name, in bytes. */
  nameLength(): number {
    return this.nameEnd - this.nameStart;
  }
  /**
   * Reads the current start tag's attributes up to its `>`, recording them
   * when `record` is set. False when the page ends inside the tag
   * ("eof-in-tag"): the tag never happened, and the scan is over.
   */
  readAttributes(record: boolean): boolean {
    this.pending = false;
    const s = this.s;
    const end = this.scanAttributes(this.nameEnd, record);
    if (end < 0) {
      this.next = -1;
      this.attributeCount = 0;
      return false;
    }
    const kind = textKind(s, this.nameStart, this.nameEnd);
    if (kind === NORMAL) {
      this.textStart = -1;
      this.textEnd = -1;
      this.next = s.indexOf('<', end);
    }
    else if (kind === RAW) {
      const close = findRawEnd(s, end, rawName);
      this.textStart = end;
      this.textEnd = close < 0 ? s.length : close;
      this.next = close;
    }
    else {
      this.textStart = end;
      this.textEnd = s.length;
      this.next = -1;
    }
    return true;
  }
  /** The index of the first recorded attribute named `lower` (lower-case) in any letter case, or -1. */
  attribute(lower: string): number {
    const a = this.attrs;
    for (let k = 0; k < this.attributeCount; k++) {
      if (nameEquals(this.s, a[4 * k], a[4 * k + 1], lower))
        return k;
    }
    return -1;
  }
  /** Whether recorded attribute k is named `lower` (lower-case), in any letter case. */
  attributeIs(k: number, lower: string): boolean {
    return nameEquals(this.s, this.attrs[4 * k], this.attrs[4 * k + 1], lower);
  }
  /** The value of recorded attribute k: UTF-8, entities decoded, ASCII whitespace trimmed. */
  value(k: number): string {
    return attributeValue(this.body, this.s, this.attrs[4 * k + 2], this.attrs[4 * k + 3]);
  }
  /**
   * Scans the attributes of a start or end tag, from just after its name, and
   * returns the index just past its `>`, or -1 if the page ends inside the tag.
   * With `record`, every attribute's name and value ranges go to `attrs`.
   */
  private scanAttributes(p: number, record: boolean): number {
    const s = this.s;
    const n = s.length;
    const attrs = this.attrs;
    let count = 0;
    let c = 0;
    for (;;) {
      // Before attribute name state. A `/` not followed by `>` sends the
      // self-closing start tag state straight back here, so it acts like space.
      while (p < n && ((CLASS[(c = s.charCodeAt(p))] & SPACE) !== 0 || c === 0x2f))
        p++;
      if (p >= n)
        return -1;
      if (c === 0x3e) {
        this.attributeCount = count;
        return p + 1;
      }
      // Attribute name state. The first character is always part of the name,
      // even `=` ("unexpected-equals-sign-before-attribute-name").
      const nameStart = p++;
      while (p < n && (CLASS[s.charCodeAt(p)] & END_ATTR) === 0)
        p++;
      const nameEnd = p;
      // After attribute name state.
      while (p < n && (CLASS[(c = s.charCodeAt(p))] & SPACE) !== 0)
        p++;
      if (p >= n)
        return -1;
      let valueStart = p;
      let valueEnd = p; // an attribute without `=` has the empty value
      if (c === 0x3d) {
        p++;
        // Before attribute value state.
        while (p < n && (CLASS[(c = s.charCodeAt(p))] & SPACE) !== 0)
          p++;
        if (p >= n)
          return -1;
        if (c === 0x22 || c === 0x27) {
          // Attribute value (double- or single-quoted) state: runs to the same
          // quote, across `>` and newlines.
          const close = s.indexOf(c === 0x22 ? '"' : "'", p + 1);
          if (close < 0)
            return -1;
          valueStart = p + 1;
          valueEnd = close;
          p = close + 1;
        }
        else if (c !== 0x3e) {
          // Attribute value (unquoted) state: ends at whitespace or `>`. (A
          // `>` right here is "missing-attribute-value": the value stays the
          // empty range above, and the loop's next turn ends the tag.)
          valueStart = p;
          while (p < n && (CLASS[s.charCodeAt(p)] & END_VALUE) === 0)
            p++;
          if (p >= n)
            return -1;
          valueEnd = p;
        }
      }
      if (record) {
        const at = 4 * count++;
        attrs[at] = nameStart;
        attrs[at + 1] = nameEnd;
        attrs[at + 2] = valueStart;
        attrs[at + 3] = valueEnd;
      }
    }
  }
}
