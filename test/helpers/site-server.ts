/**
 * A small HTTP server for tests, on loopback: serves a map of routes, counts
 * TCP connections, and records every request (path, headers, arrival time,
 * connection number) so tests can check politeness and keep-alive at the
 * server. Tests may use node:http here; only the crawl path may not.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { arrivalNow, watchArrivals, type Arrival } from './arrivals.js';

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
  server: Server;
  host: string;
  port: number;
  /** `http://host:port` */
  origin: string;
  requests: RecordedRequest[];
  connections: number;
  routes: Map<string, Route>;
  /** Paths requested, in order. */
  paths(): string[];
  close(): Promise<void>;
}

/** Starts a server on `host` (default 127.0.0.1) and a free port. Unknown paths answer 404. */
export async function startSite(routes: Record<string, Route> | Map<string, Route>, host = '127.0.0.1', port = 0): Promise<SiteServer> {
  const table = routes instanceof Map ? routes : new Map(Object.entries(routes));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const connIds = new WeakMap<Socket, number>();
  /** For a connection whose first request has not come yet: the earliest that request can have arrived. */
  const firstAfter = new WeakMap<Socket, number>();
  let connections = 0;
  const unwatch = watchArrivals();
  const server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
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
      connection: connIds.get(req.socket) ?? -1,
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
  });
  server.on('connection', (s: Socket) => {
    firstAfter.set(s, arrivalNow().after);
    connections++;
    connIds.set(s, connections);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.once('close', unwatch);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      unwatch();
      reject(err);
    });
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const site: SiteServer = {
    server,
    host,
    port: addr.port,
    origin: `http://${host}:${addr.port}`,
    requests,
    get connections() {
      return connections;
    },
    routes: table,
    paths: () => requests.map((r) => r.path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  return site;
}

/** An HTML page linking to `links` (double-quoted `<a href>`, one per line). */
export function page(title: string, links: string[] = [], extra = ''): string {
  return `<html><head><title>${title}</title></head><body>\n<h1>${title}</h1>\n${links
    .map((l) => `<a href="${l}">${l}</a>`)
    .join('\n')}\n${extra}\n</body></html>\n`;
}
