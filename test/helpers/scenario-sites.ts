/**
 * The servers of one run of a scheduler scenario: the site (H), another host
 * of the crawl (O) and a raw server (R) for wire faults, each started fresh
 * for each run (a server's state, such as a page that pushes back once,
 * starts again). Every request they get is recorded as `NAME METHOD PATH`.
 */
import { parseHttpUrl, type HttpUrl } from '../../src/url/http-url.js';
import { startRaw, type RawHandler, type RawServer } from './raw-server.js';
import { startSite, type Route, type SiteServer } from './site-server.js';

/** The origins of a run's servers, for routes that link across them. */
export interface Origins {
  /** The site (the seed's host). */
  main: string;
  /** Another host of the crawl. */
  other: string;
  /** The raw server. */
  raw: string;
}

/** What a scenario serves. */
export interface SiteSpec {
  /** The site's routes. */
  routes: (o: Origins) => Record<string, Route>;
  /** The other host's routes (default: none, every path 404). */
  otherRoutes?: (o: Origins) => Record<string, Route>;
  /** The raw server's script (default: `/cut` is cut short after its head, anything else 404). */
  raw?: RawHandler;
  /** Prefixes in the crawl's scope besides the three servers' origins (--internal). */
  moreScope?: string[];
}

export interface ScenarioSites {
  main: SiteServer;
  other: SiteServer;
  raw: RawServer;
  origins: Origins;
  seed: HttpUrl;
  /** The crawl's scope (--internal, each). */
  scope: string[];
  /** The origins named: H, O, R (and L, the other server as localhost). */
  names: (s: string) => string;
  /** `C http://HOST:PORT` of every connection the run's clients asked for (filled in by the runners). */
  connects: string[];
  /** `NAME METHOD PATH` of every request the servers got so far, and the connections asked for. */
  requests: () => string[];
  close(): Promise<void>;
}

/** The default raw script: `/cut` declares 1000 bytes of body and closes after 20 (a failure after the head). */
export const cutShort: RawHandler = async (conn) => {
  const head = await conn.nextRequest();
  if (head?.startsWith('GET /cut ') === true) conn.socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\n<html><body>cut shor');
  else conn.socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
};

/** Starts the servers of `spec`. */
export async function startScenarioSites(spec: SiteSpec): Promise<ScenarioSites> {
  const raw = await startRaw(spec.raw ?? cutShort);
  // The other host's routes may name the site's origin: its routes are filled in once the site listens.
  const otherTable = new Map<string, Route>();
  const other = await startSite(otherTable);
  const mainTable = new Map<string, Route>();
  const main = await startSite(mainTable);
  const origins: Origins = { main: main.origin, other: other.origin, raw: raw.origin };
  for (const [k, v] of Object.entries(spec.routes(origins))) mainTable.set(k, v);
  for (const [k, v] of Object.entries(spec.otherRoutes?.(origins) ?? {})) otherTable.set(k, v);
  // L: the other server under a name outside the crawl's scope (localhost).
  const names = (s: string): string =>
    s.replaceAll(main.origin, 'H').replaceAll(other.origin, 'O').replaceAll(raw.origin, 'R').replaceAll(`http://localhost:${other.port}`, 'L');
  const rawRequests = (): string[] =>
    raw.connections.flatMap((c) => [...c.received().toString('latin1').matchAll(/^([A-Z]+) (\S+) HTTP\/1\.[01]\r$/gm)].map((m) => `R ${m[1] ?? ''} ${m[2] ?? ''}`));
  const connects: string[] = [];
  return {
    connects,
    main,
    other,
    raw,
    origins,
    seed: parseHttpUrl(`${main.origin}/`),
    scope: [main.origin, other.origin, raw.origin, ...(spec.moreScope ?? [])],
    names,
    requests: () => [...main.requests.map((r) => `H ${r.method} ${r.path}`), ...other.requests.map((r) => `O ${r.method} ${r.path}`), ...rawRequests(), ...connects],
    close: async () => {
      await Promise.all([main.close(), other.close(), raw.close()]);
    },
  };
}
