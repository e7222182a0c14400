/**
 * A small HTTP (or HTTPS) server for tests, on loopback: serves a map of
 * routes, counts connections, and records every request (path, headers,
 * arrival time, connection number) so tests can check politeness and
 * keep-alive at the server. Listens and closes through server-base.ts.
 * Tests may use node:http and node:https here; only the crawl path may not.
 *
 * startTlsSite serves over TLS with the committed self-signed certificate
 * in test/fixtures/kh-tls/ (valid for 100 years, for localhost and
 * 127.0.0.1): KeywordHunter must be run with --insecure to accept it.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import { join } from 'node:path';
import { PROJECT_ROOT } from './conformance.js';
import { arrivalNow, watchArrivals, type Arrival } from './arrivals.js';
import { listen, type Listening } from './server-base.js';

export interface Route {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Full control: write the response yourself. */
  handle?: (req: IncomingMessage, res: ServerResponse) => void;
}

/** `at` and `after` (performance.now() ms): when it was noted, and the earliest it can have arrived (see arrivals.ts). */
export interface RecordedRequest extends Arrival {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  connection: number;
}

export interface SiteServer {
  server: Server | TlsServer;
  host: string;
  port: number;
  /** `http://host:port` (`https:` over TLS) */
  origin: string;
  requests: RecordedRequest[];
  /** Connections accepted (over TLS: handshakes completed). */
  readonly connections: number;
  routes: Map<string, Route>;
  /** Paths requested, in order. */
  paths(): string[];
  close(): Promise<void>;
}

/** The self-signed test certificate and its key. */
export const TLS_FIXTURE_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'kh-tls');

/** Starts a server on `host` (default 127.0.0.1) and `port` (default a free one). Unknown paths answer 404. */
export async function startSite(
  routes: Record<string, Route> | Map<string, Route>,
  host = '127.0.0.1',
  port = 0,
  options: { tls?: boolean } = {},
): Promise<SiteServer> {
  const table = routes instanceof Map ? routes : new Map(Object.entries(routes));
  const requests: RecordedRequest[] = [];
  /** For a connection whose first request has not come yet: the earliest that request can have arrived. */
  const firstAfter = new WeakMap<object, number>();
  const unwatch = watchArrivals();
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const { at, after } = arrivalNow();
    const accepted = firstAfter.get(req.socket);
    firstAfter.delete(req.socket);
    requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      at,
      after: accepted === undefined ? after : Math.min(accepted, after),
      connection: listening.connectionOf(req.socket) ?? -1,
    });
    const route = table.get(req.url ?? '');
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>not found</body></html>');
      return;
    }
    if (route.handle !== undefined) {
      route.handle(req, res);
      return;
    }
    res.writeHead(route.status ?? 200, { 'content-type': 'text/html', ...route.headers });
    res.end(route.body ?? '');
  };
  const server =
    options.tls === true
      ? createTlsServer(
          { key: readFileSync(join(TLS_FIXTURE_DIR, 'key.pem')), cert: readFileSync(join(TLS_FIXTURE_DIR, 'cert.pem')), keepAliveTimeout: 5000 },
          answer,
        )
      : createServer({ keepAliveTimeout: 5000 }, answer);
  if (options.tls === true) server.on('tlsClientError', () => undefined);
  // The first request of a connection can have come as soon as it was accepted (see arrivals.ts).
  server.on('connection', (s: object) => firstAfter.set(s, arrivalNow().after));
  server.once('close', unwatch);
  let listening: Listening;
  try {
    listening = await listen(server, { host, port, countOn: options.tls === true ? 'secureConnection' : 'connection' });
  } catch (err) {
    unwatch();
    throw err;
  }
  return {
    server,
    host,
    port: listening.port,
    origin: `${options.tls === true ? 'https' : 'http'}://${host}:${listening.port}`,
    requests,
    get connections() {
      return listening.connections;
    },
    routes: table,
    paths: () => requests.map((r) => r.path),
    close: listening.close,
  };
}

/** startSite over TLS, with the self-signed test certificate. */
export function startTlsSite(routes: Record<string, Route> | Map<string, Route>, host = '127.0.0.1'): Promise<SiteServer> {
  return startSite(routes, host, 0, { tls: true });
}

/** An HTML page linking to `links` (double-quoted `<a href>`, one per line). */
export function page(title: string, links: string[] = [], extra = ''): string {
  return `<html><head><title>${title}</title></head><body>\n<h1>${title}</h1>\n${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join('\n')}\n${extra}\n</body></html>\n`;
}
