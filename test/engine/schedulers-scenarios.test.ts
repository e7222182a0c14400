/**
 * One scenario table, run through both schedulers (style.md, "The seam is
 * the visit"): each site is crawled by the private crawl (Crawl, the memory
 * frontier) and by one worker of a shared crawl (Worker, one lane, strict
 * breadth first, the memory claim store), with the crawler's own page policy
 * (tsePolicy), in process. Both must tell the same events in the same order:
 * responses (a failure after the head keeps its status), redirects, pages
 * saved and failed, robots.txt decisions, every link.
 *
 * The sites are laid out so that both orders of work coincide: a private
 * crawl follows a redirect at once, a worker queues its target at the same
 * depth, so a redirect here is the last URL of its depth; a retried page
 * waits behind the whole queue in one and behind its own depth in the
 * other, so it sits at the last depth. What is left out of the comparison is
 * what is not the visit's: wire exchanges and pacing (`exchange`, `host`),
 * and the worker's note that it fetched a robots.txt for the store (`robots-txt`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Crawl } from '../../src/engine/crawl.js';
import type { CrawlEvent } from '../../src/engine/events.js';
import { PoliteFetcher } from '../../src/engine/polite-fetch.js';
import { Worker } from '../../src/engine/worker.js';
import { HtmlLinkExtractor } from '../../src/extract/html.js';
import { MemoryClaimStore } from '../../src/frontier/claim-memory.js';
import { MemoryFrontier } from '../../src/frontier/memory-store.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { HttpClient } from '../../src/http/client.js';
import { tsePolicy } from '../../src/programs/tse.js';
import { CRAWLER_FAILURE_POLICY, DEFAULT_MAX_CRAWL_DELAY, DEFAULT_MAX_ROBOTS_BYTES, RobotsPolicy, rulesFromAnswer } from '../../src/robots/policy.js';
import type { PageSink } from '../../src/sink/page-sink.js';
import { parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../../src/url/http-url.js';
import { prefixesScope } from '../../src/url/scope.js';
import { startRaw, type RawServer } from '../helpers/raw-server.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';

const AGENT = 'scenario-test';
const MAX_DEPTH = 2;

interface Scenario {
  name: string;
  /** The site's routes (the main host). */
  routes: (other: string, raw: string) => Record<string, Route>;
  /** A second host's routes (in scope, for links across hosts). */
  otherRoutes?: Record<string, Route>;
  /** Tries after the first for a page pushed back on (default 0). */
  retries?: number;
  /** Read the seed host's sitemaps (--sitemaps). */
  sitemaps?: boolean;
  /** The events each run must tell (with the site's origins as H, O and R). */
  expect: string[];
}

const robotsTxt = (text: string): Route => ({ headers: { 'content-type': 'text/plain' }, body: text });
const html = (body: string, status = 200): Route => ({ status, headers: { 'content-type': 'text/html' }, body });

/** One event as a line, with the origins named H (the site), O (the other host) and R (the raw server). */
function line(e: CrawlEvent): string | undefined {
  switch (e.type) {
    case 'response':
      return `response ${e.depth} ${e.url.key} ${e.status}${e.error === undefined ? '' : ` ${e.error.code}`}`;
    case 'redirect':
      return `redirect ${e.depth} ${e.from.key} -> ${e.target?.key ?? `raw:${e.raw}`} ${e.action}`;
    case 'saved':
      return `saved ${e.depth} ${e.url.key} #${e.id}`;
    case 'scanning':
      return `scanning ${e.depth} ${e.url.key}`;
    case 'link':
      return `link ${e.depth} ${e.url?.key ?? `raw:${e.raw}`} ${e.action}`;
    case 'failed':
      return `failed ${e.depth} ${e.url} ${e.reason}`;
    case 'disallowed':
      return `disallowed ${e.depth} ${e.url}`;
    case 'lost':
      return `lost ${e.depth} ${e.url}`;
    case 'robots':
      return `robots ${e.origin} ${e.source} group=${e.group} rules=${e.rules}`;
    case 'match':
      return `match ${e.url.key}`;
    case 'sitemap':
      return `sitemap ${e.url?.key ?? '-'} ${e.outcome} found=${e.found} queued=${e.queued}`;
    default:
      return undefined; // exchange, host, robots-txt: not the visit's
  }
}

/** An event sink that keeps each event's line in `out.events`. */
function recordInto(out: Run): (e: CrawlEvent) => void {
  return (e) => {
    const l = line(e);
    if (l !== undefined) out.events.push(l);
  };
}

/** A sink that keeps the pages it is given (ID and URL), in memory. */
function recordingSink(saved: string[]): PageSink {
  return { stage: (p) => ({ publish: (id) => void saved.push(`#${id} ${p.url.key}`), discard: () => undefined }) };
}

interface Sites {
  main: SiteServer;
  other: SiteServer;
  raw: RawServer;
  names: (s: string) => string;
}

interface Run {
  events: string[];
  saved: string[];
}

function parts(retries: number, scopeOrigins: string[]) {
  const client = new HttpClient({ userAgent: AGENT });
  const politeness = new Politeness({ delayMs: 0 });
  const fetcher = new PoliteFetcher(client, politeness, undefined, { backOff: false });
  const resolve = (href: string, base: HttpUrl): HttpUrl => resolveHttpUrl(href, base);
  const policy = tsePolicy({ scope: prefixesScope(scopeOrigins), maxRetryAfterMs: 120_000, retries }, resolve);
  const robotsFetch = fetcher.robotsFetcher((h) => parseHttpUrl(h), resolve, 5);
  return { client, politeness, fetcher, policy, robotsFetch };
}

async function privateRun(seed: HttpUrl, retries: number, scope: string[], sitemaps: boolean): Promise<Run> {
  const p = parts(retries, scope);
  const out: Run = { events: [], saved: [] };
  const robots = new RobotsPolicy({ userAgent: AGENT, onFailure: CRAWLER_FAILURE_POLICY, fetch: p.robotsFetch });
  try {
    await new Crawl({
      seed,
      seedDepth: 0,
      maxDepth: MAX_DEPTH,
      maxRedirects: 5,
      maxPages: undefined,
      extractor: new HtmlLinkExtractor(),
      fetcher: p.fetcher,
      politeness: p.politeness,
      loadRobots: (origin) => robots.rulesFor(origin),
      frontier: new MemoryFrontier(),
      policy: p.policy,
      sink: recordingSink(out.saved),
      onEvent: recordInto(out),
      sitemaps: sitemaps ? { maxUrlLength: 2048 } : undefined,
    }).run();
  } finally {
    p.client.close();
  }
  return out;
}

async function sharedRun(seed: HttpUrl, retries: number, scope: string[], sitemaps: boolean): Promise<Run> {
  const p = parts(retries, scope);
  const out: Run = { events: [], saved: [] };
  const robotsOptions = { userAgent: AGENT, onFailure: CRAWLER_FAILURE_POLICY, maxBytes: DEFAULT_MAX_ROBOTS_BYTES, maxCrawlDelay: DEFAULT_MAX_CRAWL_DELAY };
  try {
    await new Worker({
      store: new MemoryClaimStore(),
      seed,
      config: { seed: { key: seed.key, url: seed.href, depth: 0, origin: seed.origin }, maxDepth: MAX_DEPTH, delayMs: 0, robots: true },
      claim: { leaseMs: 30_000, strictBfs: true },
      lanes: 1,
      maxPages: undefined,
      extractor: new HtmlLinkExtractor(),
      fetcher: p.fetcher,
      politeness: p.politeness,
      sink: recordingSink(out.saved),
      policy: p.policy,
      robots: {
        fetch: p.robotsFetch,
        rules: (a) => rulesFromAnswer(a.status === 0 ? { error: undefined } : { status: a.status, body: Buffer.from(a.body) }, robotsOptions),
        stored: (status, body) => ({ status, body: status >= 200 && status < 300 ? body.toString('utf8') : '' }),
      },
      onEvent: recordInto(out),
      sitemaps: sitemaps ? { maxUrlLength: 2048 } : undefined,
    }).run();
  } finally {
    p.client.close();
  }
  return out;
}

/** A raw server: `/cut` declares 1000 bytes of body and closes after 20 (a failure after the head); robots.txt is 404. */
function rawHandler(): Parameters<typeof startRaw>[0] {
  return async (conn) => {
    const head = await conn.nextRequest();
    if (head?.startsWith('GET /cut ') === true) conn.socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\n<html><body>cut shor');
    else conn.socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  };
}

const SCENARIOS: Scenario[] = [
  {
    name: 'a small site: robots.txt, an external link, a non-page link, duplicates, a 404, a redirect last at its depth',
    routes: () => ({
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\n'),
      '/': html(page('home', ['/a.html', 'http://elsewhere.example/x.html', '/private/p.html', 'mailto:me@example.com', '/img.png', '/a.html#again', '/missing.html', '/moved'])),
      '/a.html': html(page('a', ['/', '/c.html'])),
      '/missing.html': html('gone', 404),
      '/moved': { status: 301, headers: { location: '/b.html' } },
      '/b.html': html(page('b', ['/c.html', '/a.html'])),
      '/c.html': html(page('c', ['/d.html'])),
    }),
    expect: [
      'robots H file group=* rules=1',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 http://elsewhere.example/x.html external',
      'link 0 H/private/p.html robots',
      'link 0 raw:mailto:me@example.com invalid',
      'link 0 H/img.png external',
      'link 0 H/a.html duplicate',
      'link 0 H/missing.html follow',
      'link 0 H/moved follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'scanning 1 H/a.html',
      'link 1 H/ duplicate',
      'link 1 H/c.html follow',
      'response 1 H/missing.html 404',
      'failed 1 H/missing.html (HTTP 404)',
      'response 1 H/moved 301',
      'redirect 1 H/moved -> H/b.html follow',
      'response 1 H/b.html 200',
      'saved 1 H/b.html #3',
      'scanning 1 H/b.html',
      'link 1 H/c.html duplicate',
      'link 1 H/a.html duplicate',
      'response 2 H/c.html 200',
      'saved 2 H/c.html #4',
    ],
  },
  {
    name: 'a failure after the head keeps its status; a host of the crawl first met in a link has its robots.txt learnt then',
    routes: (other, raw) => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', [`${raw}/cut`, `${other}/o.html`, `${other}/private/no.html`])),
    }),
    otherRoutes: {
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\n'),
      '/o.html': html(page('o', ['/'])),
    },
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'robots R allow-all group= rules=0',
      'robots O file group=* rules=1',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 R/cut follow',
      'link 0 O/o.html follow',
      'link 0 O/private/no.html robots',
      'response 1 R/cut 200 ERR_PREMATURE_CLOSE',
      'failed 1 R/cut (connection closed after the headers had arrived, before the end of the body (20 of 1000 bytes))',
      'response 1 O/o.html 200',
      'saved 1 O/o.html #2',
      'scanning 1 O/o.html',
      'link 1 O/ follow',
      'response 2 O/ 404',
      'failed 2 O/ (HTTP 404)',
    ],
  },
  {
    name: 'a seed that redirects; a page pushed back (503) is tried again later and saved',
    retries: 1,
    routes: () => {
      let busy = 0;
      return {
        '/robots.txt': { status: 404 },
        '/': { status: 302, headers: { location: '/home.html' } },
        '/home.html': html(page('home', ['/a.html'])),
        '/a.html': html(page('a', ['/busy.html'])),
        '/busy.html': { handle: (_req, res) => (busy++ === 0 ? res.writeHead(503, { 'content-length': '0' }).end() : res.writeHead(200, { 'content-type': 'text/html' }).end(page('busy'))) },
      };
    },
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 302',
      'redirect 0 H/ -> H/home.html follow',
      'response 0 H/home.html 200',
      'saved 0 H/home.html #1',
      'scanning 0 H/home.html',
      'link 0 H/a.html follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'scanning 1 H/a.html',
      'link 1 H/busy.html follow',
      'response 2 H/busy.html 503',
      'response 2 H/busy.html 200',
      'saved 2 H/busy.html #3',
    ],
  },
  {
    name: 'sitemaps (--sitemaps): read once the seed\'s page is in, their URLs queued after its links, robots.txt applied',
    sitemaps: true,
    routes: () => ({
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\nSitemap: /sm.xml\n'),
      '/': html(page('home', ['/a.html'])),
      '/sm.xml': {
        handle: (req, res) => {
          const o = `http://${req.headers.host as string}`;
          res.writeHead(200, { 'content-type': 'application/xml' }).end(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/a.html</loc></url><url><loc>${o}/b.html</loc></url><url><loc>${o}/private/x.html</loc></url><url><loc>http://elsewhere.example/o.html</loc></url></urlset>`);
        },
      },
      '/a.html': html(page('a')),
      '/b.html': html(page('b')),
    }),
    expect: [
      'robots H file group=* rules=1',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'sitemap H/sm.xml read found=4 queued=1',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'scanning 1 H/a.html',
      'response 1 H/b.html 200',
      'saved 1 H/b.html #3',
      'scanning 1 H/b.html',
    ],
  },
  {
    name: 'a seed robots.txt disallows: told once, nothing requested but robots.txt',
    routes: () => ({
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /\n'),
      '/': html(page('home', ['/a.html'])),
    }),
    expect: ['robots H file group=* rules=1', 'disallowed 0 H/'],
  },
];

async function sites(scenario: Scenario): Promise<Sites> {
  const raw = await startRaw(rawHandler());
  const other = await startSite(scenario.otherRoutes ?? {});
  const rawOrigin = `http://127.0.0.1:${raw.port}`;
  const main = await startSite(scenario.routes(other.origin, rawOrigin));
  const names = (s: string): string => s.replaceAll(main.origin, 'H').replaceAll(other.origin, 'O').replaceAll(rawOrigin, 'R');
  return { main, other, raw, names };
}

for (const scenario of SCENARIOS) {
  test(`both schedulers tell the same events: ${scenario.name}`, async (t) => {
    const runs: Record<string, Run> = {};
    for (const [name, run] of [
      ['private', privateRun],
      ['shared', sharedRun],
    ] as const) {
      // A fresh site for each run: a server's state (the 503 once) starts again.
      const s = await sites(scenario);
      t.after(() => Promise.all([s.main.close(), s.other.close(), s.raw.close()]));
      const seed = parseHttpUrl(`${s.main.origin}/`);
      const r = await run(seed, scenario.retries ?? 0, [s.main.origin, s.other.origin, `http://127.0.0.1:${s.raw.port}`], scenario.sitemaps === true);
      runs[name] = { events: r.events.map(s.names), saved: r.saved.map(s.names) };
    }
    assert.deepEqual(runs['private']?.events, scenario.expect, 'the private crawl');
    assert.deepEqual(runs['shared']?.events, scenario.expect, 'the shared worker');
    assert.deepEqual(runs['shared']?.saved, runs['private']?.saved, 'the same pages under the same IDs');
  });
}
