/**
 * The shared frontier in memory: the reference implementation of the
 * ClaimStore contract, for tests and for workers that share one process.
 * Time comes from an injected wall clock (ms).
 */
import { CrawlerError } from '../errors.js';
import { configMismatch, seedEntries } from './claim-config.js';
import {
  budget,
  clampWait,
  counts,
  holdUntil,
  POLL_WAIT_MS,
  lostLease,
  isRetry,
  markAdded,
  nextFetchAfter,
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
  type StoredRobots,
} from './claim-store.js';

const PENDING = 0;
const CLAIMED = 1;
const DONE = 2;

interface Row {
  id: number;
  key: string;
  url: string;
  depth: number;
  /** Redirect hops taken to reach it (ClaimEntry.hops). */
  hops: number;
  host: Host;
  state: number;
  token: number;
  leaseUntil: number;
  /** The document ID its saved completion took (kept when the lease runs out before `published`). */
  doc: number | undefined;
  /** Tries given up for a retry. */
  attempts: number;
  /** The token of the claim whose saved completion is in (out until published, no longer counted as out for the budget). */
  savedBy: number;
}

interface Host {
  id: number;
  origin: string;
  /** 0 not fetched, 1 claimed, 2 known. */
  robotsState: number;
  robots: StoredRobots | undefined;
  delayMs: number;
  nextFetchAt: number;
  /** Consecutive push-backs (back-off). */
  streak: number;
  refusal: string | undefined;
  /** The token of the claim holding the host, and until when. */
  reservedBy: number;
  reservedUntil: number;
  pending: Row[];
}

export class MemoryClaimStore implements ClaimStore {
  private config: ClaimCrawlConfig | undefined;
  private readonly seen = new Set<string>();
  private readonly hosts = new Map<string, Host>();
  private readonly claimed = new Map<number, Row>();
  private lastDoc = 0;
  /** Completions answered (the page budget's count). */
  private answered = 0;
  private lastToken = 0;
  private lastRow = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async open(config: ClaimCrawlConfig): Promise<{ created: boolean }> {
    if (this.config !== undefined) {
      const diff = configMismatch(this.config, config);
      if (diff !== undefined) throw new CrawlerError('ERR_STATE', `the shared frontier holds another crawl: ${diff}`);
      return { created: false };
    }
    this.config = { ...config };
    this.addSync(seedEntries(config));
    return { created: true };
  }

  async add(entries: readonly ClaimEntry[]): Promise<boolean[]> {
    return this.addSync(entries);
  }

  private hostOf(origin: string): Host {
    const cfg = this.requireOpen();
    let host = this.hosts.get(origin);
    if (host === undefined) {
      host = {
        id: this.hosts.size + 1,
        origin,
        robotsState: cfg.robots ? 0 : 2,
        robots: undefined,
        delayMs: cfg.delayMs,
        nextFetchAt: -Infinity,
        streak: 0,
        refusal: undefined,
        reservedBy: 0,
        reservedUntil: -Infinity,
        pending: [],
      };
      this.hosts.set(origin, host);
    }
    return host;
  }

  private addSync(entries: readonly ClaimEntry[]): boolean[] {
    const inserted = new Set<string>();
    for (const e of entries) {
      if (this.seen.has(e.key)) continue;
      this.seen.add(e.key);
      inserted.add(e.key);
      const host = this.hostOf(e.origin);
      host.pending.push({ id: ++this.lastRow, key: e.key, url: e.url, depth: e.depth, hops: e.hops ?? 0, host, state: PENDING, token: 0, leaseUntil: 0, doc: undefined, attempts: 0, savedBy: 0 });
    }
    return markAdded(entries, inserted);
  }

  async claim(options: ClaimOptions, published: readonly Claim[] = []): Promise<ClaimResult> {
    for (const p of published) this.publish(p);
    const now = this.now();
    this.reap(now);
    if (budget(this.requireOpen().maxPages, this.answered, 0) === 'spent') return { done: true, spent: true };
    const floor = options.strictBfs ? this.frontierDepth() : undefined;
    let best: { host: Host; row: Row } | undefined;
    let waitUntil = Infinity;
    for (const host of this.hosts.values()) {
      const row = shallowest(host.pending, floor);
      if (row === undefined) continue;
      if (host.reservedUntil >= now || host.nextFetchAt > now) {
        // A held host: poll (its holder claims again when done); else wait for its next fetch time.
        waitUntil = Math.min(waitUntil, host.reservedUntil >= now ? now + POLL_WAIT_MS : host.nextFetchAt);
        continue;
      }
      if (best === undefined || row.depth < best.row.depth || (row.depth === best.row.depth && (host.nextFetchAt < best.host.nextFetchAt || (host.nextFetchAt === best.host.nextFetchAt && host.id < best.host.id)))) {
        best = { host, row };
      }
    }
    if (best !== undefined) {
      const { host, row } = best;
      const token = ++this.lastToken;
      const leaseUntil = now + options.leaseMs;
      if (host.robotsState !== 2) {
        host.robotsState = 1;
        host.reservedBy = token;
        host.reservedUntil = holdUntil(now, options.leaseMs, host.delayMs);
        return { claim: { kind: 'robots', id: host.id, token, origin: host.origin, key: robotsUrlOf(host.origin), url: robotsUrlOf(host.origin), depth: row.depth, hops: 0, delayMs: host.delayMs, robots: undefined, clock: now, attempts: 0, streak: host.streak, refusal: host.refusal } };
      }
      // Claims out may all count: none past the budget (then only they can end it, or give room back).
      if (budget(this.requireOpen().maxPages, this.answered, this.pagesOut()) !== 'room') return { waitMs: POLL_WAIT_MS };
      host.pending.splice(host.pending.indexOf(row), 1);
      row.state = CLAIMED;
      row.token = token;
      row.leaseUntil = leaseUntil;
      this.claimed.set(row.id, row);
      // A host with no interval is not held: any number of workers may fetch it at once.
      if (host.delayMs > 0) {
        host.reservedBy = token;
        host.reservedUntil = holdUntil(now, options.leaseMs, host.delayMs);
      }
      return { claim: { kind: 'page', id: row.id, token, origin: host.origin, key: row.key, url: row.url, depth: row.depth, hops: row.hops, delayMs: host.delayMs, robots: host.robots, clock: now, attempts: row.attempts, streak: host.streak, refusal: host.refusal } };
    }
    if (waitUntil < Infinity) return { waitMs: clampWait(waitUntil - now) };
    // Claims out may add links: poll.
    if (this.claimed.size > 0) return { waitMs: POLL_WAIT_MS };
    return { done: true };
  }

  async robotsFor(origin: string, depth: number, options: ClaimOptions): Promise<RobotsResult> {
    const now = this.now();
    this.reap(now);
    const host = this.hostOf(origin);
    if (host.robotsState === 2) return { answer: host.robots ?? { status: 0, body: '' } };
    if (host.robotsState === 1 || host.reservedUntil >= now) return { waitMs: POLL_WAIT_MS };
    if (host.nextFetchAt > now) return { waitMs: clampWait(host.nextFetchAt - now) };
    const token = ++this.lastToken;
    host.robotsState = 1;
    host.reservedBy = token;
    host.reservedUntil = holdUntil(now, options.leaseMs, host.delayMs);
    const url = robotsUrlOf(origin);
    return { claim: { kind: 'robots', id: host.id, token, origin, key: url, url, depth, hops: 0, delayMs: host.delayMs, robots: undefined, clock: now, attempts: 0, streak: host.streak, refusal: host.refusal } };
  }

  async turn(origin: string, options: ClaimOptions): Promise<TurnResult> {
    const now = this.now();
    this.reap(now);
    const host = this.hostOf(origin);
    if (host.reservedUntil >= now) return { waitMs: POLL_WAIT_MS };
    if (host.nextFetchAt > now) return { waitMs: clampWait(host.nextFetchAt - now) };
    const token = ++this.lastToken;
    // As a page claim: a host with no interval is not held.
    if (host.delayMs > 0) {
      host.reservedBy = token;
      host.reservedUntil = holdUntil(now, options.leaseMs, host.delayMs);
    }
    const url = robotsUrlOf(origin);
    return { claim: { kind: 'turn', id: host.id, token, origin, key: url, url, depth: 0, hops: 0, delayMs: host.delayMs, robots: host.robots, clock: now, attempts: 0, streak: host.streak, refusal: host.refusal } };
  }

  /** Page claims out and not completed yet (a saved page waiting to be published is completed). */
  private pagesOut(): number {
    let n = 0;
    for (const row of this.claimed.values()) if (row.savedBy !== row.token) n++;
    return n;
  }

  /** Claims whose lease ran out go back to waiting. */
  private reap(now: number): void {
    for (const row of this.claimed.values()) {
      if (row.leaseUntil >= now) continue;
      this.claimed.delete(row.id);
      row.state = PENDING;
      row.token = 0;
      row.host.pending.push(row);
    }
    for (const host of this.hosts.values()) if (host.robotsState === 1 && host.reservedUntil < now) host.robotsState = 0;
  }

  /** The shallowest depth still waiting or claimed. */
  private frontierDepth(): number | undefined {
    let min: number | undefined;
    for (const row of this.claimed.values()) if (min === undefined || row.depth < min) min = row.depth;
    for (const host of this.hosts.values()) for (const row of host.pending) if (min === undefined || row.depth < min) min = row.depth;
    return min;
  }

  async complete(claim: Claim, c: Completion): Promise<CompletionResult> {
    const host = this.hosts.get(claim.origin);
    if (host === undefined) return lostLease(c);
    let documentId: number | undefined;
    if (claim.kind === 'turn') return this.lost(host, c); // ended by release, never completed
    if (claim.kind === 'robots') {
      if (host.robotsState !== 1 || host.reservedBy !== claim.token) return this.lost(host, c);
      host.robotsState = 2;
      host.robots = c.robots?.answer ?? { status: 0, body: '' };
      host.delayMs = c.robots?.delayMs ?? host.delayMs;
    } else {
      const row = this.claimed.get(claim.id);
      if (row === undefined || row.token !== claim.token) return this.lost(host, c);
      if (isRetry(c)) {
        // Back to waiting, behind every URL waiting now.
        this.claimed.delete(row.id);
        row.id = ++this.lastRow;
        row.state = PENDING;
        row.token = 0;
        row.attempts++;
        host.pending.push(row);
      } else if (c.saved) {
        // Out until published; a new claim after a lost lease takes the same ID.
        row.doc ??= ++this.lastDoc;
        row.savedBy = row.token;
        documentId = row.doc;
      } else {
        this.claimed.delete(row.id);
        row.state = DONE;
      }
      if (counts(claim, c)) this.answered++;
    }
    host.nextFetchAt = nextFetchAfter(host.nextFetchAt, host.delayMs, c);
    if (c.host !== undefined) host.streak = c.host.streak;
    host.refusal ??= c.host?.refusal;
    if (host.reservedBy === claim.token) {
      host.reservedBy = 0;
      host.reservedUntil = -Infinity;
    }
    const added = isRetry(c) ? c.links.map(() => false) : this.addSync(c.links);
    return { ok: true, documentId, added };
  }

  /** A completion whose lease was lost: nothing is recorded but its request start, which the host's next request waits from. */
  private lost(host: Host, c: Completion): CompletionResult {
    host.nextFetchAt = startedLater(host, c.startedAt, c.host?.intervalMs);
    return lostLease(c);
  }

  async published(claims: readonly Claim[]): Promise<void> {
    for (const claim of claims) this.publish(claim);
  }

  private publish(claim: Claim): void {
    const row = this.claimed.get(claim.id);
    if (row === undefined || row.token !== claim.token) return;
    this.claimed.delete(row.id);
    row.state = DONE;
  }

  async release(claim: Claim, startedAt?: number): Promise<void> {
    const host = this.hosts.get(claim.origin);
    if (host === undefined) return;
    host.nextFetchAt = startedLater(host, startedAt, undefined);
    if (claim.kind === 'robots') {
      if (host.robotsState === 1 && host.reservedBy === claim.token) host.robotsState = 0;
    } else if (claim.kind === 'page') {
      const row = this.claimed.get(claim.id);
      if (row !== undefined && row.token === claim.token) {
        this.claimed.delete(row.id);
        row.state = PENDING;
        row.token = 0;
        host.pending.push(row);
      }
    }
    if (host.reservedBy === claim.token) {
      host.reservedBy = 0;
      host.reservedUntil = -Infinity;
    }
  }

  async lastDocumentId(): Promise<number> {
    return this.lastDoc;
  }

  async close(): Promise<void> {
    // Nothing to release.
  }

  private requireOpen(): ClaimCrawlConfig {
    if (this.config === undefined) throw new CrawlerError('ERR_STATE', 'the shared frontier is not open');
    return this.config;
  }
}

/** The host's next fetch time given a request start under a claim that no longer holds it: only ever later. */
function startedLater(host: Host, startedAt: number | undefined, intervalMs: number | undefined): number {
  return startedAt === undefined ? host.nextFetchAt : Math.max(host.nextFetchAt, startedAt + (intervalMs ?? host.delayMs));
}

function shallowest(rows: readonly Row[], depth: number | undefined): Row | undefined {
  let best: Row | undefined;
  for (const r of rows) {
    if (depth !== undefined && r.depth !== depth) continue;
    if (best === undefined || r.depth < best.depth || (r.depth === best.depth && r.id < best.id)) best = r;
  }
  return best;
}
