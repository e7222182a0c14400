/**
 * The URLs of a `srcset` (or `imagesrcset`) attribute, by the HTML spec's
 * "parse a srcset attribute" (§4.8.4.3.10), for the requisite reader.
 */

import { isAsciiWhitespace as isSpace } from './ascii-whitespace.js';

/** A valid non-negative integer: ASCII digits only. */
const INTEGER = /^[0-9]+$/;
/** A valid floating-point number (§2.3.4.3): `-`?, digits and/or `.digits`, then an optional exponent. */
const FLOAT = /^-?(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;

/**
 * Whether a candidate's descriptors are valid (the spec's step 13-14): at
 * most one of `Nw` (N > 0) or `Nx` (N >= 0), an `Nh` (N > 0) only with a
 * width, nothing else. A candidate with invalid descriptors is dropped, as
 * browsers drop it.
 */
function validDescriptors(descriptors: string[]): boolean {
  let width = false;
  let density = false;
  let height = false;
  for (const d of descriptors) {
    const last = d.charCodeAt(d.length - 1);
    const number = d.slice(0, -1);
    if (last === 0x77 /* w */ && INTEGER.test(number)) {
      if (width || density || Number(number) === 0) return false;
      width = true;
    } else if (last === 0x78 /* x */ && FLOAT.test(number)) {
      if (width || density || height || Number(number) < 0) return false;
      density = true;
    } else if (last === 0x68 /* h */ && INTEGER.test(number)) {
      if (height || density || Number(number) === 0) return false;
      height = true;
    } else {
      return false;
    }
  }
  return !height || width;
}

/**
 * The URL of every valid image candidate in a srcset value, in order,
 * exactly as the attribute states them (already entity-decoded by the
 * tokenizer). Candidates are separated by commas; a URL is a run of
 * non-whitespace, which may hold commas (`a,b.png 1x` is one URL, and so is
 * `a.png,b.png` with no space), except that trailing commas end it
 * (`a.png, b.png`); descriptors follow it up to the next comma outside
 * parentheses. Never throws.
 */
export function srcsetUrls(value: string): string[] {
  const urls: string[] = [];
  const n = value.length;
  let p = 0;
  for (;;) {
    // Splitting loop: skip whitespace and commas.
    while (p < n && (isSpace(value.charCodeAt(p)) || value.charCodeAt(p) === 0x2c)) p++;
    if (p >= n) return urls;
    const start = p;
    while (p < n && !isSpace(value.charCodeAt(p))) p++;
    let end = p;
    const descriptors: string[] = [];
    if (value.charCodeAt(end - 1) === 0x2c) {
      // The URL ends with commas: they end the candidate, which has no descriptors.
      while (value.charCodeAt(end - 1) === 0x2c) end--;
    } else {
      // Descriptor tokenizer: "in descriptor", "in parens", "after descriptor".
      while (p < n && isSpace(value.charCodeAt(p))) p++;
      let current = '';
      let parens = false;
      for (; p < n; p++) {
        const c = value.charCodeAt(p);
        if (parens) {
          current += value[p];
          if (c === 0x29 /* ) */) parens = false;
        } else if (isSpace(c)) {
          // Ends the descriptor; the whitespace after it is the "after descriptor" state.
          if (current !== '') descriptors.push(current);
          current = '';
        } else if (c === 0x2c) {
          p++;
          break;
        } else {
          current += value[p];
          if (c === 0x28 /* ( */) parens = true;
        }
      }
      if (current !== '') descriptors.push(current);
    }
    if (validDescriptors(descriptors)) urls.push(value.slice(start, end));
  }
}
