/**
 * The frontier database is part of the fault model: a PostgreSQL restart or
 * failover is routine for anyone running a shared crawl. `Reconnect` runs
 * each call of the PostgreSQL store and, when the connection or the server
 * went away, waits with back-off and tries the call again, until the
 * database has been unreachable for the wait the user allows
 * (`--frontier-wait`); the engine sees a store that is slow, not one that
 * fails. Only a lost connection is retried (isConnectionLoss): a constraint
 * violation, a syntax error, a refusal to log in are the same on every try.
 *
 * A call whose connection dropped mid-way may or may not have committed;
 * every call of the store is made safe to redo (claim-postgres.ts).
 */
import { CrawlerError } from '../errors.js';
import { knownSocketWords } from '../net-errors.js';

/** Default of --frontier-wait: how long a worker waits for its database to come back, ms. */
export const DEFAULT_FRONTIER_WAIT_MS = 60_000;

/** The first wait after a lost connection, doubled per try up to BACKOFF_MAX_MS. */
export const BACKOFF_FIRST_MS = 100;
/** The longest wait between two tries: a restarted database is seen within this much. */
export const BACKOFF_MAX_MS = 2_000;

/**
 * SQLSTATEs that mean the server went away or is not there yet: admin and
 * crash shutdown (57P01, 57P02: `pg_ctl stop`, a failover), cannot connect
 * now (57P03: starting up or shutting down), and class 08 (connection
 * exception).
 */
const LOST_SQLSTATES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']);

/** Socket errors of a connection that was refused, reset or cut (the server is down or restarting). */
const LOST_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN']);

/** What the pg client says when a connection ended under it (its errors carry no code). */
const LOST_MESSAGES = [
  'Connection terminated unexpectedly',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
  'timeout expired',
];

/**
 * Whether `err` means the connection to the database or the server itself
 * went away, so that the same call may succeed once it is back. A refused
 * connection is one only after the store has reached the server once
 * (`reachedBefore`): a worker that never reached it is most likely pointed
 * at the wrong host or port, and says so at once.
 */
export function isConnectionLoss(err: unknown, reachedBefore = true): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (LOST_SQLSTATES.has(code)) return true;
    if (LOST_SOCKET_CODES.has(code)) return reachedBefore || code !== 'ECONNREFUSED';
    return false;
  }
  if (LOST_MESSAGES.some((m) => err.message.startsWith(m))) return true;
  // A connection timeout wraps the socket's error as its cause.
  return err.cause !== undefined && err.cause !== err && isConnectionLoss(err.cause, reachedBefore);
}

/** The cause of a lost connection in a few words, for the message when the wait runs out. */
export function lossCause(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return knownSocketWords(err) ?? err.message.replace(/\s+/g, ' ').trim();
}

export interface ReconnectOptions {
  /** `HOST:PORT` of the database, for the message. */
  where: string;
  /** How long the database may stay unreachable before a call gives up, ms (0: at the first loss). */
  waitMs: number;
  /** Monotonic ms (default performance.now). */
  now?: () => number;
  /** Waits `ms` (default a timer). */
  sleep?: (ms: number) => Promise<void>;
  /** Told at each lost connection, before the wait (a test). */
  onLoss?: (err: unknown, downMs: number) => void;
  /** Told once when an outage begins (the cause, and the wait allowed) and once when it ends: a line for the user. */
  onOutage?: (note: string) => void;
}

/**
 * Runs calls to the database, waiting out lost connections (see the file
 * comment). The outage is the store's, not a call's: it starts at the first
 * loss seen by any call and ends at the next success of any call, so every
 * call gives up at the same moment, `waitMs` after the database went away.
 */
export class Reconnect {
  private readonly o: Required<Omit<ReconnectOptions, 'onLoss' | 'onOutage'>> & Pick<ReconnectOptions, 'onLoss' | 'onOutage'>;
  /** When the current outage began (undefined while calls succeed). */
  private downSince: number | undefined;
  /** True once a call has succeeded: from then on a refused connection is an outage. */
  private reached = false;
  private closed = false;

  constructor(options: ReconnectOptions) {
    this.o = {
      now: () => performance.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      ...options,
    };
  }

  /** No more waiting: a call that loses its connection from now on fails at once (the store is closing). */
  close(): void {
    this.closed = true;
  }

  /**
   * Runs `call(attempt)` (attempt 0 first, then 1, 2... after each lost
   * connection) until it resolves; rejects with its error when that is not
   * a lost connection, and with one clear ERR_STATE when the database has
   * been unreachable for longer than the wait.
   */
  async run<T>(call: (attempt: number) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await call(attempt);
        this.reached = true;
        if (this.downSince !== undefined) {
          const seconds = Math.round((this.o.now() - this.downSince) / 100) / 10;
          this.downSince = undefined;
          this.o.onOutage?.(`the frontier database at ${this.o.where} is back after ${seconds} s; going on`);
        }
        return result;
      } catch (err) {
        if (this.closed || !isConnectionLoss(err, this.reached)) throw err;
        const now = this.o.now();
        if (this.downSince === undefined) {
          this.downSince = now;
          if (this.o.waitMs > 0) this.o.onOutage?.(`the frontier database at ${this.o.where} is unreachable (${lossCause(err)}); waiting up to ${this.o.waitMs / 1000} s for it`);
        }
        const downMs = now - this.downSince;
        this.o.onLoss?.(err, downMs);
        if (downMs >= this.o.waitMs) throw this.unreachable(err, downMs);
        const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(attempt, 10));
        await this.o.sleep(Math.min(backoff, this.o.waitMs - downMs));
      }
    }
  }

  /** The one line a worker ends with when the wait ran out: the cause first, then how to go on. */
  private unreachable(err: unknown, downMs: number): CrawlerError {
    const seconds = Math.round(downMs / 100) / 10;
    return new CrawlerError(
      'ERR_STATE',
      `the frontier database at ${this.o.where} has been unreachable for ${seconds} s (${lossCause(err)}); ` +
        'once it is back, run the same command again: the shared crawl is joined where it stands (--frontier-wait sets how long a worker waits)',
      { cause: err },
    );
  }
}

/** `HOST:PORT` of a postgresql:// connection string (for messages; no user, no password). */
export function databaseAddress(connectionString: string): string {
  try {
    const u = new URL(connectionString);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}`;
  } catch {
    return 'the --frontier URL';
  }
}
