/**
 * The default lookup backend (see host-resolver.ts): the hosts file, then
 * DNS through c-ares, then getaddrinfo for names DNS does not know.
 *
 * Why c-ares first, and not dns.lookup: dns.lookup is getaddrinfo, a
 * blocking call that libuv runs in its threadpool, four threads by default
 * and shared with every file write of the crawl. Four slow lookups (a name
 * server that is slow, or times out) then stall the other lookups and the
 * page files behind them: N slow lookups take N / 4 times one. c-ares
 * (node:dns Resolver) sends its queries from the event loop and waits for
 * no thread, so slow names overlap (test/http/system-lookup.test.ts;
 * docs/performance.md, Name lookups and `--exclude`).
 *
 * What c-ares does not read is the rest of the system's name service: the
 * hosts file, nsswitch (mDNS, split DNS, NIS), and the search domains of
 * resolv.conf (Node asks c-ares for the name as given). So:
 * - the hosts file is read once, when the first name is asked, and its
 *   names are answered from it, as getaddrinfo's "files" source would;
 * - a name DNS says does not exist, or a name server that cannot be
 *   reached, is asked of getaddrinfo too, at most FALLBACK_THREADS at once,
 *   so that these lookups never take every thread from the file writes;
 * - a DNS lookup that timed out is not asked again: getaddrinfo would ask
 *   the same servers and wait as long.
 * Both address families are asked at once; once one has answered, the
 * other is awaited at most 50 ms (RFC 8305 §3, the Resolution Delay).
 */
import { lookup as getaddrinfo, Resolver, type LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { HostAddress, LookupAnswer, LookupBackend } from './lookup-backend.js';

export interface SystemLookupOptions {
  /** The hosts file (default /etc/hosts); a file that cannot be read counts as empty. */
  hostsFile?: string;
  /** Name servers to ask instead of the system's (`ip` or `ip:port`). */
  servers?: readonly string[];
  /** Ask getaddrinfo for names DNS did not answer (default true). */
  fallback?: boolean;
}

/** getaddrinfo lookups at most at once: half of libuv's four threads, the rest stay for the files. */
export const FALLBACK_THREADS = 2;
/**
 * Names asked of DNS at most at once (two queries each, A and AAAA). More
 * answers arriving together than a UDP socket's receive buffer holds (256
 * small datagrams here, with Linux's default 208 KiB) are dropped, and
 * c-ares asks again only after its timeout, so asking more at once is
 * slower, not faster (docs/performance.md, Name lookups and `--exclude`).
 */
export const DNS_LOOKUPS = 100;
/** RFC 8305 §3: how long the second address family is awaited once the first has answered. */
export const RESOLUTION_DELAY_MS = 50;
/** c-ares: each query's first wait and the tries per name server (it doubles the wait on each retry). */
const QUERY_TIMEOUT_MS = 2000;
const QUERY_TRIES = 2;
/** The hosts file read at most this far. */
const MAX_HOSTS_BYTES = 1 << 20;

/** DNS answers that say the name is not there (as opposed to no answer at all). */
const NOT_THERE = new Set(['ENOTFOUND', 'ENODATA']);

/** The default backend (see the module comment). */
export function systemLookup(options: SystemLookupOptions = {}): LookupBackend {
  let hosts: Map<string, HostAddress[]> | undefined;
  let resolver: Resolver | undefined;
  const fallback = options.fallback === false ? undefined : limited(FALLBACK_THREADS, fromGetaddrinfo);
  const dns = limited(DNS_LOOKUPS, (hostname) => {
    if (resolver === undefined) {
      resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
      if (options.servers !== undefined) resolver.setServers([...options.servers]);
    }
    return fromDns(resolver, hostname);
  });
  return async (hostname, signal) => {
    hosts ??= readHostsFile(options.hostsFile ?? '/etc/hosts');
    const listed = hosts.get(hostname);
    if (listed !== undefined) return { addresses: listed };
    try {
      return await dns(hostname, signal);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (fallback === undefined || code === 'ETIMEOUT' || signal.aborted) throw err;
      try {
        return await fallback(hostname, signal);
      } catch (second) {
        // DNS said the name is not there: that is the answer to give, not what getaddrinfo made of it.
        throw NOT_THERE.has(code) ? err : second;
      }
    }
  };
}

/** The names of a hosts file ("address name [aliases...]", # comments), IPv4 addresses first. */
export function parseHostsFile(text: string): Map<string, HostAddress[]> {
  const out = new Map<string, HostAddress[]>();
  for (const raw of text.split('\n')) {
    const [address, ...names] = (raw.split('#')[0] ?? '').trim().split(/\s+/);
    const family = address === undefined ? 0 : isIP(address.replace(/%.*$/, ''));
    if (family === 0) continue;
    for (const n of names) {
      const name = n.toLowerCase().replace(/\.$/, '');
      let list = out.get(name);
      if (list === undefined) out.set(name, (list = []));
      if (!list.some((a) => a.address === address)) list.push({ address: address as string, family: family as 4 | 6 });
    }
  }
  for (const list of out.values()) list.sort((a, b) => a.family - b.family);
  return out;
}

function readHostsFile(path: string): Map<string, HostAddress[]> {
  try {
    const text = readFileSync(path, 'latin1');
    return parseHostsFile(text.length > MAX_HOSTS_BYTES ? text.slice(0, MAX_HOSTS_BYTES) : text);
  } catch {
    return new Map();
  }
}

type FamilyResult = { addresses: HostAddress[]; ttlMs: number | undefined } | { error: NodeJS.ErrnoException };

function query(resolver: Resolver, hostname: string, family: 4 | 6): Promise<FamilyResult> {
  return new Promise((resolve) => {
    const done = (error: NodeJS.ErrnoException | null, records: Array<{ address: string; ttl: number }>): void => {
      if (error !== null) resolve({ error });
      else resolve({ addresses: records.map((r) => ({ address: r.address, family })), ttlMs: records.length === 0 ? undefined : Math.min(...records.map((r) => r.ttl)) * 1000 });
    };
    if (family === 4) resolver.resolve4(hostname, { ttl: true }, done);
    else resolver.resolve6(hostname, { ttl: true }, done);
  });
}

/** A and AAAA at once (see the module comment); rejects with the most telling error when neither gave an address. */
async function fromDns(resolver: Resolver, hostname: string): Promise<LookupAnswer> {
  const results: [FamilyResult | undefined, FamilyResult | undefined] = [undefined, undefined];
  await new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (i: 0 | 1, r: FamilyResult): void => {
      results[i] = r;
      if (results[0] !== undefined && results[1] !== undefined) {
        clearTimeout(timer);
        resolve();
      } else if ('addresses' in r && r.addresses.length > 0 && timer === undefined) timer = setTimeout(resolve, RESOLUTION_DELAY_MS);
    };
    void query(resolver, hostname, 4).then((r) => settle(0, r));
    void query(resolver, hostname, 6).then((r) => settle(1, r));
  });
  const found = results.flatMap((r) => (r !== undefined && 'addresses' in r ? [r] : []));
  const addresses = found.flatMap((r) => r.addresses);
  if (addresses.length > 0) {
    const ttls = found.flatMap((r) => (r.ttlMs === undefined ? [] : [r.ttlMs]));
    return { addresses, ttlMs: ttls.length === 0 ? undefined : Math.min(...ttls) };
  }
  // The most telling failure: the name does not exist, else no answer at all, else no address of that family.
  const errors = results.flatMap((r) => (r !== undefined && 'error' in r ? [r.error] : []));
  const error = errors.find((e) => e.code === 'ENOTFOUND') ?? errors.find((e) => e.code !== 'ENODATA') ?? errors[0];
  throw error ?? Object.assign(new Error(`no address for ${hostname}`), { code: 'ENODATA' });
}

function fromGetaddrinfo(hostname: string): Promise<LookupAnswer> {
  return new Promise((resolve, reject) => {
    getaddrinfo(hostname, { all: true }, (err, found: LookupAddress[]) => {
      if (err !== null) reject(err);
      else resolve({ addresses: found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 } as HostAddress)).sort((a, b) => a.family - b.family) });
    });
  });
}

/** `work` run at most `limit` at once; a queued call whose signal aborts is dropped without running. */
function limited(limit: number, work: (hostname: string) => Promise<LookupAnswer>): LookupBackend {
  let running = 0;
  const queue: Array<() => void> = [];
  const next = (): void => {
    running--;
    queue.shift()?.();
  };
  return (hostname, signal) =>
    new Promise<LookupAnswer>((resolve, reject) => {
      const start = (): void => {
        if (signal.aborted) {
          // The caller gave up while this waited: the thread goes to the next one.
          reject(Object.assign(new Error('lookup given up'), { code: 'ETIMEOUT' }));
          queue.shift()?.();
          return;
        }
        running++;
        work(hostname).then(resolve, reject).finally(next);
      };
      if (running < limit) start();
      else queue.push(start);
    });
}
