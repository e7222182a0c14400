/**
 * The EE122 KeywordHunter link matcher: the spec's deliberately naive
 * "find `a href="` and take the text up to the closing quote".
 */
import type { ExtractedLinks, LinkExtractor } from './types.js';

/** The pattern, byte for byte: case-sensitive, one space, a double quote. */
const PATTERN = 'a href="';
const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * The KeywordHunter spec's matcher: "use a standard string-matching function
 * to find the pattern a href=" and interpret the text after it up until a
 * closing quote as the link".
 *
 * - Each link is the exact text after a (case-sensitive) `a href="` up to the
 *   next `"` on the same line. A line ends at `\n`; with no closing quote
 *   before it there is no link (so a `\r` of a CRLF line end can never end
 *   up in a link: no quote, no link).
 * - Several links per line are found, and links inside HTML comments count
 *   ("a link inside an HTML comment is still a link").
 * - `A HREF="`, `href='x'`, `href=x`, `href = "x"` are NOT matched: the spec
 *   asks for the literal pattern, and this class keeps its quirks on purpose.
 * - No entity decoding; each link's bytes are decoded as UTF-8 (invalid
 *   sequences become U+FFFD). `base` is always undefined.
 */
export class HrefPatternExtractor implements LinkExtractor {
  extract(body: Buffer): ExtractedLinks {
    const hrefs: string[] = [];
    // latin1 maps each byte to one char, so string indexes are byte offsets;
    // V8's String indexOf beats Buffer.indexOf here (docs/performance.md,
    // The hot path), mostly because it has no native-call cost.
    const s = body.toString('latin1');
    const n = s.length;
    let at = s.indexOf(PATTERN);
    while (at >= 0) {
      const start = at + PATTERN.length;
      let j = start;
      let c = 0;
      let ascii = true;
      // Links are short, so a char loop to the quote (or the line end) is
      // cheaper than two searches that may run to the end of the page.
      while (j < n && (c = s.charCodeAt(j)) !== QUOTE && c !== NEWLINE) {
        if (c >= 0x80) ascii = false;
        j++;
      }
      if (j < n && c === QUOTE) {
        // Non-ASCII bytes are re-read as UTF-8 from the body itself.
        hrefs.push(ascii ? s.slice(start, j) : body.toString('utf8', start, j));
        j++; // the next pattern may start right after the closing quote
      }
      // With no quote before the line end, the rest of the line cannot hold
      // the pattern either (it contains a quote), so resume at the newline.
      at = j < n ? s.indexOf(PATTERN, j) : -1;
    }
    return { hrefs, base: undefined };
  }
}
