/**
 * An HTML-aware link extractor for the TinySearch crawler: the `<a href>`
 * and `<base href>` a browser would see, read with the tokenizer steps that
 * the requisite reader shares (tag-scanner.ts, which lists what it follows
 * of the WHATWG HTML tokenizer and where it simplifies).
 */
import type { ExtractedLinks, LinkExtractor } from './types.js';
import { afterStartTag, nameEquals, opensStartTag, scanAttributes, skipMarkup, tagNameEnd, TagAttributes } from './tag-scanner.js';

/** The attributes of the tag being read: reused (extraction is synchronous). */
const attributes = new TagAttributes();

/**
 * HTML-aware link extractor: the href of every `<a>` start tag, in document
 * order, as a browser's tokenizer would read it, plus the first `<base href>`.
 *
 * - The first href attribute of a tag wins. Its value is entity-decoded and
 *   stripped of leading/trailing ASCII whitespace (tag-scanner.ts). `href`
 *   with no value, or `href=""`, gives "" (a link to the page itself). `<a>`
 *   without href gives nothing.
 * - Nothing is taken from comments, raw-text elements (script, style, title,
 *   textarea, xmp, iframe, noembed, noframes), CDATA, DOCTYPE, `<?...>`, end
 *   tags, after `<plaintext>`, or from a tag cut off by the end of the page.
 * - Only `<a>`: `<area href>`, `<link href>` and other elements are ignored
 *   (a crawler following what a reader can click; add them here if needed).
 * - The body is read as UTF-8; invalid bytes never throw.
 */
export class HtmlLinkExtractor implements LinkExtractor {
  extract(body: Buffer): ExtractedLinks {
    const s = body.toString('latin1');
    const hrefs: string[] = [];
    let base: string | undefined;
    // Data state: text never holds a link, so jump from `<` to `<`.
    let i = s.indexOf('<');
    while (i >= 0) {
      if (!opensStartTag(s, i)) {
        i = skipMarkup(s, i);
        continue;
      }
      const nameEnd = tagNameEnd(s, i + 2);
      // Only `<a>` and, until one is found, `<base>` need their attributes.
      const anchor = nameEnd - i === 2 && (s.charCodeAt(i + 1) | 0x20) === 0x61;
      const wanted = anchor || (nameEnd - i === 5 && base === undefined && nameEquals(s, i + 1, nameEnd, 'base'));
      const end = scanAttributes(s, nameEnd, wanted ? attributes : null);
      if (end < 0) break; // eof-in-tag: the tag never happened
      if (wanted) {
        const k = attributes.find(s, 'href');
        if (k >= 0) {
          const value = attributes.value(body, s, k);
          if (anchor) hrefs.push(value);
          else base = value;
        }
      }
      i = afterStartTag(s, i + 1, nameEnd, end);
    }
    return { hrefs, base };
  }
}
