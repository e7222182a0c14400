/**
 * A Worker of a shared crawl built for in-process tests: a real HTTP client
 * and politeness against a local test site, the crawler's robots.txt rules,
 * and a program whose words are short. Options cover what the tests vary.
 */
import type { CrawlEvent } from '../../src/engine/events.js';
import { PoliteFetcher } from '../../src/engine/polite-fetch.js';
import type { PagePolicy } from '../../src/engine/page-policy.js';
import { Worker } from '../../src/engine/worker.js';
import { HtmlLinkExtractor } from '../../src/extract/html.js';
import type { ClaimCrawlConfig, ClaimStore } from '../../src/frontier/claim-store.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { HttpClient } from '../../src/http/client.js';
import { CRAWLER_FAILURE_POLICY, DEFAULT_MAX_CRAWL_DELAY, DEFAULT_MAX_ROBOTS_BYTES, rulesFromAnswer } from '../../src/robots/policy.js';
import { TsePageDirectory } from '../../src/sink/tse-pagedir.js';
import { parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../../src/url/http-url.js';

export interface TestWorkerOptions {
  signal?: AbortSignal;
  leaseMs?: number;
  /** The crawl's delay between request starts to one host (default 0). */
  delayMs?: number;
  /** Back-off on push-backs (as crawler has it; default off). */
  backOff?: boolean;
  /** The program's retry decision (default: none). */
  retry?: PagePolicy['retry'];
  lanes?: number;
  /** Receives the worker's politeness (to look at a host's streak). */
  politeness?: Politeness;
  /** Obey robots.txt, fetched through the worker's polite fetcher (default: ignored). */
  robots?: boolean;
  /** The crawl's scope (default: the seed's origin). */
  inScope?: (url: HttpUrl) => boolean;
}

export function makeWorker(store: ClaimStore, seed: HttpUrl, dir: string, reports: CrawlEvent[], o: TestWorkerOptions = {}): Worker {
  const client = new HttpClient({ userAgent: 'worker-test' });
  const politeness = o.politeness ?? new Politeness({ delayMs: o.delayMs ?? 0 });
  const fetcher = new PoliteFetcher(client, politeness, undefined, { backOff: o.backOff ?? false });
  const robotsOptions = { userAgent: 'worker-test', onFailure: CRAWLER_FAILURE_POLICY, maxBytes: DEFAULT_MAX_ROBOTS_BYTES, maxCrawlDelay: DEFAULT_MAX_CRAWL_DELAY };
  const config: ClaimCrawlConfig = { seed: { key: seed.key, url: seed.href, depth: 0, origin: seed.origin }, maxDepth: 2, delayMs: o.delayMs ?? 0, robots: o.robots === true };
  return new Worker({
    store,
    seed,
    config,
    claim: { leaseMs: o.leaseMs ?? 10_000, strictBfs: false },
    lanes: o.lanes ?? 2,
    maxRedirects: 5,
    extractor: new HtmlLinkExtractor(),
    fetcher,
    politeness,
    sink: new TsePageDirectory(dir, { staging: 'file' }),
    policy: {
      resolveLink: (href, base) => resolveHttpUrl(href, base),
      inScope: o.inScope ?? ((url) => url.origin === seed.origin),
      verdict: ({ response: r }) => (r.status === 200 ? { keep: true, scan: true } : { keep: false, reason: `(HTTP ${r.status})` }),
      failureReason: (e) => `(${e.message})`,
      ...(o.retry === undefined ? {} : { retry: o.retry }),
    },
    robots: {
      fetch: o.robots === true ? fetcher.robotsFetcher((h) => parseHttpUrl(h), resolveHttpUrl, 5) : async () => ({ error: new Error('not used') }),
      rules: (a) => rulesFromAnswer({ status: a.status, body: Buffer.from(a.body) }, robotsOptions),
      stored: (status, body) => ({ status, body: body.toString() }),
    },
    onEvent: (e) => void reports.push(e),
    ...(o.signal ? { signal: o.signal } : {}),
  });
}
