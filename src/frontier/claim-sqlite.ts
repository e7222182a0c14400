/**
 * The shared frontier in one SQLite file: worker processes on one machine
 * run one crawl through it (`crawler --frontier sqlite:FILE`). SQLite lets
 * one writer in at a time, so every call is one `BEGIN IMMEDIATE`
 * transaction (other workers wait up to `busyTimeoutMs`), and that alone
 * makes a claim exclusive; the rules are those of the PostgreSQL store.
 * Time is the machine's wall clock (ms), which every worker on it shares.
 *
 * As there, each host row keeps `min_depth`, the least depth of its waiting
 * URLs (NULL when none wait), here exact (one writer at a time), and a claim
 * finds the next host through the index `hosts_turn` on (min_depth, when its
 * turn comes, id): the first ready host at the shallowest depth, in
 * O(log hosts) a depth, not a look at every host.
 */
import type Database from 'better-sqlite3';
import { openDatabase } from './sqlite-open.js';
import { retryWhileBusy } from './sqlite-busy.js';
import { INDEXES, prepareStatements, SCHEMA, SCHEMA_VERSION } from './claim-sqlite-sql.js';
import { CrawlerError } from '../errors.js';
import { configMismatch, moreSeedKeys, seedEntries, storedConfig } from './claim-config.js';
import {
  budget,
  clampWait,
  counts,
  holdUntil,
  POLL_WAIT_MS,
  isRetry,
  lostLease,
  markAdded,
  robotsUrlOf,
  type Claim,
  type ClaimCrawlConfig,
  type ClaimEntry,
  type ClaimOptions,
  type ClaimResult,
  type ClaimStore,
  type RobotsResult,
  type TurnResult,
  type Completion,
  type CompletionResult,
} from './claim-store.js';

interface Candidate {
  hid: number;
  origin: string;
  robots_state: number;
  robots_status: number | null;
  robots_body: string | null;
  delay_ms: number;
  streak: number;
  refusal: string | null;
}

interface Waiting {
  qid: number;
  key: string;
  url: string;
  depth: number;
  hops: number;
  attempts: number;
}

export interface SqliteClaimStoreOptions {
  /** How long a call waits for another worker's transaction, ms (default 10,000). */
  busyTimeoutMs?: number;
  /** The clock shared by the workers (default: Date.now). */
  now?: () => number;
}

export class SqliteClaimStore implements ClaimStore {
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly path: string;
  private readonly s: Record<string, Database.Statement>;
  private readonly hostIds = new Map<string, number>();

  constructor(path: string, options: SqliteClaimStoreOptions = {}) {
    this.path = path;
    this.now = options.now ?? Date.now;
    const busyTimeoutMs = options.busyTimeoutMs ?? 10_000;
    try {
      this.db = openDatabase(path, { timeout: busyTimeoutMs });
      const db = this.db;
      // Workers open the file together: a lock SQLite's busy handler cannot wait for is waited for here.
      retryWhileBusy(() => {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        // One transaction that takes the write lock first: no statement of it upgrades a read to a write.
        db.transaction(() => db.exec(SCHEMA)).immediate();
      }, busyTimeoutMs);
    } catch (err) {
      throw new CrawlerError('ERR_STATE', `cannot open the frontier ${path}: ${(err as Error).message}`, { cause: err });
    }
    // Before the statements are prepared: another version's tables may lack their columns.
    const version = this.db.prepare('SELECT version FROM crawl WHERE id = 1').pluck().get() as number | undefined;
    if (version !== undefined && version !== SCHEMA_VERSION) {
      this.db.close();
      throw new CrawlerError('ERR_STATE', `frontier ${path} holds a crawl of another version (${version}); use a new file`);
    }
    retryWhileBusy(() => this.db.transaction(() => this.db.exec(INDEXES)).immediate(), busyTimeoutMs);
    this.s = prepareStatements(this.db);
  }

  /** Runs `step` as one BEGIN IMMEDIATE transaction; a database failure becomes one clear ERR_STATE. */
  private tx<T>(step: () => T): T {
    try {
      return this.db.transaction(step).immediate();
    } catch (err) {
      if (err instanceof CrawlerError) throw err;
      throw new CrawlerError('ERR_STATE', `frontier ${this.path}: ${(err as Error).message}`, { cause: err });
    }
  }

  async open(config: ClaimCrawlConfig): Promise<{ created: boolean }> {
    return this.tx(() => {
      const row = this.stmt('crawl').get() as { version: number; seed_key: string; more_seeds: string; scope: string; max_depth: number; delay_ms: number; robots: number; max_pages: number | null } | undefined;
      if (row !== undefined) {
        if (row.version !== SCHEMA_VERSION) throw new CrawlerError('ERR_STATE', `frontier ${this.path} holds a crawl of another version (${row.version}); use a new file`);
        const existing = storedConfig(config, { seedKey: row.seed_key, moreSeeds: row.more_seeds, scope: row.scope, maxDepth: row.max_depth, delayMs: row.delay_ms, robots: row.robots === 1, maxPages: row.max_pages });
        const diff = configMismatch(existing, config);
        if (diff !== undefined) throw new CrawlerError('ERR_STATE', `frontier ${this.path} holds another crawl: ${diff}`);
        return { created: false };
      }
      this.stmt('create').run(SCHEMA_VERSION, config.seed.key, moreSeedKeys(config), config.scope ?? '', config.maxDepth, config.delayMs, config.robots ? 1 : 0, config.maxPages ?? null);
      this.addUnlocked(seedEntries(config));
      return { created: true };
    });
  }

  private stmt(name: string): Database.Statement {
    return this.s[name] as Database.Statement;
  }

  private addUnlocked(entries: readonly ClaimEntry[]): boolean[] {
    const inserted = new Set<string>();
    for (const e of entries) {
      if (this.stmt('seen').run(e.key).changes === 0) continue;
      inserted.add(e.key);
      // Host rows are never deleted, so an origin's id, once read, stays true for every worker.
      const id = this.ensureHost(e.origin);
      this.stmt('queue').run(id, e.key, e.url, e.depth, e.hops ?? 0);
      this.stmt('lower').run({ id, depth: e.depth });
    }
    return markAdded(entries, inserted);
  }

  /** The host row of `origin`, made when new (with the crawl's delay; robots.txt unknown when the crawl obeys it). */
  private ensureHost(origin: string): number {
    let hostId = this.hostIds.get(origin);
    if (hostId === undefined) {
      const crawl = this.stmt('crawl').get() as { robots: number; delay_ms: number };
      this.stmt('host').run(origin, crawl.robots === 1 ? 0 : 2, crawl.delay_ms);
      hostId = this.stmt('hostId').get(origin) as number;
      this.hostIds.set(origin, hostId);
    }
    return hostId;
  }

  async robotsFor(origin: string, depth: number, options: ClaimOptions): Promise<RobotsResult> {
    return this.tx((): RobotsResult => {
      const now = this.now();
      this.ensureHost(origin);
      const h = this.stmt('hostRow').get(origin) as {
        id: number; robots_state: number; robots_status: number | null; robots_body: string | null; delay_ms: number;
        next_fetch_at: number; reserved_until: number; streak: number; refusal: string | null;
      };
      if (h.robots_state === 2) return { answer: { status: h.robots_status ?? 0, body: h.robots_body ?? '' } };
      if (h.reserved_until >= now) return { waitMs: POLL_WAIT_MS };
      if (h.next_fetch_at > now) return { waitMs: clampWait(h.next_fetch_at - now) };
      const token = this.stmt('token').get() as number;
      this.stmt('robotsClaim').run(token, holdUntil(now, options.leaseMs, h.delay_ms), h.id);
      const url = robotsUrlOf(origin);
      return { claim: { kind: 'robots', id: h.id, token, origin, key: url, url, depth, hops: 0, delayMs: h.delay_ms, robots: undefined, clock: now, attempts: 0, streak: h.streak, refusal: h.refusal ?? undefined } };
    });
  }

  async turn(origin: string, options: ClaimOptions): Promise<TurnResult> {
    return this.tx((): TurnResult => {
      const now = this.now();
      this.ensureHost(origin);
      const h = this.stmt('hostRow').get(origin) as {
        id: number; robots_status: number | null; robots_body: string | null; delay_ms: number;
        next_fetch_at: number; reserved_until: number; streak: number; refusal: string | null;
      };
      if (h.reserved_until >= now) return { waitMs: POLL_WAIT_MS };
      if (h.next_fetch_at > now) return { waitMs: clampWait(h.next_fetch_at - now) };
      const token = this.stmt('token').get() as number;
      // As a page claim: a host with no interval is not held.
      if (h.delay_ms > 0) this.stmt('reserve').run(token, holdUntil(now, options.leaseMs, h.delay_ms), h.id);
      const url = robotsUrlOf(origin);
      const robots = h.robots_status === null ? undefined : { status: h.robots_status, body: h.robots_body ?? '' };
      return { claim: { kind: 'turn', id: h.id, token, origin, key: url, url, depth: 0, hops: 0, delayMs: h.delay_ms, robots, clock: now, attempts: 0, streak: h.streak, refusal: h.refusal ?? undefined } };
    });
  }

  async add(entries: readonly ClaimEntry[]): Promise<boolean[]> {
    if (entries.length === 0) return [];
    return this.tx(() => this.addUnlocked(entries));
  }

  async claim(options: ClaimOptions, published: readonly Claim[] = []): Promise<ClaimResult> {
    return this.tx((): ClaimResult => {
      for (const p of published) this.stmt('pageDone').run(p.id, p.token);
      const now = this.now();
      const cap = this.stmt('budget').get() as { max_pages: number | null; answered: number };
      if (budget(cap.max_pages, cap.answered, 0) === 'spent') return { done: true, spent: true };
      const floor = options.strictBfs ? ((this.stmt('floor').get() as number | null) ?? null) : null;
      let found = this.candidate(floor, now);
      if (found === undefined) {
        const reaped = this.stmt('reap').all(now) as Array<{ id: number; depth: number }>;
        for (const r of reaped) this.stmt('lower').run(r);
        if (reaped.length > 0) found = this.candidate(floor, now);
      }
      if (found === undefined) {
        const poll = { now, poll: POLL_WAIT_MS };
        const free = this.nextFree(floor, now) ?? (this.stmt('claimsOut').get(poll) as number | undefined);
        return free === undefined ? { done: true } : { waitMs: clampWait(free - now) };
      }
      const { host: c, url: w } = found;
      // Claims out may all count: none past the budget (one writer at a time: no two claims take its last page).
      if (c.robots_state === 2 && budget(cap.max_pages, cap.answered, this.stmt('pagesOut').get() as number) !== 'room') return { waitMs: POLL_WAIT_MS };
      const token = this.stmt('token').get() as number;
      const until = now + options.leaseMs;
      if (c.robots_state !== 2) {
        this.stmt('robotsClaim').run(token, holdUntil(now, options.leaseMs, c.delay_ms), c.hid);
        const url = robotsUrlOf(c.origin);
        return { claim: { kind: 'robots', id: c.hid, token, origin: c.origin, key: url, url, depth: w.depth, hops: 0, delayMs: c.delay_ms, robots: undefined, clock: now, attempts: 0, streak: c.streak, refusal: c.refusal ?? undefined } };
      }
      this.stmt('pageClaim').run(token, until, w.qid);
      this.stmt('minDepth').run({ id: c.hid });
      // A host with no interval is not held: any number of workers may fetch it at once.
      if (c.delay_ms > 0) this.stmt('reserve').run(token, holdUntil(now, options.leaseMs, c.delay_ms), c.hid);
      const robots = c.robots_status === null ? undefined : { status: c.robots_status, body: c.robots_body ?? '' };
      return { claim: { kind: 'page', id: w.qid, token, origin: c.origin, key: w.key, url: w.url, depth: w.depth, hops: w.hops, delayMs: c.delay_ms, robots, clock: now, attempts: w.attempts, streak: c.streak, refusal: c.refusal ?? undefined } };
    });
  }

  /** The depths to look at: those with waiting URLs, shallowest first (strict: only the floor). */
  private *depths(floor: number | null): Generator<number> {
    let depth = this.stmt('firstDepth').get() as number | null;
    while (depth !== null && (floor === null || depth <= floor)) {
      if (floor === null || depth === floor) yield depth;
      depth = this.stmt('nextDepth').get(depth) as number | null;
    }
  }

  /** The first ready host at the shallowest depth, and its first waiting URL there. */
  private candidate(floor: number | null, now: number): { host: Candidate; url: Waiting } | undefined {
    for (const depth of this.depths(floor)) {
      for (;;) {
        const host = this.stmt('candidate').get({ depth, now }) as Candidate | undefined;
        if (host === undefined) break;
        // min_depth is exact here (one writer at a time), so the host has a URL waiting at it; were it
        // not (a file written by a build with a fault), it is set right and the next host looked at.
        const url = this.stmt('waiting').get(host.hid, depth) as Waiting | undefined;
        if (url !== undefined) return { host, url };
        this.stmt('minDepth').run({ id: host.hid });
      }
    }
    return undefined;
  }

  /** When the next host with work is free (the first at each depth), or undefined when none has work. */
  private nextFree(floor: number | null, now: number): number | undefined {
    let free: number | undefined;
    for (const depth of this.depths(floor)) {
      const at = this.stmt('free').get({ depth, now, poll: POLL_WAIT_MS }) as number;
      free = free === undefined ? at : Math.min(free, at);
    }
    return free;
  }

  async complete(claim: Claim, c: Completion): Promise<CompletionResult> {
    return this.tx((): CompletionResult => {
      const started = c.startedAt ?? null;
      const timing = { started, interval: c.host?.intervalMs ?? null, paused: c.host?.pausedUntil ?? null, streak: c.host?.streak ?? null, refusal: c.host?.refusal ?? null };
      const lost = (): CompletionResult => {
        this.stmt('started').run({ origin: claim.origin, started, interval: timing.interval });
        return lostLease(c);
      };
      let added: boolean[] = [];
      let documentId: number | undefined;
      if (claim.kind === 'turn') return lost(); // ended by release, never completed
      if (claim.kind === 'page') {
        if (isRetry(c)) {
          const back = this.stmt('pageRetry').get(claim.id, claim.token) as { id: number; depth: number } | undefined;
          if (back === undefined) return lost();
          this.stmt('lower').run(back);
        } else if (c.saved) {
          const row = this.stmt('pageSaved').get(claim.id, claim.token) as { doc: number | null } | undefined;
          if (row === undefined) return lost();
          documentId = row.doc ?? (this.stmt('doc').get() as number);
          if (row.doc === null) this.stmt('pageDoc').run(documentId, claim.id);
        } else if (this.stmt('pageDone').run(claim.id, claim.token).changes === 0) {
          return lost();
        }
        if (counts(claim, c)) this.stmt('answered').run();
        added = isRetry(c) ? c.links.map(() => false) : this.addUnlocked(c.links);
        this.stmt('hostDone').run({ ...timing, token: claim.token, origin: claim.origin });
      } else {
        const r = c.robots ?? { answer: { status: 0, body: '' }, delayMs: claim.delayMs };
        if (this.stmt('robotsDone').run({ status: r.answer.status, body: r.answer.body, delay: r.delayMs, ...timing, origin: claim.origin, token: claim.token }).changes === 0) return lost();
      }
      return { ok: true, documentId, added };
    });
  }

  async published(claims: readonly Claim[]): Promise<void> {
    if (claims.length === 0) return;
    this.tx(() => {
      for (const claim of claims) this.stmt('pageDone').run(claim.id, claim.token);
    });
  }

  async release(claim: Claim, startedAt?: number): Promise<void> {
    this.tx(() => {
      if (claim.kind === 'page') {
        const back = this.stmt('pageBack').get(claim.id, claim.token) as { id: number; depth: number } | undefined;
        if (back !== undefined) this.stmt('lower').run(back);
      } else if (claim.kind === 'robots') this.stmt('robotsBack').run(claim.origin, claim.token);
      this.stmt('started').run({ origin: claim.origin, started: startedAt ?? null, interval: null });
      this.stmt('unreserve').run(claim.origin, claim.token);
    });
  }

  async lastDocumentId(): Promise<number> {
    return (this.stmt('lastDoc').get() as number | undefined) ?? 0;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
