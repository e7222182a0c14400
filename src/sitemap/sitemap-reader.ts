/**
 * Reads a crawl's sitemaps (spec decision "Sitemaps"): requests each sitemap
 * URL through an injected fetcher, follows index files one level, and
 * yields each file's page URLs, in order, with notes for the user.
 *
 * The reader never makes a request itself: the fetcher it is given is the
 * crawl's own, so politeness, robots.txt, redirects, the archive and the
 * report apply to sitemap requests as to any other. What it does:
 *
 * - Order: the sources in the order given; after an index, the sitemaps it
 *   names, in its order, each read whole before the next; within a file,
 *   file order. So the output is deterministic for a given site.
 * - One level: a sitemap named by an index that turns out to be an index
 *   itself is not followed (sitemaps.org: "Sitemap index files may only
 *   specify Sitemaps that are found on the same site"; nested indexes are
 *   not part of the protocol), with a note. A sitemap URL read once is
 *   not read again.
 * - Limits: 50,000 `<loc>` entries and 52,428,800 uncompressed bytes a file
 *   (the rest of the file skipped, with a note), and DEFAULT_MAX_SITEMAP_FILES
 *   files a read (see sitemap-limits.ts).
 * - Failures: a file that cannot be fetched, answers anything but 2xx, is
 *   not a sitemap, is not well-formed or cannot be decoded fails alone, with
 *   one note naming its URL and the cause (for XML, the parser's reason and
 *   its line and column); the files after it are read as usual.
 * - A file that stops early (a limit, malformed XML, a gzip stream cut
 *   short) KEEPS the URLs read before the stop: each was a complete `<loc>`
 *   element of well-formed XML, and the point of the stop depends only on
 *   the bytes, so the crawl stays deterministic. The note says how many.
 * - `<loc>`s that are not absolute http(s) URLs (another scheme, a relative
 *   or empty one, a bad host or port, over `maxUrlLength`) are skipped, with
 *   one note a file giving their count and the first one's reason.
 *   Duplicates within a file are dropped.
 */
import { describeError } from '../errors.js';
import { headerValue, type Field } from '../http/header-lines.js';
import { DEFAULT_MAX_URL_LENGTH, parseHttpUrl, type HttpUrl } from '../url/http-url.js';
import { contentCodings, sitemapBytes, type SitemapBody } from './sitemap-body.js';
import { sitemapLimits, type SitemapLimits } from './sitemap-limits.js';
import { SitemapParser, type SitemapKind, type SitemapStop } from './sitemap-parser.js';

/** What the fetcher gives: the final answer (redirects followed), its headers as received, its body. */
export interface SitemapResponse {
  status: number;
  /** The response's fields; `Content-Encoding` tells which codings the body still carries. */
  headers: readonly Field[];
  /** The payload as received (transfer coding removed, content codings kept), whole or in chunks. */
  body: SitemapBody;
}

/**
 * Fetches one sitemap URL the crawl's way (politeness, robots.txt,
 * redirects, archive). It throws or rejects when no answer is to be had (a
 * connection failure, or a request the crawl will not make: disallowed by
 * robots.txt, a host that asked for no more): the file then fails with
 * `describeError(err)` as its reason.
 */
export type SitemapFetcher = (url: HttpUrl) => Promise<SitemapResponse>;

/** A SitemapReader's options. */
export interface SitemapReaderOptions {
  fetch: SitemapFetcher;
  /** Defaults: DEFAULT_SITEMAP_LIMITS. */
  limits?: Partial<SitemapLimits> | undefined;
  /** Longest page or sitemap URL taken (`--max-url-length`); default 2048. */
  maxUrlLength?: number | undefined;
}

/**
 * How reading one file ended: read whole; cut at a limit (what came before
 * is kept); failed (what came before, if anything, is kept); an index named
 * by an index, read but not followed; or not requested (beyond `maxFiles`).
 */
export type SitemapOutcome = 'read' | 'cut' | 'failed' | 'not-followed' | 'not-requested';

/** One sitemap file, as read. */
export interface SitemapFile {
  url: HttpUrl;
  /** The index that named this file; undefined for one of the sources. */
  index: HttpUrl | undefined;
  /** The answer's status; undefined when the fetcher gave none. */
  status: number | undefined;
  /** The document's kind, once its root element was read. */
  kind: SitemapKind | undefined;
  outcome: SitemapOutcome;
  /** A urlset's page URLs, in file order, duplicates and skipped `<loc>`s left out. */
  pages: HttpUrl[];
  /** An index's sitemap URLs, likewise. */
  sitemaps: HttpUrl[];
  /** Uncompressed bytes parsed. */
  bytes: number;
  /** For the user (stderr), one line each, each starting with "sitemap <url>: ". */
  notes: string[];
}

/**
 * Reads `sources` (from sitemapSources) and the sitemaps their indexes
 * name, yielding one SitemapFile each, in order, as each is read. Lazy: a
 * file is requested only when the previous one has been taken, and stopping
 * the iteration requests nothing more. Never throws for what a server sent.
 */
export async function* readSitemaps(sources: Iterable<HttpUrl>, options: SitemapReaderOptions): AsyncGenerator<SitemapFile> {
  const limits = sitemapLimits(options.limits);
  const reader = new FileReader(options.fetch, limits, options.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH);
  const seen = new Set<string>();
  const queue = [...sources].filter((url) => firstTime(seen, url));
  for (const [i, url] of queue.entries()) {
    if (reader.count >= limits.maxFiles) {
      yield notRequested(url, undefined, `not requested, nor the ${queue.length - i - 1} sitemap(s) after it: at most ${fmt(limits.maxFiles)} sitemap files a crawl`);
      return;
    }
    const file = await reader.read(url, undefined);
    const children = file.sitemaps.filter((child) => firstTime(seen, child));
    const room = limits.maxFiles - reader.count;
    if (children.length > room) {
      file.notes.push(`${label(url)}: names ${fmt(children.length)} new sitemaps; reading the first ${fmt(room)} (at most ${fmt(limits.maxFiles)} sitemap files a crawl)`);
    }
    yield file;
    for (const child of children.slice(0, Math.max(room, 0))) yield await reader.read(child, url);
  }
}

/** Everything readSitemaps yields, gathered: for small reads and tests (a large site's pages are better taken file by file). */
export interface SitemapCollection {
  /** Page URLs in order (sources, then each index's sitemaps, then file order), duplicates across files dropped. */
  pages: HttpUrl[];
  /** Every file's notes, in order. */
  notes: string[];
  /** The sitemap URLs handed to the fetcher, in order. */
  requested: HttpUrl[];
  files: SitemapFile[];
}

/** Runs readSitemaps to its end and gathers what it yields. */
export async function collectSitemaps(sources: Iterable<HttpUrl>, options: SitemapReaderOptions): Promise<SitemapCollection> {
  const out: SitemapCollection = { pages: [], notes: [], requested: [], files: [] };
  const seen = new Set<string>();
  for await (const file of readSitemaps(sources, options)) {
    out.files.push(file);
    out.notes.push(...file.notes);
    if (file.outcome !== 'not-requested') out.requested.push(file.url);
    for (const page of file.pages) if (firstTime(seen, page)) out.pages.push(page);
  }
  return out;
}

function notRequested(url: HttpUrl, index: HttpUrl | undefined, why: string): SitemapFile {
  return { url, index, status: undefined, kind: undefined, outcome: 'not-requested', pages: [], sitemaps: [], bytes: 0, notes: [`${label(url)}: ${why}`] };
}

/** True the first time `url` (its identity key) is seen; remembers it. */
function firstTime(seen: Set<string>, url: HttpUrl): boolean {
  if (seen.has(url.key)) return false;
  seen.add(url.key);
  return true;
}

function label(url: HttpUrl): string {
  return `sitemap ${url.href}`;
}

function fmt(n: number): string {
  return n.toLocaleString('en-US');
}

/** Fetches and parses one file at a time; counts the files it was asked for. */
class FileReader {
  count = 0;

  constructor(
    private readonly fetch: SitemapFetcher,
    private readonly limits: SitemapLimits,
    private readonly maxUrlLength: number,
  ) {}

  async read(url: HttpUrl, index: HttpUrl | undefined): Promise<SitemapFile> {
    this.count++;
    const file: SitemapFile = { url, index, status: undefined, kind: undefined, outcome: 'failed', pages: [], sitemaps: [], bytes: 0, notes: [] };
    const note = (text: string): number => file.notes.push(`${label(url)}: ${text}`);
    let response: SitemapResponse;
    try {
      response = await this.fetch(url);
    } catch (err) {
      note(describeError(err));
      return file;
    }
    file.status = response.status;
    if (response.status < 200 || response.status > 299) {
      await discard(response.body);
      note(`HTTP ${response.status}, nothing read`);
      return file;
    }
    let codings: string[];
    try {
      codings = contentCodings(headerValue(response.headers, 'content-encoding'));
    } catch (err) {
      await discard(response.body);
      note(describeError(err));
      return file;
    }

    const seen = new Set<string>();
    const skipped = { count: 0, first: '' };
    const parser = new SitemapParser(
      (loc) => {
        let page: HttpUrl;
        try {
          if (loc === '') throw new Error('an empty <loc>');
          page = parseHttpUrl(loc, this.maxUrlLength);
        } catch (err) {
          if (skipped.count++ === 0) skipped.first = describeError(err);
          return;
        }
        if (firstTime(seen, page)) (parser.kind === 'urlset' ? file.pages : file.sitemaps).push(page);
      },
      { maxUrls: this.limits.maxUrlsPerFile, maxBytes: this.limits.maxBytesPerFile },
    );
    let failure: string | undefined;
    try {
      let whole = true;
      for await (const chunk of sitemapBytes(response.body, codings)) {
        if (!parser.feed(chunk)) {
          whole = false;
          break;
        }
      }
      if (whole) parser.end();
    } catch (err) {
      failure = describeError(err);
    }
    file.kind = parser.kind;
    file.bytes = parser.bytes;

    if (skipped.count > 0) note(`skipped ${fmt(skipped.count)} <loc>(s) that are no http(s) URL; the first: ${skipped.first}`);
    const kept = file.kind === 'sitemapindex' ? `${fmt(file.sitemaps.length)} sitemap(s)` : `${fmt(file.pages.length)} URL(s)`;
    if (failure !== undefined) {
      note(`${failure}; kept the ${kept} read before it`);
    } else if (parser.stop !== undefined) {
      file.outcome = parser.stop.reason === 'max-urls' || parser.stop.reason === 'max-bytes' ? 'cut' : 'failed';
      note(stopText(parser.stop, kept));
    } else if (index !== undefined && file.kind === 'sitemapindex') {
      file.outcome = 'not-followed';
      note(`a sitemap index named by the index ${index.href}: the ${fmt(file.sitemaps.length)} sitemap(s) it names are not read (indexes are followed one level)`);
    } else {
      file.outcome = 'read';
    }
    return file;
  }
}

function stopText(stop: SitemapStop, kept: string): string {
  switch (stop.reason) {
    case 'max-urls':
      return `more than ${fmt(stop.limit)} <loc> entries (the sitemaps.org limit): the rest of the file is skipped, ${kept} kept`;
    case 'max-bytes':
      return `larger than ${fmt(stop.limit)} bytes uncompressed (the sitemaps.org limit): the rest of the file is skipped, ${kept} kept`;
    case 'not-a-sitemap':
      return `not a sitemap: its root element is <${stop.root}>, not <urlset> or <sitemapindex>`;
    case 'malformed':
      return `malformed XML at line ${stop.line}, column ${stop.column}: ${stop.message}; kept the ${kept} read before it`;
  }
}

/** Lets go of a body that is not read (a streamed one is told to stop). */
async function discard(body: SitemapBody): Promise<void> {
  if (body instanceof Uint8Array) return;
  await body[Symbol.asyncIterator]().return?.(undefined);
}
