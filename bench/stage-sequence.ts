/**
 * The per-page work of a crawl of the bench site, laid out in advance for
 * stages.ts: every request `./crawler --delay 0 -q SEED DIR 6` makes, in its
 * order, with what each stage of the page path is handed. Built with the
 * project's own modules (dist/src) the way the crawl wires them
 * (programs/tse-run.ts, tse-crawl.ts, engine/crawl.ts, page-path.ts): the
 * crawler's policy and link resolution, the seeds' scope, the site's
 * robots.txt, a breadth-first walk whose seen set is the frontier's as each
 * page is scanned. Untimed: stage-isolation.ts times each stage over it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HtmlLinkExtractor } from '../src/extract/html.js';
import type { ExtractedLinks } from '../src/extract/types.js';
import type { ClaimEntry } from '../src/frontier/claim-store.js';
import type { FrontierEntry, SavedPage } from '../src/frontier/private-store.js';
import { Politeness } from '../src/frontier/politeness.js';
import { LinkClassifier } from '../src/engine/link-classifier.js';
import { pageLinks, type PageLink } from '../src/engine/page-links.js';
import type { PagePolicy } from '../src/engine/page-policy.js';
import { RobotsGate } from '../src/engine/robots-gate.js';
import { savedPage } from '../src/engine/earlier-pages.js';
import type { LinkAction } from '../src/engine/events.js';
import { ResponseParser, type ParsedResponse } from '../src/http/response-parser.js';
import { DEFAULT_CLIENT_OPTIONS, type FetchResponse } from '../src/http/client.js';
import { CRAWLER_FAILURE_POLICY, DEFAULT_MAX_CRAWL_DELAY, DEFAULT_MAX_ROBOTS_BYTES, rulesFromAnswer } from '../src/robots/policy.js';
import { tsePolicy, tseWantsBody } from '../src/programs/tse.js';
import { CRAWLER_USER_AGENT } from '../src/programs/tse-settings.js';
import { DEFAULT_MAX_URL_LENGTH, parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../src/url/http-url.js';
import { checkPathDepth, DEFAULT_MAX_PATH_SEGMENTS } from '../src/url/limits.js';
import { crawlScope, type CrawlScope } from '../src/url/scope.js';
import type { Site } from './site.js';

/** What nginx 1.22 sends for a missing file (bench/servers.ts's conf), body and all. */
const NOT_FOUND_BODY = '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.22.1</center>\r\n</body>\r\n</html>\r\n';
const DATE = 'Mon, 07 Dec 2026 01:02:24 GMT';

/** The bytes nginx writes for a page: its head (as bench/servers.ts's nginx sends it) and the file, in one socket read. */
export function nginxResponse(status: 200 | 404, body: Buffer, mtimeHex = '6b1605a0'): Buffer {
  const head =
    status === 200
      ? `HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: ${DATE}\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nLast-Modified: ${DATE}\r\nConnection: keep-alive\r\nETag: "${mtimeHex}-${body.length.toString(16)}"\r\nAccept-Ranges: bytes\r\n\r\n`
      : `HTTP/1.1 404 Not Found\r\nServer: nginx/1.22.1\r\nDate: ${DATE}\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** One request of the crawl, in order, with what each stage gets and gave in the crawl. */
export interface Step {
  /** The frontier's entry, as queued. */
  entry: FrontierEntry;
  url: HttpUrl;
  /** The response as it arrives on the socket (one read). */
  raw: Buffer;
  status: 200 | 404;
  body: Buffer;
  /** The parsed answer, as the client hands it on. */
  response: FetchResponse;
  /** Saved under this ID (a 200), else undefined (a 404: a Failed event). */
  id: number | undefined;
  /** What the crawl state records of a saved page. */
  saved: SavedPage | undefined;
  /** Set when the page is scanned (saved, below maxDepth). */
  scan?: ScanData;
}

/** A scanned page's links at each stage. */
export interface ScanData {
  found: ExtractedLinks;
  links: PageLink[];
  /** Per link: in scope (a URL, not external). */
  inScope: boolean[];
  /** Per link in scope: seen before, as the classifier asked the frontier. */
  seen: boolean[];
  /** Per link: what the classifier said. */
  actions: Array<LinkAction | 'invalid'>;
  /** The links queued (followed), as the scan hands them to the frontier. */
  queue: ClaimEntry[];
  /** For each queued link: whether the frontier found it new. */
  added: boolean[];
}

/** What the crawl is built from, as tse-run.ts builds it for `./crawler SEED DIR 6`. */
export interface CrawlParts {
  seed: HttpUrl;
  scope: CrawlScope;
  policy: PagePolicy;
  robots: RobotsGate;
  extractor: HtmlLinkExtractor;
}

export function crawlParts(site: Site): CrawlParts {
  const seed = parseHttpUrl(site.seedUrl);
  const scope = crawlScope({ seeds: [seed] });
  // run-parts.ts: the program's resolution, then --max-path-segments.
  const resolve = (href: string, base: HttpUrl): HttpUrl => checkPathDepth(resolveHttpUrl(href, base, DEFAULT_MAX_URL_LENGTH), DEFAULT_MAX_PATH_SEGMENTS);
  const policy = tsePolicy({ scope: scope.inScope, maxRetryAfterMs: 600_000, retries: 2 }, resolve);
  const robots = new RobotsGate({ politeness: new Politeness({ delayMs: 0 }), enabled: true });
  const text = readFileSync(join(site.root, 'robots.txt'));
  robots.learn(seed.origin, rulesFromAnswer({ status: 200, body: text }, { userAgent: CRAWLER_USER_AGENT, onFailure: CRAWLER_FAILURE_POLICY, maxCrawlDelay: DEFAULT_MAX_CRAWL_DELAY, maxBytes: DEFAULT_MAX_ROBOTS_BYTES }));
  return { seed, scope, policy, robots, extractor: new HtmlLinkExtractor() };
}

/** Parses a response as the client does (connection.ts, then client.ts's fields). */
export function parseAnswer(raw: Buffer, url: HttpUrl): FetchResponse {
  const parser = new ResponseParser({ limits: DEFAULT_CLIENT_OPTIONS.limits, wantsBody: tseWantsBody });
  parser.feed(raw);
  if (!parser.done) throw new Error(`response for ${url.key} not complete`);
  const out = parser.response as ParsedResponse as FetchResponse;
  out.url = url;
  out.reused = true;
  out.wireBodyBytes = out.body.length;
  return out;
}

/**
 * The crawl's requests in order: a breadth-first walk from the seed to
 * `maxDepth`, each URL answered as nginx answers it (the file, query
 * ignored; 404 when there is none), links classified against the seen set as
 * it stands when the page is scanned, and queued in document order.
 */
export function crawlSequence(site: Site, parts: CrawlParts): Step[] {
  const { seed, policy, robots, extractor } = parts;
  const bodies = new Map<string, Buffer>();
  for (const path of site.pagePaths) bodies.set(path, readFileSync(join(site.root, path)));
  const missing = Buffer.from(NOT_FOUND_BODY, 'latin1');
  const seen = new Set<string>([seed.key]);
  const classifier = new LinkClassifier({ inScope: (u) => policy.inScope(u), robots, isSeen: (key) => seen.has(key) });
  const queue: FrontierEntry[] = [{ key: seed.key, url: seed.href, depth: 0 }];
  const steps: Step[] = [];
  let lastId = 0;
  for (let q = 0; q < queue.length; q++) {
    const entry = queue[q] as FrontierEntry;
    const url = policy.resolveLink(entry.url, seed);
    const file = bodies.get(url.path);
    const status = file === undefined ? 404 : 200;
    const body = file ?? missing;
    const raw = nginxResponse(status, body);
    const response = parseAnswer(raw, url);
    const keep = policy.verdict({ entry, url, depth: entry.depth, response }).keep;
    const id = keep ? ++lastId : undefined;
    const step: Step = { entry, url, raw, status, body, response, id, saved: keep ? savedPage(url, response, undefined, undefined) : undefined };
    steps.push(step);
    if (!keep || entry.depth >= site.maxDepth) continue;
    const found = extractor.extract(response.body);
    const links = [...pageLinks(found, url, policy.resolveLink)];
    const scan: ScanData = { found, links, inScope: [], seen: [], actions: [], queue: [], added: [] };
    for (const link of links) {
      const u = link.url;
      const inside = u !== undefined && policy.inScope(u);
      scan.inScope.push(inside);
      scan.seen.push(inside && seen.has((u as HttpUrl).key));
      const action = u === undefined ? 'invalid' : (classifier.now(u) as LinkAction);
      scan.actions.push(action);
      if (u !== undefined && action === 'follow') scan.queue.push({ key: u.key, url: u.href, depth: entry.depth + 1, origin: u.origin });
    }
    // The frontier adds them on completion, in order: a repeat on the page is a duplicate.
    for (const link of scan.queue) {
      const added = !seen.has(link.key);
      scan.added.push(added);
      if (added) {
        seen.add(link.key);
        queue.push({ key: link.key, url: link.url, depth: link.depth });
      }
    }
    step.scan = scan;
  }
  return steps;
}

/** Counts of a sequence: requests, pages saved, pages scanned, links found, links queued. */
export function sequenceCounts(steps: readonly Step[]): { requests: number; saved: number; scanned: number; links: number; queued: number; notFound: number } {
  let saved = 0;
  let scanned = 0;
  let links = 0;
  let queued = 0;
  for (const s of steps) {
    if (s.id !== undefined) saved++;
    if (s.scan !== undefined) {
      scanned++;
      links += s.scan.links.length;
      queued += s.scan.queue.length;
    }
  }
  return { requests: steps.length, saved, scanned, links, queued, notFound: steps.length - saved };
}
