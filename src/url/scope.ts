/**
 * Which URLs are internal to a crawl. `crawler` keeps to the seeds' origins
 * by default (same scheme, host and port as a seed); `--internal PREFIX`
 * names a server, or a path prefix on it, `--internal-domain DOMAIN` a
 * domain and its subdomains (domain-scope.ts), and `--any-host` every host.
 * Given together, a URL is inside when any of them says so; `--exclude
 * REGEX` (exclude-patterns.ts) then takes URLs out, whatever let them in.
 */
import { CrawlerError, describeError } from '../errors.js';
import { inDomains, parseScopeDomain } from './domain-scope.js';
import { compileExcludes, excludedBy } from './exclude-patterns.js';
import { DEFAULT_MAX_URL_LENGTH, parseHttpUrl, type HttpUrl } from './http-url.js';

/** Decides whether a URL is inside the crawl. */
export type Scope = (url: HttpUrl) => boolean;

/** Internal when scheme, host and port equal the seed's. */
export function sameOriginScope(seed: HttpUrl): Scope {
  const origin = seed.origin;
  return (url) => url.origin === origin;
}

/** Internal when scheme, host and port equal one seed's. */
export function seedOriginsScope(seeds: readonly HttpUrl[]): Scope {
  if (seeds.length === 1) return sameOriginScope(seeds[0] as HttpUrl);
  const origins = new Set(seeds.map((s) => s.origin));
  return (url) => origins.has(url.origin);
}

/** The identity key a prefix stands for (a server's prefix ends in "/"). Throws for an invalid prefix. */
function prefixKey(prefix: string): string {
  const p = parseHttpUrl(prefix);
  return p.pathWasEmpty ? p.origin + '/' : p.key;
}

/**
 * Internal when the URL's identity key starts with the prefix's. A prefix
 * without a path (`http://host:8080`) designates the whole server.
 */
export function prefixScope(prefix: string): Scope {
  const key = prefixKey(prefix);
  return (url) => url.key.startsWith(key);
}

/** Internal when any of the prefixes says so (see prefixScope). Throws for an invalid prefix. */
export function prefixesScope(prefixes: readonly string[]): Scope {
  const scopes = prefixes.map(prefixScope);
  return (url) => scopes.some((s) => s(url));
}

/** Every http(s) URL is in scope (KeywordHunter follows links to any host). */
export const anyScope: Scope = () => true;

/** What a crawl's scope is built from: the command line's scope flags and the seeds. */
export interface ScopeFlags {
  /** `--internal PREFIX`, each. */
  internal?: readonly string[] | undefined;
  /** `--internal-domain DOMAIN`, each. */
  domains?: readonly string[] | undefined;
  /** `--any-host`. */
  anyHost?: boolean | undefined;
  /** `--exclude REGEX`, each. */
  exclude?: readonly string[] | undefined;
  /** The seeds (the positional one first): their origins are the scope when no inclusion flag is given. */
  seeds: readonly HttpUrl[];
  /**
   * `--max-url-length` (default DEFAULT_MAX_URL_LENGTH): with --exclude, a
   * URL whose identity key is longer is outside the crawl. Percent-encoding
   * can make a key up to nine times its link's length, and the time a pattern
   * may take grows with it (see exclude-patterns.ts): every URL matched is
   * at most this long.
   */
  maxUrlLength?: number | undefined;
}

/** Why a URL is outside the crawl: not included by the scope, excluded by --exclude, or too long to match against it. */
export type ScopeReason = 'external' | 'excluded' | 'too long';

/** A crawl's scope, with what the command line needs to explain it. */
export interface CrawlScope {
  readonly inScope: Scope;
  /** Why `url` is outside the crawl, in words ("not inside --internal-domain example.org"); undefined when inside. */
  outside(url: HttpUrl): string | undefined;
  /**
   * The same as a reason for machines (--json, the report): undefined when
   * inside. With `anyHost`, only --exclude is asked, not the hosts (page
   * requisites, fetched on any host).
   */
  leftOut(url: HttpUrl, anyHost?: boolean): ScopeReason | undefined;
  /**
   * The scope as text that is the same for the same flags in any order and
   * repetition, and differs when they differ: what workers of a shared crawl
   * must agree on. '' for the default (the seeds' origins: the seeds are
   * compared on their own).
   */
  readonly key: string;
}

/** A `--internal` prefix's key; ERR_INVALID_OPTION naming the flag when it is not a URL. */
function internalKey(prefix: string): string {
  try {
    return prefixKey(prefix);
  } catch (err) {
    throw new CrawlerError('ERR_INVALID_OPTION', `invalid --internal prefix: ${describeError(err)}`, { cause: err });
  }
}

/**
 * Builds the crawl's scope from its flags (see the module comment). Throws
 * ERR_INVALID_OPTION naming the flag and value that are wrong: an invalid
 * prefix, domain or pattern.
 */
export function crawlScope(flags: ScopeFlags): CrawlScope {
  const prefixes = (flags.internal ?? []).map((p) => ({ text: p, key: internalKey(p) }));
  const domains = (flags.domains ?? []).map((d) => ({ text: d, domain: parseScopeDomain(d) }));
  const excludes = compileExcludes(flags.exclude ?? []);
  const anyHost = flags.anyHost === true;
  const given = prefixes.length > 0 || domains.length > 0 || anyHost;
  const keys = prefixes.map((p) => p.key);
  const domainList = domains.map((d) => d.domain);
  const included: Scope = anyHost
    ? anyScope
    : !given
      ? seedOriginsScope(flags.seeds)
      : domainList.length === 0
        ? (url) => keys.some((k) => url.key.startsWith(k))
        : (url) => keys.some((k) => url.key.startsWith(k)) || inDomains(domainList, url);
  const maxKey = flags.maxUrlLength ?? DEFAULT_MAX_URL_LENGTH;
  const inScope: Scope = excludes.length === 0 ? included : (url) => included(url) && url.key.length <= maxKey && excludedBy(excludes, url) === undefined;
  const inclusion = [...prefixes.map((p) => `--internal ${p.text}`), ...domains.map((d) => `--internal-domain ${d.text}`)].join(' or ');
  const parts = given ? [...keys.map((k) => `internal ${k}`), ...domainList.map((d) => `domain ${d.name}`), ...(anyHost ? ['any host'] : [])] : [];
  parts.push(...excludes.map((e) => `exclude ${e.source}`));
  /** Why `url` is outside, decided once for both the words and the reason (with the --exclude pattern that matched). */
  const why = (url: HttpUrl, anyHost = false): { reason: ScopeReason; pattern?: string } | undefined => {
    if (!anyHost && !included(url)) return { reason: 'external' };
    if (excludes.length > 0 && url.key.length > maxKey) return { reason: 'too long' };
    const pattern = excludedBy(excludes, url);
    return pattern === undefined ? undefined : { reason: 'excluded', pattern };
  };
  return {
    inScope,
    outside(url) {
      const w = why(url);
      if (w === undefined) return undefined;
      if (w.reason === 'external') return given ? `not inside ${inclusion}` : 'not on the origin of a seed';
      if (w.reason === 'too long') return `longer than ${maxKey} characters once percent-encoded, too long to match against --exclude (--max-url-length)`;
      return `excluded by --exclude ${JSON.stringify(w.pattern)}`;
    },
    leftOut: (url, anyHost) => why(url, anyHost)?.reason,
    key: parts.length === 0 ? '' : JSON.stringify([...new Set(parts)].sort()),
  };
}
