/**
 * What a host-name lookup backend is (host-resolver.ts caches and bounds
 * lookups; system-lookup.ts is the default backend): the types both share,
 * apart so that neither imports the other's module.
 */

/** One address of a host. */
export interface HostAddress {
  address: string;
  family: 4 | 6;
}

/** What a backend found: the addresses (IPv4 first), and how long they may be used when DNS said so. */
export interface LookupAnswer {
  addresses: HostAddress[];
  ttlMs?: number | undefined;
}

/**
 * Asks for a name's addresses. Rejects with an error whose `code` says why
 * (ENOTFOUND, ENODATA, EAI_AGAIN, ETIMEOUT...); resolving with no address
 * counts as ENODATA. `signal` aborts when the caller no longer waits (the
 * backend may then drop the lookup if it has not started).
 */
export type LookupBackend = (hostname: string, signal: AbortSignal) => Promise<LookupAnswer>;
