/**
 * The robots.txt line parser (RFC 9309 §2.2). It knows nothing about groups or
 * matching: it cuts the text into records and reports each one to a handler,
 * with its 1-based line number, so a consumer (see rules.ts) can build groups
 * and later say which line decided.
 *
 * What it accepts, beyond the RFC 9309 ABNF:
 *
 * - A UTF-8 byte order mark at the start of the text is skipped.
 * - Lines end with CR, LF or CRLF (the ABNF's NL), mixed freely.
 * - `#` starts a comment anywhere on a line (§2.2.3); the rest of the line is dropped.
 * - Keys are case-insensitive and may have blanks on either side of the colon.
 * - Values are trimmed; the parser does not validate or normalize them (rules.ts
 *   percent-encodes patterns; the user-agent value is reduced to its product token there).
 *
 * Google extensions we TAKE (google/robotstxt behaviour, allowed by §2.2.4
 * "Crawlers MAY be lenient when interpreting other records" and §2.3.1.5
 * "Crawlers MUST try to parse each line"):
 *
 * - A missing colon: `Disallow /private` is read as `Disallow: /private`, but
 *   only when the line is exactly two blank-separated words, so prose and
 *   broken lines stay unknown.
 * - Common misspellings: `disalow`, `dissallow`, `dissalow`, `diasllow`,
 *   `disallaw` for Disallow (honouring them can only make us crawl less);
 *   `useragent` and `user agent` for User-agent; `site-map` for Sitemap;
 *   `crawldelay`, `crawl_delay`, `crawl delay` for Crawl-delay.
 * - The line cap: Google reads each line into a 16,664-byte buffer (2083 × 8,
 *   one byte kept for a terminator), so a line keeps at most its first 16,663
 *   bytes and the rest is dropped before comments are stripped. We do the same
 *   (MAX_LINE_BYTES), which also bounds the work one line can cost.
 *
 * Google extensions we do NOT take:
 *
 * - Key prefixes: Google treats any key that merely starts with a known word
 *   (`Disallowed:`, `Allowance:`) as that word; we match whole keys only.
 * - A missing colon with more than two words (Google also refuses those).
 */

/** Receives the records of a robots.txt file, in order. Every method is optional. */
export interface RobotsHandler {
  /** A `User-agent:` line; `value` is the trimmed value as written (e.g. `FooBot/1.0`, `*`). */
  onUserAgent?(value: string, line: number): void;
  /** An `Allow:` line; `value` is the trimmed pattern as written (may be empty). */
  onAllow?(value: string, line: number): void;
  /** A `Disallow:` line (or a misspelling we accept); `value` may be empty. */
  onDisallow?(value: string, line: number): void;
  /** A `Crawl-delay:` line; `value` is unparsed (the consumer decides what is valid). */
  onCrawlDelay?(value: string, line: number): void;
  /** A `Sitemap:` line; `value` is the URL as written. */
  onSitemap?(value: string, line: number): void;
  /** Any other `key: value` record (key as written, trimmed). */
  onUnknown?(key: string, value: string, line: number): void;
}

/** The most bytes of one line that are parsed; the rest of a longer line is ignored. */
export const MAX_LINE_BYTES = 16_663;

/** The records the protocol (and this parser) knows. */
export type RecordKind = 'user-agent' | 'allow' | 'disallow' | 'crawl-delay' | 'sitemap';

/** Lower-cased key → record kind, including the misspellings we accept. */
const KEYS: ReadonlyMap<string, RecordKind> = new Map<string, RecordKind>([
  ['user-agent', 'user-agent'],
  ['useragent', 'user-agent'],
  ['user agent', 'user-agent'],
  ['allow', 'allow'],
  ['disallow', 'disallow'],
  ['disalow', 'disallow'],
  ['dissallow', 'disallow'],
  ['dissalow', 'disallow'],
  ['diasllow', 'disallow'],
  ['disallaw', 'disallow'],
  ['crawl-delay', 'crawl-delay'],
  ['crawldelay', 'crawl-delay'],
  ['crawl_delay', 'crawl-delay'],
  ['crawl delay', 'crawl-delay'],
  ['sitemap', 'sitemap'],
  ['site-map', 'sitemap'],
]);

/** Exactly two blank-separated words: the missing-colon form. */
const TWO_WORDS_RE = /^(\S+)[ \t]+(\S+)$/;

/**
 * The record kind a key names (case-insensitive, misspellings included), or
 * undefined for a key the protocol does not define.
 */
export function recordKind(key: string): RecordKind | undefined {
  return KEYS.get(key.toLowerCase());
}

/**
 * Parses robots.txt text and reports every record to `handler`, in file order.
 * Blank lines and comment-only lines report nothing. Never throws on content.
 */
export function parseRobots(text: string, handler: RobotsHandler): void {
  const n = text.length;
  let start = n > 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNo = 0;
  while (start < n) {
    let end = start;
    while (end < n) {
      const c = text.charCodeAt(end);
      if (c === 0x0a || c === 0x0d) break;
      end++;
    }
    lineNo++;
    if (end > start) parseLine(text.slice(start, end), lineNo, handler);
    if (end >= n) break;
    start = end + (text.charCodeAt(end) === 0x0d && text.charCodeAt(end + 1) === 0x0a ? 2 : 1);
  }
}

function parseLine(raw: string, lineNo: number, handler: RobotsHandler): void {
  // A UTF-16 code unit is at most 3 UTF-8 bytes, so shorter lines cannot exceed the cap.
  let line = raw.length > MAX_LINE_BYTES / 3 ? capUtf8Bytes(raw, MAX_LINE_BYTES) : raw;
  const hash = line.indexOf('#');
  if (hash !== -1) line = line.slice(0, hash);
  line = line.trim();
  if (line === '') return;

  let key: string;
  let value: string;
  const colon = line.indexOf(':');
  if (colon !== -1) {
    key = line.slice(0, colon).trim();
    value = line.slice(colon + 1).trim();
  } else {
    const m = TWO_WORDS_RE.exec(line);
    if (m === null) return; // not a record at all
    key = m[1] as string;
    value = m[2] as string;
  }
  if (key === '') return;

  switch (recordKind(key)) {
    case 'user-agent':
      handler.onUserAgent?.(value, lineNo);
      break;
    case 'allow':
      handler.onAllow?.(value, lineNo);
      break;
    case 'disallow':
      handler.onDisallow?.(value, lineNo);
      break;
    case 'crawl-delay':
      handler.onCrawlDelay?.(value, lineNo);
      break;
    case 'sitemap':
      handler.onSitemap?.(value, lineNo);
      break;
    default:
      handler.onUnknown?.(key, value, lineNo);
  }
}

/** The longest prefix of `s` whose UTF-8 encoding is at most `max` bytes (never splits a character). */
export function capUtf8Bytes(s: string, max: number): string {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let size = 3;
    let units = 1;
    if (c < 0x80) size = 1;
    else if (c < 0x800) size = 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        size = 4;
        units = 2;
      }
    }
    if (bytes + size > max) return s.slice(0, i);
    bytes += size;
    i += units - 1;
  }
  return s;
}
