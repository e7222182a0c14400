/**
 * The runners of the scheduler scenario table (spec decision "One crawl,
 * whatever runs it"; style.md, "The seam is the visit"): one site crawled,
 * in process, by the private crawl (Crawl, MemoryFrontier), by one shared
 * worker on each claim store (memory, SQLite, PostgreSQL) and by two workers
 * on one PostgreSQL database at once. Every run is built the way the program
 * builds it (src/programs/tse-run.ts, tse-crawl.ts, tse-worker.ts): the
 * crawler's page policy (tsePolicy), the robots.txt fetcher with its redirect
 * rule (robotsRedirectRule) watched by the seed PANIC, and the program's own
 * consumer of events (tseEventLog) writing a CS50 log and stderr notes into
 * a recording io. A run gives what a user and the servers see: the pages
 * saved, the events, the log, the notes, the requests each server got.
 *
 * What is left out of the events is not the visit's: wire exchanges and
 * pacing (`exchange`, `host`), and a worker's note that it fetched a
 * robots.txt for the store (`robots-txt`: its stderr note is compared).
 */
import { join } from 'node:path';
import { Crawl } from '../../src/engine/crawl.js';
import type { CrawlEvent } from '../../src/engine/events.js';
import { PoliteFetcher } from '../../src/engine/polite-fetch.js';
import { Worker, type WorkerOptions } from '../../src/engine/worker.js';
import { HtmlLinkExtractor } from '../../src/extract/html.js';
import type { ClaimStore } from '../../src/frontier/claim-store.js';
import { MemoryClaimStore } from '../../src/frontier/claim-memory.js';
import { MemoryFrontier } from '../../src/frontier/private-memory.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { HttpClient, type HttpClientOptions } from '../../src/http/client.js';
import type { Connector } from '../../src/http/connection.js';
import { HostResolver } from '../../src/http/host-resolver.js';
import { socketConnector } from '../../src/http/socket-connector.js';
import { CrawlLog } from '../../src/output/cs50-log.js';
import { tseEventLog } from '../../src/programs/tse-log.js';
import { SeedPanic } from '../../src/programs/seed-panic.js';
import { tsePolicy } from '../../src/programs/tse.js';
import { robotsRedirectRule } from '../../src/programs/tse-robots-redirect.js';
import { CRAWLER_FAILURE_POLICY, decodeRobotsBody, DEFAULT_MAX_CRAWL_DELAY, DEFAULT_MAX_ROBOTS_BYTES, RobotsPolicy, rulesFromAnswer } from '../../src/robots/policy.js';
import type { PageSink } from '../../src/sink/page-sink.js';
import { parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../../src/url/http-url.js';
import { crawlScope } from '../../src/url/scope.js';
import { recordingIo } from './fakes.js';
import { freshDatabase } from './postgres.js';
import { line } from './scenario-lines.js';
import type { ScenarioSites } from './scenario-sites.js';

export const AGENT = 'scenario-test';

/** What varies between scenarios in how the crawl is run (the command line's flags). */
export interface RunFlags {
  maxDepth: number;
  /** --retries (default 0). */
  retries?: number;
  /** --sitemaps. */
  sitemaps?: boolean;
  /** --max-redirects (default 5). */
  maxRedirects?: number;
  /** --max-pages. */
  maxPages?: number;
  /** --concurrency: the private crawl's window, each worker's lanes (default 1). */
  concurrency?: number;
  /** --exclude REGEX, each. */
  exclude?: string[];
  /** The HTTP client's options (--max-body-bytes, --response-timeout, keep-alive). */
  client?: Partial<Omit<HttpClientOptions, 'userAgent' | 'connector'>>;
  /** Wraps the client's connector (the layer below the fetcher), given the run's sites; one per run, shared by its workers. */
  connector?: (base: Connector, sites: ScenarioSites) => Connector;
}

/** What one run gave, with the sites' origins replaced by their names. */
export interface Run {
  /** `#ID URL` of each page saved, in the order saved. */
  saved: string[];
  events: string[];
  /** The CS50 log's lines. */
  log: string[];
  /** The stderr notes, one a line. */
  notes: string[];
  /** `NAME METHOD PATH` of every request a server got. */
  requests: string[];
}

/** The runners: the private crawl, a worker on each store, two workers on one PostgreSQL database. */
export const RUNNERS = ['private', 'worker on memory', 'worker on SQLite', 'worker on PostgreSQL', 'two workers on PostgreSQL'] as const;
export type RunnerName = (typeof RUNNERS)[number];

/** Host names that resolve (to loopback) in the runs; any other name fails as not found, without asking DNS. */
export const RESOLVING = new Set(['localhost']);

/** The parts one process of a run is built from (tse-run.ts's runWith, in small). */
function parts(flags: RunFlags, sites: ScenarioSites, connector: Connector, shared: boolean) {
  const recording = recordingIo();
  const client = new HttpClient({ userAgent: AGENT, ...flags.client, connector });
  const politeness = new Politeness({ delayMs: 0 });
  const fetcher = new PoliteFetcher(client, politeness, undefined, { backOff: false });
  const resolve = (href: string, base: HttpUrl): HttpUrl => resolveHttpUrl(href, base);
  const scope = crawlScope({ internal: sites.scope, exclude: flags.exclude ?? [], seeds: [sites.seed] });
  const policy = tsePolicy({ scope: scope.inScope, maxRetryAfterMs: 120_000, retries: flags.retries ?? 0 }, resolve);
  const seedPanic = new SeedPanic(sites.seed);
  const mayFollow = robotsRedirectRule(scope.inScope, recording.io.stderr);
  const robotsFetch = seedPanic.watching(fetcher.robotsFetcher((h) => parseHttpUrl(h), resolve, flags.maxRedirects ?? 5, mayFollow));
  const log = new CrawlLog(recording.io, 'cs50');
  return { recording, client, politeness, fetcher, policy, seedPanic, robotsFetch, log, scopeKey: scope.key };
}

/** The connector of a run: names resolve only when RESOLVING has them (no DNS is asked), then the scenario's wrapper. */
function runConnector(flags: RunFlags, sites: ScenarioSites): Connector {
  const resolver = new HostResolver({
    backend: async (name) => {
      if (RESOLVING.has(name)) return { addresses: [{ address: '127.0.0.1', family: 4 }] };
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    },
  });
  const base = socketConnector(resolver);
  const connector = flags.connector === undefined ? base : flags.connector(base, sites);
  // Every connection asked for, as `C http://HOST:PORT`: a host never requested is never connected to.
  return (endpoint, timeoutMs) => {
    sites.connects.push(`C http://${endpoint.hostname}:${endpoint.port}`);
    return connector(endpoint, timeoutMs);
  };
}

/** A sink that keeps the pages it is given (ID and URL), in memory. */
function recordingSink(saved: string[]): PageSink {
  return { stage: (p) => ({ publish: (id) => void saved.push(`#${id} ${p.url.key}`), discard: () => undefined }) };
}

/** The log's lines and the notes' lines of a recording io. */
function output(r: ReturnType<typeof recordingIo>): { log: string[]; notes: string[] } {
  const log = r.out().split('\n').filter((l) => l !== '');
  const notes = r.stderr.join('').split('\n').filter((l) => l !== '');
  return { log, notes };
}

/** The private crawl (tse-crawl.ts, with a memory frontier). */
async function privateRun(flags: RunFlags, sites: ScenarioSites, out: Run): Promise<void> {
  const p = parts(flags, sites, runConnector(flags, sites), false);
  let saved = 0;
  const toLog = tseEventLog({ io: p.recording.io, log: p.log, seedPanic: p.seedPanic, nothingSaved: () => saved === 0 });
  const robots = new RobotsPolicy({ userAgent: AGENT, onFailure: CRAWLER_FAILURE_POLICY, fetch: p.robotsFetch });
  try {
    await new Crawl({
      seed: sites.seed,
      seedDepth: 0,
      maxDepth: flags.maxDepth,
      maxRedirects: flags.maxRedirects ?? 5,
      maxPages: flags.maxPages,
      extractor: new HtmlLinkExtractor(),
      fetcher: p.fetcher,
      politeness: p.politeness,
      loadRobots: (origin) => robots.rulesFor(origin),
      frontier: new MemoryFrontier(),
      policy: p.policy,
      sink: recordingSink(out.saved),
      concurrency: flags.concurrency ?? 1,
      fetchNext: true,
      sitemaps: flags.sitemaps === true ? { maxUrlLength: 2048 } : undefined,
      onEvent: (e) => {
        if (e.type === 'saved') saved++;
        record(out, e);
        toLog(e);
      },
    }).run();
  } finally {
    p.log.flush();
    p.client.close();
    const o = output(p.recording);
    out.log.push(...o.log);
    out.notes.push(...o.notes);
  }
}

/** One worker of a shared crawl (tse-worker.ts), on `store`. */
async function workerRun(flags: RunFlags, sites: ScenarioSites, store: ClaimStore, connector: Connector, out: Run): Promise<void> {
  const p = parts(flags, sites, connector, true);
  const robotsOptions = { userAgent: AGENT, onFailure: CRAWLER_FAILURE_POLICY, maxBytes: DEFAULT_MAX_ROBOTS_BYTES, maxCrawlDelay: DEFAULT_MAX_CRAWL_DELAY };
  const toLog = tseEventLog({ io: p.recording.io, log: p.log, seedPanic: p.seedPanic, nothingSaved: () => true });
  const seed = sites.seed;
  const options: WorkerOptions = {
    store,
    seed,
    config: { seed: { key: seed.key, url: seed.href, depth: 0, origin: seed.origin }, scope: p.scopeKey, maxDepth: flags.maxDepth, delayMs: 0, robots: true, ...(flags.maxPages === undefined ? {} : { maxPages: flags.maxPages }) },
    claim: { leaseMs: 30_000, strictBfs: true },
    lanes: flags.concurrency ?? 1,
    extractor: new HtmlLinkExtractor(),
    fetcher: p.fetcher,
    politeness: p.politeness,
    sink: recordingSink(out.saved),
    policy: p.policy,
    robots: {
      fetch: p.robotsFetch,
      rules: (a) => rulesFromAnswer(a.status === 0 ? { error: undefined } : { status: a.status, body: Buffer.from(a.body, 'utf8') }, robotsOptions),
      stored: (status, body) => ({ status, body: status >= 200 && status < 300 ? decodeRobotsBody(body, DEFAULT_MAX_ROBOTS_BYTES) : '' }),
    },
    onEvent: (e) => {
      record(out, e);
      toLog(e);
    },
    sitemaps: flags.sitemaps === true ? { maxUrlLength: 2048 } : undefined,
    // --max-redirects, as tse-worker.ts passes it: today the worker reads it for sitemaps only.
    maxRedirects: flags.maxRedirects ?? 5,
  };
  try {
    await new Worker(options).run();
  } finally {
    p.log.flush();
    p.client.close();
    const o = output(p.recording);
    out.log.push(...o.log);
    out.notes.push(...o.notes);
  }
}

function record(out: Run, e: CrawlEvent): void {
  const l = line(e);
  if (l !== undefined) out.events.push(l);
}

/** Runs the crawl of `sites` with `runner`; `temp` makes a directory for a SQLite file. */
export async function runWith(runner: RunnerName, flags: RunFlags, sites: ScenarioSites, temp: () => string): Promise<Run> {
  const out: Run = { saved: [], events: [], log: [], notes: [], requests: [] };
  try {
    switch (runner) {
      case 'private':
        await privateRun(flags, sites, out);
        break;
      case 'worker on memory':
        await workerRun(flags, sites, new MemoryClaimStore(), runConnector(flags, sites), out);
        break;
      case 'worker on SQLite': {
        const { SqliteClaimStore } = await import('../../src/frontier/claim-sqlite.js');
        const store = new SqliteClaimStore(join(temp(), 'frontier.db'));
        try {
          await workerRun(flags, sites, store, runConnector(flags, sites), out);
        } finally {
          await store.close();
        }
        break;
      }
      case 'worker on PostgreSQL':
      case 'two workers on PostgreSQL': {
        const { PostgresClaimStore } = await import('../../src/frontier/claim-postgres.js');
        const db = await freshDatabase();
        const count = runner === 'worker on PostgreSQL' ? 1 : 2;
        const stores = Array.from({ length: count }, () => new PostgresClaimStore(db.url, { maxConnections: 2 }));
        // One connector for the run (a fault counted across workers), as for one process each otherwise.
        const connector = runConnector(flags, sites);
        try {
          // Started together, as two processes would be: one creates the crawl, the other joins it.
          await Promise.all(stores.map((store) => workerRun(flags, sites, store, connector, out)));
        } finally {
          await Promise.all(stores.map((s) => s.close()));
          await db.drop();
        }
        break;
      }
    }
  } finally {
    out.requests.push(...sites.requests());
  }
  const n = sites.names;
  return { saved: out.saved.map(n), events: out.events.map(n), log: out.log.map(n), notes: out.notes.map(n), requests: out.requests.map(n) };
}

