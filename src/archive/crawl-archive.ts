/**
 * The crawl archive (`--warc FILE`): a consumer of the crawl's events that
 * writes a WARC/1.1 archive. Every wire exchange becomes its records
 * (exchange-records.ts); every page a `metadata` record with its depth, the
 * page it came from (`via`) and its outlinks. The work is done off the
 * crawl's thread: events are queued as they come, and on the next turn of
 * the event loop this side decides what only it can (which page a record
 * belongs to, the IDs the records name) and sends the rest to the archive's
 * own thread (record-thread.ts), which makes the records (digests, gzip)
 * and writes them.
 *
 * At the end, `finish()` says which files were written and which pages they
 * hold, for the index and the package (see finishArchive in the runners).
 */
import { conditionalHeaders } from '../engine/earlier-pages.js';
import type { EarlierPage, EarlierPages } from '../frontier/earlier-pages.js';
import type { CrawlEvent, CrawlEventSink } from '../engine/events.js';
import type { PageCapture } from '../frontier/private-store.js';
import { contentCodings, decodeBody } from '../http/content-decoding.js';
import { headerValue } from '../http/header-lines.js';
import type { WireExchange } from '../http/wire-exchange.js';
import type { HttpUrl } from '../url/http-url.js';
import type { CdxjEntry } from './cdxj-line.js';
import { sha1Digest } from './digest.js';
import { exchangeInput, type Capture, type NotModified } from './exchange-records.js';
import { finalHead } from './recorded-payload.js';
import { pageTitle } from './page-title.js';
import { RecordThread } from './record-thread-client.js';
import { warcDate, warcFieldsText } from './warc-record.js';
import type { CrawlDescription } from './warcinfo.js';

/**
 * A page the crawl kept, as pages.jsonl lists it (spec decision "The crawl
 * archive": the pages the crawl saved): its final response arrived whole
 * with status 200, it was no redirect, and the program did not fail it.
 * For the crawler these are its page files (a 200 it does not save, such as
 * one that is not HTML, is a Failed page); for KeywordHunter, the pages it
 * searched (and saved in OutputDir when given one). A response cut short
 * (WARC-Truncated) is in the archive as evidence, never in this list.
 */
export interface ArchivedPage {
  url: string;
  /** Its response record's WARC-Date. */
  ts: string;
  status: number;
  /** The HTML title, when the page has one in its first 64 KiB. */
  title?: string;
}

/** What a finished archive is. */
export interface ArchiveSummary {
  warcPaths: readonly string[];
  pages: readonly ArchivedPage[];
  /** This run's index entries as written; undefined for a resumed archive (read it back for the index). */
  index: readonly CdxjEntry[] | undefined;
}

export interface CrawlArchiveOptions extends CrawlDescription {
  path: string;
  maxSize: number;
  resume: boolean;
  /**
   * Each page's events come in one run, page after page (a private crawl).
   * False for a worker of a shared crawl, whose lanes interleave: a page's
   * record then waits for the event that ends it (saved, failed, lost, redirect).
   */
  ordered: boolean;
  /**
   * Keep each page response's capture, payload digest included, for the
   * crawl state (captureOf): a private crawl, whose state a later refresh
   * reads. It costs a SHA-1 of each 200's payload on the crawl's thread,
   * besides the one the archive's thread takes.
   */
  captures?: boolean | undefined;
  /**
   * A refresh's earlier crawl (crawler --since): a 304 to the conditional
   * request for one of its pages is written as a server-not-modified
   * revisit of its record there, with its payload's digest (read from the
   * earlier copy when the earlier crawl kept no archive).
   */
  earlier?: (EarlierPages & { bodySync(page: EarlierPage): Buffer }) | undefined;
  /** A resumed archive: the pages its earlier runs listed, listed first (its page list and "archived N" count the whole file). */
  listed?: readonly ArchivedPage[] | undefined;
}

interface PageState {
  url: HttpUrl;
  depth: number;
  status: number;
  /** The response did not arrive whole (its event carried an error). */
  broken: boolean;
  /** A refresh saved it from its earlier copy (a 304 to the conditional request). */
  unchanged?: boolean;
  outlinks: string[];
  redirect: boolean;
  failure: string | undefined;
}

/** A title, or the promise of one (read from a compressed payload's decoded start). */
type Title = string | undefined | Promise<string | undefined>;

interface Fetched {
  capture: Capture;
  title: Title;
}

/** A page listed, its title perhaps still being read. */
type ListedPage = Omit<ArchivedPage, 'title'> & { title: Title };

/** Bounds on what is remembered (oldest forgotten first): memory stays bounded on a crawl of millions of pages. */
const MAX_FETCHED = 10_000;
/** Captures kept for the crawl state: a page's is asked for as soon as the page is saved, a few exchanges later at most. */
const MAX_CAPTURES = 1_000;
const MAX_VIA = 200_000;

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}

/** Bytes of a payload read for its title. */
const TITLE_BYTES = 65536;

/**
 * The title of a 200's payload (`--compressed`: a body with a content
 * coding is decoded, its first 64 KiB only, off the crawl's thread, hence a
 * promise); undefined when there is none, or it cannot be read.
 */
function titleOf(x: WireExchange, payload: Buffer): Title {
  const plain = pageTitle(payload);
  if (plain !== undefined) return plain;
  // No title in the bytes: a page without one, or a compressed one (rarer, so looked for second).
  const head = finalHead(x.response);
  let codings: string[];
  try {
    codings = contentCodings(head === undefined ? undefined : headerValue(head.headers, 'content-encoding'));
  } catch {
    return undefined;
  }
  if (codings.length === 0) return undefined;
  return decodeBody(payload, codings, TITLE_BYTES, true).then(pageTitle, () => undefined);
}

export class CrawlArchive {
  private readonly o: CrawlArchiveOptions;
  private readonly thread: RecordThread;
  private queue: CrawlEvent[] = [];
  private scheduled = false;
  private finished = false;
  private readonly fetched = new Map<string, Fetched>();
  private readonly via = new Map<string, string>();
  private readonly open = new Map<string, PageState>();
  private scanned: PageState | undefined;
  private saved: PageState | undefined;
  private readonly pages: ListedPage[] = [];
  /** Per URL, the job of its last exchange's records. */
  private readonly writes = new Map<string, number>();
  /** Per URL, its last response's capture (with `captures`). */
  private readonly captures = new Map<string, PageCapture>();

  private constructor(options: CrawlArchiveOptions, thread: RecordThread) {
    this.o = options;
    this.thread = thread;
  }

  /** Opens the archive (refusing a file that is not ours); rejects with ERR_WRITE. */
  static async open(options: CrawlArchiveOptions): Promise<CrawlArchive> {
    const { path, maxSize, resume, robots, userAgent, commandLine } = options;
    return new CrawlArchive(options, await RecordThread.open({ path, maxSize, resume, robots, userAgent, commandLine }));
  }

  /** The sink for the run's events (exchanges included). */
  readonly consume: CrawlEventSink = (e) => {
    if (this.finished) return;
    this.queue.push(e);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  };

  /**
   * Resolves once the records of the last exchange with `key` (a URL's
   * identity key), and all before them, are in the files (written, not
   * synced): a shared crawl's worker awaits it before the store hears a
   * page is done (its store commits each page), so that a crash never
   * leaves a page done but missing from the archive. The archive's thread
   * writes each batch as it comes, so this waits about one batch.
   */
  written(key: string): Promise<void> {
    this.drain();
    const seq = this.writes.get(key);
    return seq === undefined ? Promise.resolve() : this.thread.written(seq);
  }

  /**
   * The number of the last record job so far (every event taken in first):
   * with isWritten() and writtenThrough(), what a crawl state's commit waits
   * for, so that no page is durably done before its records are written.
   */
  mark(): number {
    this.drain();
    return this.thread.last;
  }

  /** True when the records of `mark` and before are written. */
  isWritten(mark: number): boolean {
    return this.thread.isWritten(mark);
  }

  /** Resolves once the records of `mark` and before are written (written, not synced). */
  writtenThrough(mark: number): Promise<void> {
    return this.thread.written(mark);
  }

  /**
   * The capture of the last response to `key` (a URL's identity key) whose
   * payload a page can be saved from: a 200's, or, in a refresh, the earlier
   * capture a 304 refers to (this revisit's own, when the earlier crawl had
   * no archive). Undefined without `captures`, or when there is none.
   */
  captureOf(key: string): PageCapture | undefined {
    this.drain();
    return this.captures.get(key);
  }

  /** Resolves when the archive's backlog is small enough to go on (memory stays bounded). */
  room(): Promise<void> {
    this.drain();
    return this.thread.room();
  }

  /** Writes everything and closes the files; rejects with ERR_WRITE when a write failed. */
  async finish(): Promise<ArchiveSummary> {
    this.drain();
    this.finished = true;
    this.endScan();
    for (const page of [...this.open.values()]) this.close(page);
    const written = await this.thread.close();
    const pages = await Promise.all(this.pages.map(async ({ title, ...page }): Promise<ArchivedPage> => {
      const text = await title;
      return text === undefined ? page : { ...page, title: text };
    }));
    return { warcPaths: written.files, pages: [...(this.o.listed ?? []), ...pages], index: written.index };
  }

  private drain(): void {
    this.scheduled = false;
    const events = this.queue;
    this.queue = [];
    for (const e of events) this.handle(e);
    this.thread.flush();
  }

  private handle(e: CrawlEvent): void {
    if (e.type === 'exchange') {
      this.exchange(e.exchange);
      return;
    }
    // A page requisite's exchange is archived as it comes; its event is no page's (it may come between a page's events).
    if (e.type === 'requisite') return;
    if (e.type === 'link') {
      const page = this.scanned;
      if (page === undefined || e.url === undefined) return;
      page.outlinks.push(e.url.key);
      if (e.action === 'follow') remember(this.via, e.url.key, page.url.key, MAX_VIA);
      return;
    }
    this.endScan();
    if (this.saved !== undefined && !(e.type === 'scanning' && e.url.key === this.saved.url.key)) this.close(this.saved);
    this.saved = undefined;
    switch (e.type) {
      case 'response': {
        if (this.o.ordered) for (const page of [...this.open.values()]) this.close(page);
        this.open.set(e.url.key, { url: e.url, depth: e.depth, status: e.status, broken: e.error !== undefined, outlinks: [], redirect: false, failure: undefined });
        break;
      }
      case 'redirect': {
        const page = this.open.get(e.from.key);
        if (page === undefined) break;
        page.redirect = true;
        if (e.target !== undefined) {
          page.outlinks.push(e.target.key);
          if (e.action === 'follow') remember(this.via, e.target.key, e.from.key, MAX_VIA);
        }
        this.close(page);
        break;
      }
      case 'saved':
        this.saved = this.open.get(e.url.key);
        if (this.saved !== undefined && e.refresh?.state === 'unchanged') this.saved.unchanged = true;
        break;
      case 'scanning':
        this.scanned = this.open.get(e.url.key) ?? { url: e.url, depth: e.depth, status: 200, broken: false, outlinks: [], redirect: false, failure: undefined };
        this.open.set(e.url.key, this.scanned);
        break;
      case 'failed':
      case 'lost':
      case 'disallowed': {
        const page = this.open.get(e.url);
        if (page === undefined) break;
        page.failure = e.type === 'failed' ? e.reason : e.type;
        this.close(page);
        break;
      }
      default:
        break;
    }
  }

  private endScan(): void {
    const page = this.scanned;
    this.scanned = undefined;
    if (page !== undefined) this.close(page);
  }

  private exchange(x: Extract<CrawlEvent, { type: 'exchange' }>['exchange']): void {
    const notModified = x.status === 304 && x.error === undefined ? this.notModified(x.url.key) : undefined;
    const input = exchangeInput(x, notModified);
    remember(this.writes, input.uri, this.thread.exchange(input), MAX_FETCHED);
    if (input.responseId === undefined) return;
    if (this.o.captures === true && x.error === undefined) {
      const { uri, date, responseId: id } = input;
      const capture: PageCapture | undefined =
        notModified !== undefined
          ? { ...(notModified.refersTo ?? { uri, date, id }), digest: notModified.digest }
          : x.status === 200 && input.payload !== undefined
            ? { uri, date, id, digest: sha1Digest(input.payload) }
            : undefined;
      if (capture !== undefined) remember(this.captures, uri, capture, MAX_CAPTURES);
    }
    const title = x.status === 200 && x.payload !== undefined ? titleOf(x, x.payload) : undefined;
    remember(this.fetched, input.uri, { capture: { uri: input.uri, date: input.date, id: input.responseId }, title }, MAX_FETCHED);
  }

  /**
   * What a 304 to `key` revisits: the earlier crawl's page, when the request
   * carried its validators (as the page path decides: the same source, the
   * same answer), or the page requisite it archived (engine/requisites.ts
   * asks with the same record), with its capture and payload digest. Undefined otherwise,
   * or when its earlier copy cannot be read (the page then fails, and the
   * 304 is archived as the response it is).
   */
  private notModified(key: string): NotModified | undefined {
    const earlier = this.o.earlier;
    const page = earlier?.page(key);
    if (earlier === undefined) return undefined;
    if (page === undefined) {
      // A page requisite the earlier crawl archived (--page-requisites): it was asked with its validators too.
      const requisite = earlier.requisite?.(key);
      return requisite === undefined ? undefined : { refersTo: { uri: requisite.capture.uri, date: requisite.capture.date, id: requisite.capture.id }, digest: requisite.capture.digest };
    }
    if (conditionalHeaders(page) === undefined) return undefined;
    const capture = page.capture;
    if (capture !== undefined) return { refersTo: { uri: capture.uri, date: capture.date, id: capture.id }, digest: capture.digest };
    try {
      return { refersTo: undefined, digest: sha1Digest(earlier.bodySync(page)) };
    } catch {
      return undefined;
    }
  }

  /** A page's events are over: its metadata record, and its place in the page list. */
  private close(page: PageState): void {
    const key = page.url.key;
    if (this.open.get(key) === page) this.open.delete(key);
    if (this.saved === page) this.saved = undefined;
    const fetched = this.fetched.get(key);
    this.fetched.delete(key);
    const fields: Array<[string, string]> = [['depth', String(page.depth)]];
    const from = this.via.get(key);
    this.via.delete(key);
    if (from !== undefined) fields.push(['via', from]);
    for (const link of page.outlinks) fields.push(['outlink', link]);
    if (page.failure !== undefined) fields.push(['failure', page.failure]);
    this.thread.metadata({ uri: key, date: fetched?.capture.date ?? warcDate(Date.now()), concurrentTo: fetched?.capture.id, fields: warcFieldsText(fields) });
    if ((page.status === 200 || page.unchanged === true) && !page.broken && !page.redirect && page.failure === undefined && fetched !== undefined) {
      this.pages.push({ url: key, ts: fetched.capture.date, status: page.status, title: fetched.title });
    }
  }
}
