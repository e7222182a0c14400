/**
 * The URLs a stylesheet (or a style attribute, or a `<style>` element's
 * text) makes a browser fetch, for --page-requisites: a pure function over
 * text, tokenized per CSS Syntax Level 3 (css-tokenizer.ts). Bytes become
 * text with decodeCss (css-decode.ts).
 *
 * What is read, in document order, every occurrence kept:
 * - `url(x)`, `url( "x" )`, `url('x')` anywhere (`URL(` in any letter case,
 *   escapes decoded: `url(a\)b.png)` is `a)b.png`): kind 'url'. So are the
 *   url()s of `@font-face` `src:` lists (their format() and tech() strings
 *   are not URLs) and of `cursor`, `mask`, `filter` and every other property.
 *   Declarations are not validated: a url() in an invalid declaration, or in
 *   an @supports condition (which browsers only test), is read too, an extra
 *   fetch rather than a missing one.
 * - A string directly inside `image-set(...)` or `-webkit-image-set(...)`
 *   (`image-set("a.png" 1x, "b.png" 2x)`): kind 'url', as the spec and
 *   browsers take such a string for a url(); every candidate, as an archive
 *   must replay on any screen. Strings in other functions (`format("woff2")`,
 *   `type("image/avif")`) or in property values (`content: "x.png"`) are not
 *   URLs.
 * - `@import "x"`, `@import 'x' media;`, `@import url(x) layer(l)
 *   supports(...)`, `@import url("x")` (`@IMPORT` in any letter case): kind
 *   'import'. Only while @import is still valid: at the top level, before
 *   any `{}` block (a style rule, or a block at-rule such as @media,
 *   @font-face or `@layer x {}`) and before @namespace; @charset, `@layer
 *   a, b;` statements, other @imports, CDO/CDC and unknown statement
 *   at-rules may come before it. Browsers ignore a later @import (nothing
 *   is fetched, so it is no requisite), and its URL is not reported at all.
 *   Simplification: a style rule that is itself invalid also ends the
 *   imports here, where browsers would skip it (a rare mistake, and one that
 *   fetches less, not more).
 * - Not read: the URL of `@namespace` (a name, never fetched), bad urls
 *   (`url(a b)`, `url(a"b)`) and bad strings (a raw newline), which browsers
 *   drop, and anything in comments.
 * - Every URL is stripped of ASCII whitespace; empty ones (`url()`,
 *   `url("")`, which the spec makes invalid) and data:, javascript:,
 *   about:, blob:, mailto: URLs are dropped (fetchable-url.ts). Nothing is
 *   resolved: `raw` is the text as the stylesheet states it, escapes decoded.
 *
 * Never throws, on any text.
 */
import {
  AT_KEYWORD,
  CLOSE_CURLY,
  CLOSE_PAREN,
  CLOSE_SQUARE,
  CDC,
  CDO,
  CssTokenizer,
  EOF,
  FUNCTION,
  OPEN_CURLY,
  OPEN_PAREN,
  OPEN_SQUARE,
  SEMICOLON,
  STRING,
  URL,
  WHITESPACE,
} from './css-tokenizer.js';
import { fetchableUrl } from './fetchable-url.js';

/** 'import': the stylesheet an @import loads; 'url': any other url() (or image-set() string). */
export type CssUrlKind = 'import' | 'url';

/** One URL a stylesheet refers to. */
export interface CssUrl {
  /** The URL as the stylesheet states it (escapes decoded, ASCII whitespace stripped), unresolved. */
  raw: string;
  kind: CssUrlKind;
}

/** A name lower-cased in ASCII only, as CSS compares names (a non-ASCII name matches none of ours anyway). */
function lowerName(name: string): string {
  return /[^\x00-\x7f]/.test(name) ? name : name.toLowerCase();
}

/** The URLs of one stylesheet's text, in document order (see the module comment for exactly which). */
export function readCssUrls(text: string): CssUrl[] {
  const t = new CssTokenizer(text);
  const out: CssUrl[] = [];
  const add = (raw: string, kind: CssUrlKind): void => {
    const url = fetchableUrl(raw);
    if (url !== undefined) out.push({ raw: url, kind });
  };
  /** The blocks and functions open around the current token: the closing token each waits for, and a function's lower-case name ('' for others). */
  const closers: number[] = [];
  const functions: string[] = [];
  /** Whether an at-keyword here starts an at-rule: at the start of a rule, at a level of rules or declarations (no function or bracket open). */
  let ruleStart = true;
  /** The lower-case name of the at-rule whose prelude is being read, and the depth it started at. */
  let atRule: string | undefined;
  let atDepth = 0;
  /** Whether an @import is still valid at the top level. */
  let importsAllowed = true;
  /** Whether the next token (not whitespace) is the URL of a valid @import. */
  let importSlot = false;
  /** Whether the token just before (not whitespace) was a `url(` function token, whose string is its URL. */
  let urlFunction = false;
  for (let type = t.next(); type !== EOF; type = t.next()) {
    if (type === WHITESPACE || type === CDO || type === CDC) continue;
    const depth = closers.length;
    const inUrlPrelude = atRule === 'import' || atRule === 'namespace';
    const slot: boolean = importSlot;
    const afterUrlFunction: boolean = urlFunction;
    importSlot = false;
    urlFunction = false;
    switch (type) {
      case URL:
        if (slot) add(t.value, 'import');
        else if (!inUrlPrelude) add(t.value, 'url');
        break;
      case STRING: {
        const fn = depth > 0 ? functions[depth - 1] : '';
        if (slot) add(t.value, 'import');
        else if (inUrlPrelude) break;
        else if (afterUrlFunction || fn === 'image-set' || fn === '-webkit-image-set') add(t.value, 'url');
        break;
      }
      case FUNCTION: {
        const name = lowerName(t.value);
        closers.push(CLOSE_PAREN);
        functions.push(name);
        if (name === 'url') {
          urlFunction = true;
          importSlot = slot; // `@import url("x")`: the string is the import's
        }
        break;
      }
      case OPEN_PAREN:
      case OPEN_SQUARE:
        closers.push(type === OPEN_PAREN ? CLOSE_PAREN : CLOSE_SQUARE);
        functions.push('');
        break;
      case CLOSE_PAREN:
      case CLOSE_SQUARE:
        // A closer that is not the innermost one's is an ordinary token.
        if (depth > 0 && closers[depth - 1] === type) {
          closers.pop();
          functions.pop();
        }
        break;
      case OPEN_CURLY:
        if (depth === 0) importsAllowed = false;
        if (atRule !== undefined && atDepth === depth) atRule = undefined; // the prelude ends, the block begins
        closers.push(CLOSE_CURLY);
        functions.push('');
        ruleStart = true;
        continue;
      case CLOSE_CURLY:
        if (depth > 0 && closers[depth - 1] === CLOSE_CURLY) {
          closers.pop();
          functions.pop();
          if (atRule !== undefined && atDepth >= depth) atRule = undefined;
          ruleStart = true;
          continue;
        }
        break;
      case SEMICOLON:
        if (atRule !== undefined && atDepth === depth) {
          // A statement at-rule ends. Of those, only @namespace ends the
          // imports (@charset, @layer statements and @import itself may come
          // before an @import; unknown ones are invalid, hence ignored).
          if (depth === 0 && atRule === 'namespace') importsAllowed = false;
          atRule = undefined;
          ruleStart = true;
          continue;
        }
        // In a block, `;` ends a declaration (or nested statement); at the
        // top level it is part of a style rule's prelude.
        if (depth > 0 && closers[depth - 1] === CLOSE_CURLY) {
          ruleStart = true;
          continue;
        }
        break;
      case AT_KEYWORD:
        if (ruleStart && atRule === undefined && (depth === 0 || closers[depth - 1] === CLOSE_CURLY)) {
          atRule = lowerName(t.value);
          atDepth = depth;
          importSlot = atRule === 'import' && depth === 0 && importsAllowed;
        }
        break;
      default:
        break;
    }
    ruleStart = false;
  }
  return out;
}
