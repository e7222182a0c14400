/**
 * A CSS tokenizer after CSS Syntax Level 3 (§4, "Tokenization"), for
 * css-urls.ts: every token kind the spec has, so that url(...) and @import
 * are found exactly where a browser finds them, with the values of the
 * tokens that can name a URL (strings, urls, function names, at-keywords)
 * and none of the numeric values.
 *
 * Followed: input preprocessing (CR, CRLF, FF become LF; NUL becomes
 * U+FFFD); comments `/* *\/` skipped, an unclosed one runs to the end;
 * strings in either quote with escapes, line continuations (`\` newline),
 * and a raw newline making a bad string; hex escapes (1-6 digits, one
 * whitespace after them eaten; 0, surrogates and > U+10FFFF become U+FFFD)
 * and one-character escapes in identifiers, strings and urls; idents,
 * functions and at-keywords that start with `-`, `--`, a non-ASCII character
 * or an escape; `url(` in any letter case, even escaped (`\75 rl(`), giving
 * a url token when unquoted and a `url` function token when its first
 * non-whitespace character is a quote; bad urls (a quote, `(` or a
 * non-printable character inside an unquoted url; their remnants are skipped
 * up to `)` with escapes honoured); numbers, percentages and dimensions (so
 * `1url(x)` is not a url); hashes; CDO `<!--` and CDC `-->`. Unicode-range
 * tokens are not made, as the current draft also no longer does.
 */

export const EOF = 0;
export const WHITESPACE = 1;
/** value: the string's contents, escapes decoded. */
export const STRING = 2;
export const BAD_STRING = 3;
/** value: the url's contents, escapes decoded. */
export const URL = 4;
export const BAD_URL = 5;
/** value: the function's name, escapes decoded (the `(` is part of the token). */
export const FUNCTION = 6;
/** value: the name after `@`, escapes decoded. */
export const AT_KEYWORD = 7;
export const IDENT = 8;
export const HASH = 9;
/** A number, percentage or dimension. */
export const NUMBER = 10;
export const DELIM = 11;
export const CDO = 12;
export const CDC = 13;
export const COLON = 14;
export const SEMICOLON = 15;
export const COMMA = 16;
export const OPEN_SQUARE = 17;
export const CLOSE_SQUARE = 18;
export const OPEN_PAREN = 19;
export const CLOSE_PAREN = 20;
export const OPEN_CURLY = 21;
export const CLOSE_CURLY = 22;

/** Whitespace after preprocessing: LF, TAB, SPACE. */
function isWhitespace(c: number): boolean {
  return c === 0x0a || c === 0x09 || c === 0x20;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHexDigit(c: number): boolean {
  return isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** Ident-start code point: a letter, `_`, or non-ASCII. (NaN, past the end, is none.) */
function isIdentStart(c: number): boolean {
  return ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) || c === 0x5f || c >= 0x80;
}

function isIdentChar(c: number): boolean {
  return isIdentStart(c) || isDigit(c) || c === 0x2d;
}

/** Non-printable code points, which make an unquoted url bad. */
function isNonPrintable(c: number): boolean {
  return c <= 0x08 || c === 0x0b || (c >= 0x0e && c <= 0x1f) || c === 0x7f;
}

/** Tokens of one stylesheet (or style attribute), one `next()` at a time. */
export class CssTokenizer {
  private readonly s: string;
  private p = 0;
  /** The value of the last STRING, URL, FUNCTION, AT_KEYWORD, IDENT or HASH token. */
  value = '';

  constructor(text: string) {
    // Input preprocessing (§3.3). Lone surrogates are left alone: nothing
    // here depends on them, and the URL parser replaces them when encoding.
    this.s = /[\r\f\0]/.test(text) ? text.replace(/\r\n?|\f/g, '\n').replace(/\0/g, '\ufffd') : text;
  }

  /** The next token's type (one of the constants above); EOF for ever at the end. */
  next(): number {
    const s = this.s;
    for (;;) {
      const p = this.p;
      if (p >= s.length) return EOF;
      const c = s.charCodeAt(p);
      if (c === 0x2f && s.charCodeAt(p + 1) === 0x2a) {
        const close = s.indexOf('*/', p + 2);
        this.p = close < 0 ? s.length : close + 2;
        continue;
      }
      this.p = p + 1;
      if (isWhitespace(c)) {
        while (isWhitespace(s.charCodeAt(this.p))) this.p++;
        return WHITESPACE;
      }
      switch (c) {
        case 0x22: // "
        case 0x27: // '
          return this.string(c);
        case 0x23: // #
          if (isIdentChar(s.charCodeAt(this.p)) || this.validEscape(this.p)) {
            this.value = this.identSequence();
            return HASH;
          }
          return DELIM;
        case 0x28:
          return OPEN_PAREN;
        case 0x29:
          return CLOSE_PAREN;
        case 0x2b: // +
          if (this.startsNumber(p)) return this.numeric(p);
          return DELIM;
        case 0x2c:
          return COMMA;
        case 0x2d: // -
          if (this.startsNumber(p)) return this.numeric(p);
          if (s.charCodeAt(p + 1) === 0x2d && s.charCodeAt(p + 2) === 0x3e) {
            this.p = p + 3;
            return CDC;
          }
          if (this.startsIdent(p)) return this.identLike(p);
          return DELIM;
        case 0x2e: // .
          if (this.startsNumber(p)) return this.numeric(p);
          return DELIM;
        case 0x3a:
          return COLON;
        case 0x3b:
          return SEMICOLON;
        case 0x3c: // <
          if (s.startsWith('!--', p + 1)) {
            this.p = p + 4;
            return CDO;
          }
          return DELIM;
        case 0x40: // @
          if (this.startsIdent(p + 1)) {
            this.value = this.identSequence();
            return AT_KEYWORD;
          }
          return DELIM;
        case 0x5b:
          return OPEN_SQUARE;
        case 0x5c: // \
          if (this.validEscape(p)) return this.identLike(p);
          return DELIM; // "parse error": a backslash before a newline is a delim
        case 0x5d:
          return CLOSE_SQUARE;
        case 0x7b:
          return OPEN_CURLY;
        case 0x7d:
          return CLOSE_CURLY;
        default:
          if (isDigit(c)) return this.numeric(p);
          if (isIdentStart(c)) return this.identLike(p);
          return DELIM;
      }
    }
  }

  /** Whether s[p] and s[p + 1] are a valid escape: a backslash not followed by a newline. */
  private validEscape(p: number): boolean {
    return this.s.charCodeAt(p) === 0x5c && this.s.charCodeAt(p + 1) !== 0x0a;
  }

  /** Whether the three code points at p would start an ident sequence. */
  private startsIdent(p: number): boolean {
    const c = this.s.charCodeAt(p);
    if (c === 0x2d) {
      const d = this.s.charCodeAt(p + 1);
      return isIdentStart(d) || d === 0x2d || this.validEscape(p + 1);
    }
    return isIdentStart(c) || this.validEscape(p);
  }

  /** Whether the three code points at p would start a number. */
  private startsNumber(p: number): boolean {
    const s = this.s;
    let c = s.charCodeAt(p);
    if (c === 0x2b || c === 0x2d) c = s.charCodeAt(++p);
    if (isDigit(c)) return true;
    return c === 0x2e && isDigit(s.charCodeAt(p + 1));
  }

  /** Consumes an escaped code point; this.p is just after the backslash. */
  private escaped(): string {
    const s = this.s;
    const c = s.charCodeAt(this.p);
    if (Number.isNaN(c)) return '\ufffd';
    if (isHexDigit(c)) {
      const start = this.p;
      while (this.p - start < 6 && isHexDigit(s.charCodeAt(this.p))) this.p++;
      const code = parseInt(s.slice(start, this.p), 16);
      if (isWhitespace(s.charCodeAt(this.p))) this.p++;
      return code === 0 || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff ? '\ufffd' : String.fromCodePoint(code);
    }
    const cp = s.codePointAt(this.p)!;
    this.p += cp > 0xffff ? 2 : 1;
    return String.fromCodePoint(cp);
  }

  /** Consumes an ident sequence from this.p and returns it, escapes decoded. */
  private identSequence(): string {
    const s = this.s;
    let out = '';
    let from = this.p;
    for (;;) {
      const c = s.charCodeAt(this.p);
      if (isIdentChar(c)) {
        this.p++;
      } else if (this.validEscape(this.p)) {
        out += s.slice(from, this.p);
        this.p++;
        out += this.escaped();
        from = this.p;
      } else {
        return out + s.slice(from, this.p);
      }
    }
  }

  /** A number, percentage or dimension token starting at p. */
  private numeric(p: number): number {
    const s = this.s;
    let q = p;
    if (s.charCodeAt(q) === 0x2b || s.charCodeAt(q) === 0x2d) q++;
    while (isDigit(s.charCodeAt(q))) q++;
    if (s.charCodeAt(q) === 0x2e && isDigit(s.charCodeAt(q + 1))) {
      q++;
      while (isDigit(s.charCodeAt(q))) q++;
    }
    if ((s.charCodeAt(q) | 0x20) === 0x65) {
      // An exponent: e or E, an optional sign, then a digit (else the e
      // starts the dimension's unit).
      const d = s.charCodeAt(q + 1);
      const digits = isDigit(d) ? q + 1 : (d === 0x2b || d === 0x2d) && isDigit(s.charCodeAt(q + 2)) ? q + 2 : -1;
      if (digits > 0) {
        q = digits;
        while (isDigit(s.charCodeAt(q))) q++;
      }
    }
    this.p = q;
    if (this.startsIdent(q)) this.identSequence(); // a dimension's unit
    else if (s.charCodeAt(q) === 0x25) this.p++; // %
    return NUMBER;
  }

  /** An ident, function or url token starting at p. */
  private identLike(p: number): number {
    const s = this.s;
    this.p = p;
    const name = this.identSequence();
    if (s.charCodeAt(this.p) !== 0x28) {
      this.value = name;
      return IDENT;
    }
    this.p++;
    this.value = name;
    if (name.length !== 3 || name.toLowerCase() !== 'url') return FUNCTION;
    // While the next two are whitespace, consume one: a quote after at most
    // one more whitespace makes `url(` a function whose argument is a string.
    while (isWhitespace(s.charCodeAt(this.p)) && isWhitespace(s.charCodeAt(this.p + 1))) this.p++;
    const c = s.charCodeAt(this.p);
    const d = isWhitespace(c) ? s.charCodeAt(this.p + 1) : c;
    if (d === 0x22 || d === 0x27) return FUNCTION;
    return this.url();
  }

  /** A url token's rest, from just after `url(`. */
  private url(): number {
    const s = this.s;
    while (isWhitespace(s.charCodeAt(this.p))) this.p++;
    let out = '';
    let from = this.p;
    for (;;) {
      const c = s.charCodeAt(this.p);
      if (c === 0x29 || Number.isNaN(c)) {
        // `)`, or EOF ("eof-in-url", still a url).
        this.value = out + s.slice(from, this.p);
        if (c === 0x29) this.p++;
        return URL;
      }
      if (isWhitespace(c)) {
        this.value = out + s.slice(from, this.p);
        while (isWhitespace(s.charCodeAt(this.p))) this.p++;
        const e = s.charCodeAt(this.p);
        if (e === 0x29 || Number.isNaN(e)) {
          if (e === 0x29) this.p++;
          return URL;
        }
        return this.badUrl();
      }
      if (c === 0x22 || c === 0x27 || c === 0x28 || isNonPrintable(c)) return this.badUrl();
      if (c === 0x5c) {
        if (!this.validEscape(this.p)) return this.badUrl();
        out += s.slice(from, this.p);
        this.p++;
        out += this.escaped();
        from = this.p;
        continue;
      }
      this.p++;
    }
  }

  /** Skips the remnants of a bad url: up to and including `)`, escapes honoured. */
  private badUrl(): number {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.p);
      if (Number.isNaN(c)) return BAD_URL;
      if (c === 0x29) {
        this.p++;
        return BAD_URL;
      }
      if (this.validEscape(this.p)) {
        this.p++;
        this.escaped();
      } else {
        this.p++;
      }
    }
  }

  /** A string token's rest, from just after its opening quote. */
  private string(quote: number): number {
    const s = this.s;
    let out = '';
    let from = this.p;
    for (;;) {
      const c = s.charCodeAt(this.p);
      if (c === quote || Number.isNaN(c)) {
        // The closing quote, or EOF ("eof-in-string", still a string).
        this.value = out + s.slice(from, this.p);
        if (c === quote) this.p++;
        return STRING;
      }
      if (c === 0x0a) return BAD_STRING; // the newline is not consumed
      if (c === 0x5c) {
        out += s.slice(from, this.p);
        const d = s.charCodeAt(this.p + 1);
        if (Number.isNaN(d)) {
          this.p++;
        } else if (d === 0x0a) {
          this.p += 2; // a line continuation
        } else {
          this.p++;
          out += this.escaped();
        }
        from = this.p;
        continue;
      }
      this.p++;
    }
  }
}
