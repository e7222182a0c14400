/**
 * An https test server on loopback for KeywordHunter's TLS tests, with the
 * committed self-signed certificate in test/fixtures/kh-tls/ (valid for 100
 * years, for localhost and 127.0.0.1). KeywordHunter must be run with
 * --insecure to accept it: the certificate is self-signed. Records requests
 * like test/helpers/site-server.ts. (Tests may use node:https; only the crawl
 * path may not.)
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { PROJECT_ROOT } from './conformance.js';
import type { Route } from './site-server.js';

export const TLS_FIXTURE_DIR = join(PROJECT_ROOT, 'test', 'fixtures', 'kh-tls');

export interface TlsSite {
  server: Server;
  host: string;
  port: number;
  requests: Array<{ path: string; connection: number; headers: Record<string, string | string[] | undefined> }>;
  /** TLS connections accepted (handshakes completed). */
  connections: number;
  paths(): string[];
  close(): Promise<void>;
}

export async function startTlsSite(routes: Record<string, Route>, host = '127.0.0.1'): Promise<TlsSite> {
  const requests: TlsSite['requests'] = [];
  const sockets = new Set<TLSSocket>();
  const ids = new WeakMap<object, number>();
  let connections = 0;
  const server = createServer(
    { key: readFileSync(join(TLS_FIXTURE_DIR, 'key.pem')), cert: readFileSync(join(TLS_FIXTURE_DIR, 'cert.pem')), keepAliveTimeout: 5000 },
    (req, res) => {
      requests.push({ path: req.url ?? '', connection: ids.get(req.socket) ?? -1, headers: req.headers });
      const route = routes[req.url ?? ''];
      if (route === undefined) {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('not found');
        return;
      }
      res.writeHead(route.status ?? 200, { 'content-type': 'text/html', ...route.headers });
      res.end(route.body ?? '');
    },
  );
  server.on('secureConnection', (s: TLSSocket) => {
    connections++;
    ids.set(s, connections);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    host,
    port,
    requests,
    get connections() {
      return connections;
    },
    paths: () => requests.map((r) => r.path),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
