/**
 * A push parser for one sitemap document (sitemaps.org protocol 0.9): feed
 * it the file's uncompressed bytes chunk by chunk, and it hands over each
 * `<loc>` as it closes, in file order. Over saxes, a strict streaming XML
 * parser (XML 1.0 well-formedness, namespaces, line and column of errors).
 *
 * - Both kinds: a `<urlset>` gives each `<url><loc>`, a `<sitemapindex>`
 *   each `<sitemap><loc>`; the first `<loc>` of an entry counts, every other
 *   element (`<lastmod>`, `<image:loc>`, `<xhtml:link>`...) is ignored.
 * - Namespaces: the root's namespace is the sitemap's, whatever it is
 *   (the standard `http://www.sitemaps.org/schemas/sitemap/0.9`, none at all,
 *   Google's old 0.84, or a misspelt `https://` copy of the standard one);
 *   `<url>`, `<sitemap>` and `<loc>` count only in that namespace, so an
 *   extension's `<image:loc>` never passes for a page.
 * - Entities: only the five predefined ones (`&amp;` `&lt;` `&gt;` `&quot;`
 *   `&apos;`) and character references (`&#38;`, `&#x26;`) are decoded.
 *   A DOCTYPE is read past, its internal subset never used: a reference to
 *   an entity it declares is an "undefined entity" error, so a "billion
 *   laughs" document expands nothing; nothing external is ever fetched.
 * - Text is decoded as UTF-8, as the protocol requires; a byte order mark
 *   is dropped, an invalid sequence becomes U+FFFD.
 * - Limits (sitemaps.org): past `maxUrls` entries or `maxBytes` bytes the
 *   parser stops and says so in `stop`; what it handed over stays valid.
 * - The first well-formedness error stops it too, with saxes's reason and
 *   its line and column: the `<loc>`s handed over before it were complete
 *   elements of well-formed XML, so the caller may keep them.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';

/** The two kinds of sitemap document. */
export type SitemapKind = 'urlset' | 'sitemapindex';

/** Why a parser stopped before the end of its document. */
export type SitemapStop =
  | { reason: 'max-urls'; limit: number }
  | { reason: 'max-bytes'; limit: number }
  /** The root element is neither `<urlset>` nor `<sitemapindex>` (`root` as written, e.g. "html"). */
  | { reason: 'not-a-sitemap'; root: string }
  /** Not well-formed XML: saxes's reason (e.g. "unexpected close tag"), 1-based line, column. */
  | { reason: 'malformed'; message: string; line: number; column: number };

/** The limits of one SitemapParser. */
export interface SitemapParserLimits {
  /** `<loc>` entries handed over at most; one more stops the parser. */
  maxUrls: number;
  /** Bytes fed at most; a byte more stops the parser. */
  maxBytes: number;
}

/** The entry element of each kind. */
const ENTRY: Readonly<Record<SitemapKind, string>> = { urlset: 'url', sitemapindex: 'sitemap' };
/** XML's white space (XML 1.0 §2.3 S), which is what `<loc>` text is trimmed of. */
const XML_SPACE = /^[ \t\r\n]+|[ \t\r\n]+$/g;
const POSITION_PREFIX = /^\d+:\d+: /;

/** Thrown from inside saxes's handlers to leave its `write` at once. */
class Stopped {}

/** One sitemap document, parsed as it streams in. Single use. */
export class SitemapParser {
  #kind: SitemapKind | undefined;
  #stop: SitemapStop | undefined;
  #bytes = 0;
  #urls = 0;
  #ended = false;
  /** Open elements: 1 is the root, 2 an entry, 3 a `<loc>`. */
  #depth = 0;
  #namespace = '';
  /** The open element at depth 2 is an entry that has no `<loc>` yet. */
  #entryWantsLoc = false;
  /** The text of the `<loc>` being read, or undefined when not in one. */
  #loc: string | undefined;
  /**
   * A `<loc>` whose close tag saxes has reported but not yet vouched for:
   * on a mismatched close tag (`<loc>x</lo>`) saxes reports the close of the
   * open element first and the error just after it. Any later event but that
   * error, or a write or close that ends without an error, confirms it.
   */
  #pending: string | undefined;
  readonly #decoder = new TextDecoder('utf-8');
  readonly #saxes = new SaxesParser({ xmlns: true });

  /**
   * `onLoc` is called with each entry's `<loc>` text, trimmed of XML white
   * space, entities decoded, in file order (maybe empty: the caller judges it).
   */
  constructor(
    private readonly onLoc: (loc: string) => void,
    private readonly limits: SitemapParserLimits,
  ) {
    const sx = this.#saxes;
    sx.on('opentag', (tag) => this.#open(tag));
    sx.on('closetag', () => this.#close());
    sx.on('text', (text) => this.#text(text));
    sx.on('cdata', (text) => this.#text(text));
    sx.on('error', (err) => {
      const message = err.message.replace(POSITION_PREFIX, '').replace(/\.$/, '');
      // The one error that unmakes the close just reported (see #pending); any other leaves it whole.
      if (message === 'unexpected close tag') this.#pending = undefined;
      else this.#confirm();
      this.#halt({ reason: 'malformed', message, line: sx.line, column: sx.column });
    });
  }

  /** The document's kind, once its root element has opened. */
  get kind(): SitemapKind | undefined {
    return this.#kind;
  }

  /** Why the parser stopped early; undefined while it reads, and after a document read whole. */
  get stop(): SitemapStop | undefined {
    return this.#stop;
  }

  /** Bytes parsed so far (never more than `maxBytes`). */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Parses the next bytes of the document. Returns false once the parser
   * has stopped (a limit, an error, not a sitemap): feed it nothing more.
   */
  feed(chunk: Uint8Array): boolean {
    if (this.#stop !== undefined || this.#ended) return false;
    const room = this.limits.maxBytes - this.#bytes;
    const over = chunk.length > room;
    const part = over ? chunk.subarray(0, room) : chunk;
    this.#bytes += part.length;
    this.#write(this.#decoder.decode(part, { stream: true }));
    if (over && this.#stop === undefined) this.#stop = { reason: 'max-bytes', limit: this.limits.maxBytes };
    return this.#stop === undefined;
  }

  /**
   * The document's bytes are all fed. A document cut short (an element left
   * open, no root at all) is a 'malformed' stop. Does nothing once stopped.
   */
  end(): void {
    if (this.#stop !== undefined || this.#ended) return;
    this.#ended = true;
    this.#write(this.#decoder.decode());
    if (this.#stop !== undefined) return;
    try {
      this.#saxes.close();
      this.#confirm();
    } catch (err) {
      if (!(err instanceof Stopped)) throw err;
    }
  }

  #write(text: string): void {
    if (text === '' || this.#stop !== undefined) return;
    try {
      this.#saxes.write(text);
      this.#confirm();
    } catch (err) {
      if (!(err instanceof Stopped)) throw err;
    }
  }

  /** Hands over the pending `<loc>`, unless it is one too many. */
  #confirm(): void {
    const loc = this.#pending;
    if (loc === undefined) return;
    this.#pending = undefined;
    if (this.#urls === this.limits.maxUrls) this.#halt({ reason: 'max-urls', limit: this.limits.maxUrls });
    this.#urls++;
    this.onLoc(loc);
  }

  #halt(stop: SitemapStop): never {
    this.#stop ??= stop;
    throw new Stopped();
  }

  #open(tag: SaxesTagNS): void {
    this.#confirm();
    const depth = ++this.#depth;
    if (depth === 1) {
      if (tag.local !== 'urlset' && tag.local !== 'sitemapindex') this.#halt({ reason: 'not-a-sitemap', root: tag.name });
      this.#kind = tag.local;
      this.#namespace = tag.uri;
    } else if (depth === 2) {
      this.#entryWantsLoc = this.#ours(tag, ENTRY[this.#kind as SitemapKind]);
    } else if (depth === 3 && this.#entryWantsLoc && this.#ours(tag, 'loc')) {
      this.#entryWantsLoc = false;
      this.#loc = '';
    }
  }

  #close(): void {
    this.#confirm();
    const depth = this.#depth--;
    if (depth !== 3 || this.#loc === undefined) return;
    this.#pending = this.#loc.replace(XML_SPACE, '');
    this.#loc = undefined;
  }

  #text(text: string): void {
    this.#confirm();
    // Text inside a <loc>'s own child elements is not the loc's.
    if (this.#loc !== undefined && this.#depth === 3) this.#loc += text;
  }

  #ours(tag: SaxesTagNS, local: string): boolean {
    return tag.local === local && tag.uri === this.#namespace;
  }
}
