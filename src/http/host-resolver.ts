/**
 * Host names to addresses for one crawl: each name is looked up once and
 * its answer kept (spec decision "Errors name their cause first": a name
 * that cannot be resolved costs one lookup, not one per link).
 *
 * - Answers are kept for their DNS TTL, held between `minTtlMs` (60 s) and
 *   `maxTtlMs` (1 h): a crawl asks each name about once, yet a long one
 *   follows a host that moved.
 * - Failures are kept for `failureTtlMs` (10 min), a timeout included: a
 *   dead host's every link then fails at once, with the same error.
 * - Callers asking for a name whose lookup is under way share that lookup.
 * - Every lookup is bounded by `lookupTimeoutMs` (10 s).
 * - No concurrency limit here: the layer below (the backend) decides how
 *   lookups run. The default, `systemLookup`, asks DNS through c-ares,
 *   which waits on the event loop rather than in libuv's four threads, so
 *   slow lookups overlap (see system-lookup.ts).
 * - RFC 6761 names are answered here, without asking anyone: `localhost`
 *   and `*.localhost` are the loopback addresses (§6.3), `*.invalid` does
 *   not exist (§6.4). IP literals are not names: the connector skips them.
 * - At most `maxEntries` (100,000) names are remembered; the oldest go first.
 */
import { ConnectError } from './connect-error.js';
import { dnsFailureWords } from '../net-errors.js';
import type { HostAddress, LookupAnswer, LookupBackend } from './lookup-backend.js';
import { systemLookup } from './system-lookup.js';

/** One address of a host. */
export type { HostAddress, LookupAnswer, LookupBackend };

export interface HostResolverOptions {
  /** Who asks (default: systemLookup(): /etc/hosts, then DNS through c-ares, then getaddrinfo). */
  backend?: LookupBackend;
  /** The longest wait for one lookup (default 10 s): past it, the name fails as unanswered. */
  lookupTimeoutMs?: number;
  /** How long a failure is remembered (default 10 min). */
  failureTtlMs?: number;
  /** Least and most time an answer is kept, whatever its TTL (default 60 s and 1 h); minTtlMs also serves an answer without a TTL. */
  minTtlMs?: number;
  maxTtlMs?: number;
  /** Names remembered at most (default 100,000). */
  maxEntries?: number;
  /** The clock, in ms (default performance.now). */
  now?: () => number;
}

export const DEFAULT_LOOKUP_TIMEOUT_MS = 10_000;
export const DEFAULT_FAILURE_TTL_MS = 10 * 60_000;
export const DEFAULT_MIN_TTL_MS = 60_000;
export const DEFAULT_MAX_TTL_MS = 60 * 60_000;
export const DEFAULT_MAX_ENTRIES = 100_000;

const LOOPBACK: readonly HostAddress[] = Object.freeze([
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
]);

type Entry = { until: number; addresses: readonly HostAddress[] } | { until: number; error: ConnectError };

/** Resolves host names through a backend, remembering answers and failures (see the module comment). */
export class HostResolver {
  private readonly backend: LookupBackend;
  private readonly o: Required<Omit<HostResolverOptions, 'backend'>>;
  private readonly cache = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<readonly HostAddress[]>>();
  /** Lookups handed to the backend so far (the rest were answered from memory or by RFC 6761). */
  lookups = 0;

  constructor(options: HostResolverOptions = {}) {
    this.backend = options.backend ?? systemLookup();
    this.o = {
      lookupTimeoutMs: options.lookupTimeoutMs ?? DEFAULT_LOOKUP_TIMEOUT_MS,
      failureTtlMs: options.failureTtlMs ?? DEFAULT_FAILURE_TTL_MS,
      minTtlMs: options.minTtlMs ?? DEFAULT_MIN_TTL_MS,
      maxTtlMs: options.maxTtlMs ?? DEFAULT_MAX_TTL_MS,
      maxEntries: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      now: options.now ?? (() => performance.now()),
    };
  }

  /**
   * The addresses of `hostname` (IPv4 first), from memory when known.
   * Rejects with a ConnectError (ERR_DNS) naming the cause in words, the
   * same instance for every caller while the failure is remembered.
   */
  resolve(hostname: string): Promise<readonly HostAddress[]> {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const special = rfc6761(name);
    if (special !== undefined) return special === 'invalid' ? Promise.reject(notFound(hostname)) : Promise.resolve(LOOPBACK);
    const known = this.cache.get(name);
    if (known !== undefined) {
      if (known.until > this.o.now()) return 'error' in known ? Promise.reject(known.error) : Promise.resolve(known.addresses);
      this.cache.delete(name);
    }
    let pending = this.inflight.get(name);
    if (pending === undefined) {
      pending = this.lookUp(hostname, name).finally(() => this.inflight.delete(name));
      this.inflight.set(name, pending);
    }
    return pending;
  }

  private async lookUp(hostname: string, name: string): Promise<readonly HostAddress[]> {
    this.lookups++;
    const gaveUp = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        gaveUp.abort();
        const err = Object.assign(new Error('lookup timeout'), { code: 'ETIMEOUT' });
        reject(new ConnectError('ERR_DNS', `cannot resolve ${hostname}: no answer within ${this.o.lookupTimeoutMs / 1000} s`, { host: hostname, systemCode: 'ETIMEOUT', cause: err }));
      }, this.o.lookupTimeoutMs);
    });
    try {
      const answer = await Promise.race([this.backend(name, gaveUp.signal), timeout]);
      if (answer.addresses.length === 0) throw Object.assign(new Error(`no address for ${name}`), { code: 'ENODATA' });
      const addresses = Object.freeze([...answer.addresses]);
      const ttl = Math.min(this.o.maxTtlMs, Math.max(this.o.minTtlMs, answer.ttlMs ?? 0));
      this.remember(name, { until: this.o.now() + ttl, addresses });
      return addresses;
    } catch (err) {
      const error = err instanceof ConnectError ? err : lookupError(hostname, err);
      this.remember(name, { until: this.o.now() + this.o.failureTtlMs, error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(name: string, entry: Entry): void {
    this.cache.delete(name);
    if (this.cache.size >= this.o.maxEntries) {
      const oldest = this.cache.keys().next();
      if (oldest.done !== true) this.cache.delete(oldest.value);
    }
    this.cache.set(name, entry);
  }
}

/** 'loopback' for localhost names (RFC 6761 §6.3), 'invalid' for .invalid names (§6.4), else undefined. */
function rfc6761(name: string): 'loopback' | 'invalid' | undefined {
  if (name === 'localhost' || name.endsWith('.localhost')) return 'loopback';
  if (name === 'invalid' || name.endsWith('.invalid')) return 'invalid';
  return undefined;
}

/** A failed lookup as a ConnectError that says why in words. */
function lookupError(hostname: string, err: unknown): ConnectError {
  const systemCode = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  return new ConnectError('ERR_DNS', `cannot resolve ${hostname}: ${dnsFailureWords(err)}`, { host: hostname, systemCode, cause: err });
}

function notFound(hostname: string): ConnectError {
  return lookupError(hostname, Object.assign(new Error(`${hostname} is an .invalid name (RFC 6761)`), { code: 'ENOTFOUND' }));
}
