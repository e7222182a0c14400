/**
 * ASCII whitespace as HTML and URLs know it (TAB, LF, FF, CR, SPACE), for
 * the extractors: not String.prototype.trim, which also strips U+00A0 and
 * other Unicode spaces that belong to a URL.
 */

/** Whether char code c is ASCII whitespace (CR included: HTML's input stream turns it into LF). */
export function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

/** s without its leading and trailing ASCII whitespace (s itself when there is none). */
export function trimAsciiWhitespace(s: string): string {
  let from = 0;
  let to = s.length;
  while (from < to && isAsciiWhitespace(s.charCodeAt(from))) from++;
  while (to > from && isAsciiWhitespace(s.charCodeAt(to - 1))) to--;
  return from === 0 && to === s.length ? s : s.slice(from, to);
}
