/**
 * The one filter the requisite readers (requisites.ts, css-urls.ts) apply to
 * a URL they found: no I/O, no resolution, only what can be told from the
 * text alone.
 */

import { trimAsciiWhitespace } from './ascii-whitespace.js';

/** Schemes whose URLs are never fetched: the data is inline, or the URL names no resource. */
const NEVER_FETCHED = new Set(['data', 'javascript', 'about', 'blob', 'mailto']);

/**
 * `raw` stripped of leading and trailing ASCII whitespace, or undefined when
 * nothing would be fetched for it: the result is empty, or its scheme is
 * data:, javascript:, about:, blob: or mailto: (in any letter case). The
 * scheme is read as the URL parser would: after leading C0 controls and
 * spaces, ignoring TAB, LF and CR anywhere (so `java&#9;script:` is
 * javascript:).
 */
export function fetchableUrl(raw: string): string | undefined {
  const url = trimAsciiWhitespace(raw);
  if (url === '') return undefined;
  // Scheme start state: an ASCII letter, then letters, digits, + - . up to `:`.
  let p = 0;
  while (p < url.length && url.charCodeAt(p) <= 0x20) p++;
  let scheme = '';
  for (; p < url.length; p++) {
    const c = url.charCodeAt(p);
    if (c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c === 0x3a) return scheme !== '' && NEVER_FETCHED.has(scheme) ? undefined : url;
    const lower = c | 0x20;
    const letter = lower >= 0x61 && lower <= 0x7a;
    if (!(letter || (scheme !== '' && ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e)))) break;
    if (scheme.length > 10) break; // longer than every scheme in the set
    scheme += String.fromCharCode(letter ? lower : c);
  }
  return url;
}
