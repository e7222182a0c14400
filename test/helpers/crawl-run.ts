/**
 * One private crawl (`Crawl`) in process, for the engine tests: the memory
 * frontier, the real HTTP client, politeness and polite fetcher, the HTML
 * extractor, robots.txt under the crawler's failure policy, and a policy
 * that keeps and scans every 200 and records what it is asked. Events come
 * back one line each (`show`), so a test compares sequences; the events that
 * tell what the policy decided (saved, failed, disallowed) are kept apart,
 * in `pages`, `failures` and `seedDisallowed`.
 */
import { Crawl, type CrawlSummary } from '../../src/engine/crawl.js';
import type { AnsweredPage, PagePolicy } from '../../src/engine/page-policy.js';
import { NO_PAGE_SINK, type PageSink } from '../../src/sink/page-sink.js';
import type { EarlierPages } from '../../src/frontier/earlier-pages.js';
import type { FrontierStore } from '../../src/frontier/private-store.js';
import type { CrawlEvent } from '../../src/engine/events.js';
import { PoliteFetcher } from '../../src/engine/polite-fetch.js';
import { HtmlLinkExtractor } from '../../src/extract/html.js';
import { MemoryFrontier } from '../../src/frontier/private-memory.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { HttpClient } from '../../src/http/client.js';
import { CRAWLER_FAILURE_POLICY, RobotsPolicy } from '../../src/robots/policy.js';
import { parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../../src/url/http-url.js';

export interface CrawlSetup {
  seed: string;
  /** Seeds after it (CrawlOptions.moreSeeds). */
  moreSeeds?: string[];
  /** Default: the seed's origin. */
  inScope?: (url: HttpUrl) => boolean;
  maxDepth?: number;
  maxRedirects?: number;
  maxPages?: number;
  delayMs?: number;
  /** False: --ignore-robots. */
  robots?: boolean;
  concurrency?: number;
  scanAhead?: boolean;
  fetchNext?: boolean;
  signal?: AbortSignal;
  /** Where pages answered ahead wait (CrawlOptions.spill), and the memory before it is used. */
  spill?: import('../../src/sink/body-spill.js').BodySpill;
  aheadMemory?: number;
  /** Read each seed host's sitemaps (CrawlOptions.sitemaps). */
  sitemaps?: boolean;
  /** The output's room (CrawlOptions.outputRoom). */
  outputRoom?: () => Promise<void> | undefined;
  /** Told each page as it reaches the policy, with the politeness (whose `sent` are the requests written so far). */
  onPage?: (page: AnsweredPage, politeness: RecordingPoliteness) => void;
  /** A refresh's earlier crawl (CrawlOptions.earlier). */
  earlier?: EarlierPages;
  /** --page-requisites (CrawlOptions.requisites). */
  requisites?: import('../../src/engine/requisites.js').RequisiteSettings;
  /** The client asks for compressed bodies and decodes them (--compressed). */
  compressed?: boolean;
  /** Default: a memory frontier. */
  frontier?: FrontierStore;
  /** Default: a sink that keeps nothing. */
  sink?: PageSink;
  /** Told every event, `saved` included. */
  onEvent?: (e: CrawlEvent) => void;
}

/** Politeness that also keeps the time of every request start it stamps (when the request was written). */
export class RecordingPoliteness extends Politeness {
  readonly sent: number[] = [];
  override stamp(host: string): void {
    super.stamp(host);
    this.sent.push(performance.now());
  }
}

export interface CrawlOutcome {
  summary: CrawlSummary;
  /** The events, one line each (see show). */
  events: string[];
  /** Each page handed to onResponse: "entry URL => answered URL". */
  pages: string[];
  failures: Array<{ entry: string; url: string; code: string }>;
  seedDisallowed: string[];
  politeness: RecordingPoliteness;
}

/** One event as a line: what the tests compare. */
export function show(e: CrawlEvent): string {
  const err = 'error' in e && e.error !== undefined ? ` ${e.error.code}` : '';
  switch (e.type) {
    case 'response':
      return `response ${e.depth} ${e.url.key} ${e.status}${err}`;
    case 'redirect':
      return `redirect ${e.depth} ${e.from.key} -> ${e.target?.key ?? `raw:${e.raw}`} ${e.action}${err}`;
    case 'scanning':
      return `scanning ${e.depth} ${e.url.key}`;
    case 'link':
      return `link ${e.depth} ${e.url?.key ?? `raw:${e.raw}`} ${e.action}${err}`;
    case 'robots':
      return `robots ${e.origin}/robots.txt ${e.source} group=${e.group} rules=${e.rules} delay=${e.crawlDelay ?? '-'}`;
    case 'sitemap':
      return `sitemap ${e.url?.key ?? '-'} ${e.outcome} found=${e.found} queued=${e.queued}${e.notes.map((n) => ` | ${n}`).join('')}`;
    default:
      return `${e.type} ${JSON.stringify(e)}`;
  }
}

/** Runs a crawl with a program that scans every 200 and records what it is told. */
export async function runCrawl(o: CrawlSetup): Promise<CrawlOutcome> {
  const seed = parseHttpUrl(o.seed);
  const maxRedirects = o.maxRedirects ?? 5;
  const client = new HttpClient({ userAgent: 'crawl-test', ...(o.compressed === true ? { compressed: true } : {}) });
  const politeness = new RecordingPoliteness({ delayMs: o.delayMs ?? 0 });
  const fetcher = new PoliteFetcher(client, politeness);
  const resolve = (href: string, base: HttpUrl): HttpUrl => resolveHttpUrl(href, base);
  const robots =
    o.robots === false
      ? undefined
      : new RobotsPolicy({ userAgent: 'crawl-test', onFailure: CRAWLER_FAILURE_POLICY, fetch: fetcher.robotsFetcher(parseHttpUrl, resolve, maxRedirects) });
  const out: Omit<CrawlOutcome, 'summary'> = { events: [], pages: [], failures: [], seedDisallowed: [], politeness };
  // The verdict is asked again for a page scanned ahead: each answer is recorded once.
  const asked = new WeakSet<object>();
  let visiting = '';
  const policy: PagePolicy = {
    resolveLink: resolve,
    inScope: o.inScope ?? ((url) => url.origin === seed.origin),
    verdict(p) {
      if (!asked.has(p.response)) {
        asked.add(p.response);
        out.pages.push(`${p.entry.url} => ${p.url.key}`);
        o.onPage?.(p, politeness);
      }
      // A 304 the page path found to be a refresh's unchanged page is kept, as the crawler keeps it.
      return p.response.status === 200 || p.unchanged !== undefined ? { keep: true, scan: true } : { keep: false };
    },
    failureReason: (error) => error.message,
  };
  const onEvent = (e: CrawlEvent): void => {
    o.onEvent?.(e);
    if (e.type === 'response') visiting = e.url.key;
    if (e.type === 'saved' || e.type === 'requisite') return;
    if (e.type === 'failed') out.failures.push({ entry: visiting, url: e.url, code: e.error?.code ?? '' });
    else if (e.type === 'disallowed') out.seedDisallowed.push(e.url);
    else out.events.push(show(e));
  };
  try {
    const crawl = new Crawl({
      seed,
      ...(o.moreSeeds === undefined ? {} : { moreSeeds: o.moreSeeds.map((u) => parseHttpUrl(u)) }),
      seedDepth: 0,
      maxDepth: o.maxDepth ?? 2,
      maxRedirects,
      maxPages: o.maxPages,
      extractor: new HtmlLinkExtractor(),
      fetcher,
      politeness,
      loadRobots: robots === undefined ? undefined : (origin) => robots.rulesFor(origin),
      frontier: o.frontier ?? new MemoryFrontier(),
      policy,
      sink: o.sink ?? NO_PAGE_SINK,
      ...(o.earlier === undefined ? {} : { earlier: o.earlier }),
      onEvent,
      concurrency: o.concurrency ?? 1,
      ...(o.scanAhead === undefined ? {} : { scanAhead: o.scanAhead }),
      ...(o.fetchNext === undefined ? {} : { fetchNext: o.fetchNext }),
      ...(o.signal === undefined ? {} : { signal: o.signal }),
      ...(o.outputRoom === undefined ? {} : { outputRoom: o.outputRoom }),
      ...(o.sitemaps === true ? { sitemaps: { maxUrlLength: 2048 } } : {}),
      ...(o.spill === undefined ? {} : { spill: o.spill }),
      ...(o.aheadMemory === undefined ? {} : { aheadMemory: o.aheadMemory }),
      ...(o.requisites === undefined ? {} : { requisites: o.requisites }),
    });
    return { summary: await crawl.run(), ...out };
  } finally {
    client.close();
  }
}

