/**
 * The shared frontier in PostgreSQL: any number of worker processes, on one
 * machine or many, run one crawl (`crawler --frontier postgresql://...`).
 * Each call is one round trip to a server-side function
 * (claim-postgres-sql.ts), and every time is the database's clock.
 *
 * A restart or failover of the database is waited out (pg-faults.ts): a
 * call that lost its connection is made again, with back-off, until the
 * database has been unreachable for `waitMs`. Each call is safe to make
 * again whether or not its first try committed: this store mints the lease
 * tokens (a block of them at a time), so the try after a lost connection
 * carries the same token and the database answers what the first did.
 */
// First: pg's load asks for `navigator` (pg-navigator.ts).
import { returnNavigator } from './pg-navigator.js';
import pg from 'pg';
import { CrawlerError } from '../errors.js';
import { dnsFailureWords, socketErrorCode, socketFailureWords, systemCode } from '../net-errors.js';
import { PG_SCHEMA, PG_SCHEMA_STAMP, PG_SCHEMA_VERSION } from './claim-postgres-sql.js';
import { databaseAddress, DEFAULT_FRONTIER_WAIT_MS, Reconnect } from './pg-faults.js';
import { configMismatch, moreSeedKeys, seedEntries, storedConfig } from './claim-config.js';
import {
  lostLease,
  robotsUrlOf,
  markAdded,
  clampWait,
  POLL_WAIT_MS,
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

returnNavigator();

/** A connection string without its password, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*):[^@]*@/, '$1:***@');
}

/**
 * A pg client whose connection may drop at any moment (a restart): its
 * queries fail with the cause, and the store tries them again. The
 * "Connection terminated unexpectedly" a client also emits when its socket
 * closes can come while no one listens (pg-pool listens only while the
 * client is idle or running a query), which would end the process: it is
 * heard here and dropped, the failed query having said it already.
 */
class QuietClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => undefined);
  }
}

interface ClaimRow {
  kind: string | null;
  id: string | null;
  token: string | null;
  origin: string | null;
  key: string | null;
  url: string | null;
  depth: number | null;
  delay_ms: number | null;
  robots_status: number | null;
  robots_body: string | null;
  clock: number;
  wait_ms: number | null;
  attempts: number | null;
  streak: number | null;
  refusal: string | null;
  hops: number | null;
}

/** What pc_robots_for and pc_turn answer. */
interface HostRow {
  kind: string | null;
  id: string | null;
  token: string | null;
  robots_status: number | null;
  robots_body: string | null;
  delay_ms: number | null;
  clock: number;
  wait_ms: number | null;
  streak: number | null;
  refusal: string | null;
}

export interface PostgresClaimStoreOptions {
  /** Connections kept at most: calls beyond wait for one (default 4). */
  maxConnections?: number;
  /** How long the database may be unreachable (a restart) before a call fails, ms (default DEFAULT_FRONTIER_WAIT_MS). */
  waitMs?: number;
  /** The worker's monotonic clock, for Claim.sentAt (default performance.now). */
  now?: () => number;
  /** Waits between tries after a lost connection (default a timer; tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
  /** Told when the database goes away and when it is back (one line each, for stderr). */
  onOutage?: (note: string) => void;
}

/** Tokens a worker mints from one block of pc_token_block_seq (its INCREMENT). */
const TOKEN_BLOCK = 1024;

export class PostgresClaimStore implements ClaimStore {
  private readonly pool: pg.Pool;
  private readonly where: string;
  private readonly reconnect: Reconnect;
  private readonly now: () => number;
  /** The rest of this worker's block of lease tokens: next to mint, and the end. */
  private tokens = { next: 0, end: 0 };

  constructor(connectionString: string, options: PostgresClaimStoreOptions = {}) {
    this.where = redactUrl(connectionString);
    this.now = options.now ?? (() => performance.now());
    // Idle connections stay a minute (pg's default is 10 s): one made again is a server process started
    // and its functions compiled again, for a crawl that waited out its hosts' intervals.
    this.pool = new pg.Pool({ connectionString, max: options.maxConnections ?? 4, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 60_000, Client: QuietClient });
    // An idle connection that drops (a server restart) must not crash the process; the next query reports it.
    this.pool.on('error', () => undefined);
    this.reconnect = new Reconnect({
      where: databaseAddress(connectionString),
      waitMs: options.waitMs ?? DEFAULT_FRONTIER_WAIT_MS,
      now: this.now,
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      ...(options.onOutage === undefined ? {} : { onOutage: options.onOutage }),
    });
  }

  /**
   * Runs one statement, again after a lost connection (it must be safe to
   * redo: see the file comment); a `name` makes it a prepared statement,
   * parsed once per connection (the per-page calls). `values` may depend on
   * the try (0 first).
   */
  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[] | ((attempt: number) => unknown[]) = [], name?: string): Promise<pg.QueryResult<R>> {
    try {
      return await this.reconnect.run(async (attempt) => {
        // The connection first, then the values: a call's send time (a claim's sentAt) must not count the
        // wait for one of the pool's connections, or the store's clock is mapped that much late.
        const client = await this.pool.connect();
        let failed: Error | undefined;
        try {
          const v = typeof values === 'function' ? values(attempt) : values;
          return await client.query<R>(name === undefined ? { text, values: v } : { name, text, values: v });
        } catch (err) {
          failed = err as Error;
          throw err;
        } finally {
          // A connection whose query failed is not given back for the next call (as pool.query does).
          client.release(failed);
        }
      });
    } catch (err) {
      throw this.wrap(err);
    }
  }

  /** A lease token of this worker's own (unique across the crawl: its block is). */
  private async mintToken(): Promise<number> {
    if (this.tokens.next >= this.tokens.end) {
      const r = await this.query<{ block: string }>("SELECT nextval('pc_token_block_seq') AS block");
      this.takeBlock(r.rows[0]?.block);
    }
    return this.tokens.next++;
  }

  /** Mints tokens from `block` (a value of pc_token_block_seq) from now on. */
  private takeBlock(block: string | undefined): void {
    const first = Number(block);
    if (!Number.isSafeInteger(first) || first <= 0) throw new CrawlerError('ERR_STATE', `frontier database ${this.where} gave no token block`);
    this.tokens = { next: first, end: first + TOKEN_BLOCK };
  }

  private wrap(err: unknown): CrawlerError {
    if (err instanceof CrawlerError) return err;
    const unreachable = unreachableWords(err);
    if (unreachable !== undefined) return new CrawlerError('ERR_STATE', `cannot reach the frontier database ${this.where}: ${unreachable}`, { cause: err });
    return new CrawlerError('ERR_STATE', `frontier database ${this.where}: ${(err as Error).message}`, { cause: err });
  }

  async open(config: ClaimCrawlConfig): Promise<{ created: boolean }> {
    // Made again after a lost connection: a first try that committed made the crawl, and this one joins it.
    try {
      return await this.reconnect.run(() => this.openOnce(config));
    } catch (err) {
      throw this.wrap(err);
    }
  }

  private async openOnce(config: ClaimCrawlConfig): Promise<{ created: boolean }> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      // Workers starting together: one creates the schema and the crawl, the others wait and join.
      await client.query("SELECT pg_advisory_xact_lock(hashtext('polite-crawler frontier'))");
      // Another version's crawl is refused before PG_SCHEMA replaces the functions its workers call.
      const exists = await client.query<{ found: boolean; stamp: string | null }>(
        "SELECT to_regclass('pc_crawl') IS NOT NULL AS found, obj_description(to_regclass('pc_crawl'), 'pg_class') AS stamp",
      );
      if (exists.rows[0]?.found === true) {
        const v = await client.query<{ version: number }>('SELECT version FROM pc_crawl WHERE id = 1');
        const version = v.rows[0]?.version;
        if (version !== undefined && version !== PG_SCHEMA_VERSION) throw new CrawlerError('ERR_STATE', `frontier database ${this.where} holds a crawl of another version (${version}); use a new database`);
      }
      // The DDL only when the schema there is not this build's (a new database, or one made by another build).
      if (exists.rows[0]?.stamp !== PG_SCHEMA_STAMP) {
        await client.query(PG_SCHEMA);
        await client.query(`COMMENT ON TABLE pc_crawl IS '${PG_SCHEMA_STAMP}'`);
      }
      const found = await client.query<{ seed_key: string; more_seeds: string; scope: string; max_depth: number; delay_ms: number; robots: boolean; max_pages: number | null; block: string }>(
        "SELECT seed_key, more_seeds, scope, max_depth, delay_ms, robots, max_pages, nextval('pc_token_block_seq') AS block FROM pc_crawl WHERE id = 1",
      );
      // This worker's first block of tokens (no round trip of its own before the first claim).
      if (found.rows[0] !== undefined) this.takeBlock(found.rows[0].block);
      const row = found.rows[0];
      if (row !== undefined) {
        await client.query('COMMIT');
        const existing = storedConfig(config, { seedKey: row.seed_key, moreSeeds: row.more_seeds, scope: row.scope, maxDepth: row.max_depth, delayMs: row.delay_ms, robots: row.robots, maxPages: row.max_pages });
        const diff = configMismatch(existing, config);
        if (diff !== undefined) throw new CrawlerError('ERR_STATE', `frontier database ${this.where} holds another crawl: ${diff}`);
        return { created: false };
      }
      await client.query('INSERT INTO pc_crawl (id, version, seed_key, more_seeds, scope, max_depth, delay_ms, robots, max_pages) VALUES (1, $1, $2, $3, $4, $5, $6, $7, $8)', [
        PG_SCHEMA_VERSION,
        config.seed.key,
        moreSeedKeys(config),
        config.scope ?? '',
        config.maxDepth,
        config.delayMs,
        config.robots,
        config.maxPages ?? null,
      ]);
      // pc_add queues the seeds in the order given.
      const block = await client.query<{ block: string }>("SELECT pc_add($1, $2, $3, $4, $5), nextval('pc_token_block_seq') AS block", columns(seedEntries(config)));
      this.takeBlock(block.rows[0]?.block);
      await client.query('COMMIT');
      return { created: true };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => (broken = true));
      throw err;
    } finally {
      // A connection that failed is not given back to the pool for the next try.
      client.release(broken);
    }
  }

  /** (Made again after a lost connection, keys its first try inserted are told as duplicates: the worker adds links only through `complete`.) */
  async add(entries: readonly ClaimEntry[]): Promise<boolean[]> {
    if (entries.length === 0) return [];
    const r = await this.query<{ pc_add: string[] }>('SELECT pc_add($1, $2, $3, $4, $5)', columns(entries), 'pc_add');
    return markAdded(entries, new Set(r.rows[0]?.pc_add ?? []));
  }

  async claim(options: ClaimOptions, published: readonly Claim[] = []): Promise<ClaimResult> {
    const pubIds = published.length === 0 ? null : published.map((p) => p.id);
    const pubTokens = published.length === 0 ? null : published.map((p) => p.token);
    const token = await this.mintToken();
    let sentAt = 0;
    const r = await this.query<ClaimRow>(
      'SELECT * FROM pc_claim($1, $2, $3, $4, $5, $6, $7)',
      (attempt) => {
        sentAt = this.now();
        return [options.leaseMs, options.strictBfs, POLL_WAIT_MS, pubIds, pubTokens, token, attempt > 0];
      },
      'pc_claim',
    );
    const row = r.rows[0];
    if (row === undefined) return { done: true };
    if (row.kind === 'spent') return { done: true, spent: true };
    if (row.kind === null) return { waitMs: clampWait(row.wait_ms ?? 0) };
    return {
      claim: {
        kind: row.kind === 'robots' ? 'robots' : 'page',
        id: Number(row.id),
        token: Number(row.token),
        origin: row.origin as string,
        key: row.key as string,
        url: row.url as string,
        depth: row.depth as number,
        hops: row.hops ?? 0,
        delayMs: row.delay_ms as number,
        robots: row.robots_status === null ? undefined : { status: row.robots_status, body: row.robots_body ?? '' },
        clock: row.clock,
        sentAt,
        attempts: row.attempts ?? 0,
        streak: row.streak ?? 0,
        refusal: row.refusal ?? undefined,
      },
    };
  }

  async complete(claim: Claim, c: Completion): Promise<CompletionResult> {
    const [keys, urls, depths, origins, hops] = columns(c.links);
    const r = await this.query<{ ok: boolean; doc: string | null; inserted: string[] }>(
      'SELECT * FROM pc_complete($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)',
      [
        claim.kind, claim.id, claim.token, claim.origin, c.startedAt ?? null, c.saved, keys, urls, depths, origins, hops,
        c.robots?.answer.status ?? null, c.robots?.answer.body ?? null, c.robots?.delayMs ?? null,
        c.retry === true, c.host?.intervalMs ?? null, c.host?.pausedUntil ?? null, c.host?.streak ?? null, c.host?.refusal ?? null,
        c.answered === true,
      ],
      'pc_complete',
    );
    const row = r.rows[0];
    if (row === undefined || !row.ok) return lostLease(c);
    return { ok: true, documentId: row.doc === null ? undefined : Number(row.doc), added: markAdded(c.links, new Set(row.inserted)) };
  }

  async robotsFor(origin: string, depth: number, options: ClaimOptions): Promise<RobotsResult> {
    const token = await this.mintToken();
    let sentAt = 0;
    const r = await this.query<HostRow>(
      'SELECT * FROM pc_robots_for($1, $2, $3, $4, $5)',
      () => {
        sentAt = this.now();
        return [origin, depth, options.leaseMs, POLL_WAIT_MS, token];
      },
      'pc_robots_for',
    );
    const row = r.rows[0];
    if (row === undefined || row.kind === null) return { waitMs: clampWait(row?.wait_ms ?? POLL_WAIT_MS) };
    if (row.kind === 'answer') return { answer: { status: row.robots_status ?? 0, body: row.robots_body ?? '' } };
    const url = robotsUrlOf(origin);
    return {
      claim: {
        kind: 'robots', id: Number(row.id), token: Number(row.token), origin, key: url, url, depth, hops: 0, delayMs: row.delay_ms ?? 0,
        robots: undefined, clock: row.clock, sentAt, attempts: 0, streak: row.streak ?? 0, refusal: row.refusal ?? undefined,
      },
    };
  }

  async turn(origin: string, options: ClaimOptions): Promise<TurnResult> {
    const token = await this.mintToken();
    let sentAt = 0;
    const r = await this.query<HostRow>(
      'SELECT * FROM pc_turn($1, $2, $3, $4)',
      () => {
        sentAt = this.now();
        return [origin, options.leaseMs, POLL_WAIT_MS, token];
      },
      'pc_turn',
    );
    const row = r.rows[0];
    if (row === undefined || row.kind === null) return { waitMs: clampWait(row?.wait_ms ?? POLL_WAIT_MS) };
    const url = robotsUrlOf(origin);
    return {
      claim: {
        kind: 'turn', id: Number(row.id), token: Number(row.token), origin, key: url, url, depth: 0, hops: 0, delayMs: row.delay_ms ?? 0,
        robots: row.robots_status === null ? undefined : { status: row.robots_status, body: row.robots_body ?? '' },
        clock: row.clock, sentAt, attempts: 0, streak: row.streak ?? 0, refusal: row.refusal ?? undefined,
      },
    };
  }

  async published(claims: readonly Claim[]): Promise<void> {
    if (claims.length === 0) return;
    await this.query('SELECT pc_published($1, $2)', [claims.map((c) => c.id), claims.map((c) => c.token)], 'pc_published');
  }

  async release(claim: Claim, startedAt?: number): Promise<void> {
    await this.query('SELECT pc_release($1, $2, $3, $4, $5)', [claim.kind, claim.id, claim.token, claim.origin, startedAt ?? null], 'pc_release');
  }

  async lastDocumentId(): Promise<number> {
    const r = await this.query<{ last_doc: string }>('SELECT last_doc FROM pc_crawl WHERE id = 1');
    return Number(r.rows[0]?.last_doc ?? 0);
  }

  async close(): Promise<void> {
    this.reconnect.close();
    await this.pool.end().catch(() => undefined);
  }
}

function columns(entries: readonly ClaimEntry[]): [string[], string[], number[], string[], number[]] {
  return [entries.map((e) => e.key), entries.map((e) => e.url), entries.map((e) => e.depth), entries.map((e) => e.origin), entries.map((e) => e.hops ?? 0)];
}

/** Why a database was never reached, cause first and then what to check; undefined for another failure. */
function unreachableWords(err: unknown): string | undefined {
  const code = systemCode(err);
  const check = "is PostgreSQL running there, and are the URL's host and port right?";
  if (code === 'ENOENT') return `no server socket there (${check})`; // ?host=/a/dir: no .s.PGSQL.PORT in it
  const kind = socketErrorCode(err);
  if (kind === 'ERR_DNS') return `${dnsFailureWords(err)}; check the host in the URL`;
  if (kind === 'ERR_CONNECT' || code === 'ETIMEDOUT') return `${socketFailureWords(err)}; ${check}`;
  return undefined;
}
