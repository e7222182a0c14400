/**
 * Links from sitemaps (spec decision "Sitemaps", `crawler --sitemaps`): once
 * a seed's page is complete, the sitemaps its host names (the `Sitemap:`
 * lines of its robots.txt, else `/sitemap.xml`) are read, and the URLs they
 * list that are in scope, not seen and allowed by robots.txt become links at
 * the next depth, in file order, after the seed's own links: the output
 * stays deterministic. Both schedulers queue what this gives them (the
 * private crawl in its frontier, a shared worker through its store).
 *
 * Sitemap requests are requests like any other: each goes through the
 * crawl's polite fetcher (the host's turn, the archive, the report), only
 * when robots.txt allows it, and follows redirects as robots.txt does. A
 * body is read whole within --max-body-bytes, so a plain sitemap larger than
 * that fails alone (with its reason) before the protocol's 50 MB could;
 * gzip sitemaps are limited to 50 MB once decoded. The reader (src/sitemap)
 * enforces the protocol's limits and never expands an entity.
 */
import { CrawlerError } from '../errors.js';
import type { ClaimEntry } from '../frontier/claim-store.js';
import { readSitemaps, type SitemapResponse } from '../sitemap/sitemap-reader.js';
import type { SitemapLimits } from '../sitemap/sitemap-limits.js';
import { sitemapSources } from '../sitemap/sitemap-sources.js';
import type { HttpUrl } from '../url/http-url.js';
import type { CrawlEventSink } from './events.js';
import type { LinkClassifier } from './link-classifier.js';
import type { PoliteFetcher } from './polite-fetch.js';
import { followRedirects } from './redirects.js';
import type { RobotsGate } from './robots-gate.js';

/** How sitemaps are read (--sitemaps): the crawl's URL length cap, and the protocol's limits (defaults: the protocol's). */
export interface SitemapSettings {
  maxUrlLength: number;
  limits?: Partial<SitemapLimits> | undefined;
}

export interface SitemapLinksOptions {
  fetcher: PoliteFetcher;
  robots: RobotsGate;
  /** Scope, then seen (where the scheduler knows), then robots.txt: the page path's classifier. */
  classifier: LinkClassifier;
  /** Resolves a Location (or a link) against a base, with the crawl's caps. */
  resolve: (href: string, base: HttpUrl) => HttpUrl;
  maxRedirects: number;
  maxUrlLength: number;
  /** Most robots.txt files fetched at once for the hosts a sitemap names. */
  robotsConcurrency: number;
  limits?: Partial<SitemapLimits> | undefined;
  onEvent: CrawlEventSink;
  signal: AbortSignal;
}

export class SitemapLinks {
  /** Origins whose sitemaps were read (once a crawl each). */
  private readonly read = new Set<string>();

  constructor(private readonly o: SitemapLinksOptions) {}

  /**
   * Reads the sitemaps of `origin` (once a crawl) and hands `queue` each
   * file's links at `depth`, in order: its URLs in scope and allowed by
   * robots.txt, none seen before (where the classifier knows) and none twice.
   * `queue` says which were new (the frontier's, or the store's, answer);
   * then the file is told as a `sitemap` event.
   */
  async queueLinks(origin: string, depth: number, queue: (links: ClaimEntry[]) => Promise<readonly boolean[]> | readonly boolean[]): Promise<void> {
    if (this.read.has(origin)) return;
    this.read.add(origin);
    const { robots, classifier, onEvent } = this.o;
    const sources = sitemapSources(robots.rulesOf(origin)?.sitemaps ?? [], origin, this.o.maxUrlLength);
    for (const note of sources.notes) onEvent({ type: 'sitemap', url: undefined, index: undefined, status: undefined, outcome: 'failed', found: 0, queued: 0, notes: [note] });
    const taken = new Set<string>();
    for await (const file of readSitemaps(sources.urls, { fetch: (url) => this.fetch(url), limits: this.o.limits, maxUrlLength: this.o.maxUrlLength })) {
      if (this.o.signal.aborted) break;
      // The robots.txt of every host the file names, fetched at once; then each URL judged in file order.
      // Out of the crawl's scope, counted for the sitemap's line; the rest judged below.
      let outside = 0;
      const pages = file.pages.filter((url) => {
        if (classifier.now(url) !== 'external') return !taken.has(url.key);
        outside++;
        return false;
      });
      await robots.learnAll(
        pages.filter((url) => robots.allowsNow(url) === undefined).map((url) => url.origin),
        this.o.robotsConcurrency,
      );
      const links: ClaimEntry[] = [];
      let disallowed = 0;
      for (const url of pages) {
        const action = classifier.now(url) ?? (await classifier.classify(url));
        if (action === 'robots') disallowed++;
        if (action !== 'follow' || taken.has(url.key)) continue;
        taken.add(url.key);
        links.push({ key: url.key, url: url.href, depth, origin: url.origin });
      }
      const added = links.length === 0 ? [] : await queue(links);
      const queued = added.filter((a) => a).length;
      // What was not queued, by cause: out of the crawl's scope, disallowed by robots.txt, already known (the rest).
      const dropped = { outside, disallowed, known: file.pages.length - queued - outside - disallowed };
      onEvent({ type: 'sitemap', url: file.url, index: file.index, status: file.status, outcome: file.outcome, found: file.pages.length, queued, dropped, notes: file.notes });
    }
  }

  /** One sitemap, fetched the crawl's way: only when robots.txt allows it, politely, redirects followed. */
  private async fetch(first: HttpUrl): Promise<SitemapResponse> {
    const end = await followRedirects(first, {
      fetch: async (url) => {
        if (!(await this.o.robots.allows(url))) throw new CrawlerError('ERR_DISALLOWED', `not requested: robots.txt disallows ${url.key}`, { url: url.key });
        return this.o.fetcher.outcome(url, this.o.signal);
      },
      maxRedirects: this.o.maxRedirects,
      resolve: this.o.resolve,
      follow: (step) => step.kind === 'target',
    });
    const { response, error } = end.outcome;
    if (response === undefined) throw error;
    return { status: response.status, headers: response.headers, body: response.body };
  }
}
