/**
 * Which URLs are internal to a crawl. `crawler` keeps to the seed's origin by
 * default (same scheme, host and port); `--internal PREFIX` names the server,
 * or a path prefix on it, explicitly.
 */
import { parseHttpUrl, type HttpUrl } from './http-url.js';

/** Decides whether a URL is inside the crawl. */
export type Scope = (url: HttpUrl) => boolean;

/** Internal when scheme, host and port equal the seed's. */
export function sameOriginScope(seed: HttpUrl): Scope {
  const origin = seed.origin;
  return (url) => url.origin === origin;
}

/**
 * Internal when the URL's identity key starts with the prefix's. A prefix
 * without a path (`http://host:8080`) designates the whole server.
 */
export function prefixScope(prefix: string): Scope {
  const p = parseHttpUrl(prefix);
  const key = p.pathWasEmpty ? p.origin + '/' : p.key;
  return (url) => url.key.startsWith(key);
}

/** Internal when any of the prefixes says so (see prefixScope). Throws for an invalid prefix. */
export function prefixesScope(prefixes: readonly string[]): Scope {
  const scopes = prefixes.map(prefixScope);
  return (url) => scopes.some((s) => s(url));
}

/** Every http(s) URL is in scope (KeywordHunter follows links to any host). */
export const anyScope: Scope = () => true;
