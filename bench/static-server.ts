/**
 * The built-in static file server the benchmark uses when nginx is not
 * installed: node:http, keep-alive without a request cap, the query ignored
 * (like nginx), Content-Length always, 404 for a missing file, no cache of
 * its own (the OS page cache holds the files). Run it as its
 * own process so that it does not share an event loop with the measuring
 * code: `node dist/bench/static-server.js ROOT PORT [HOST]`; it prints
 * "listening PORT" on stdout once ready.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.txt': 'text/plain',
  '.png': 'image/png',
  '.pdf': 'application/pdf',
  '.css': 'text/css',
  '.js': 'application/javascript',
  '.xml': 'application/xml',
};

/**
 * A static server for `root` (not yet listening). Files are read on each
 * request, synchronously: from the page cache that is a few microseconds,
 * where the thread pool's four round trips per readFile (open, stat, read,
 * close) cost more than the read, most of all on a busy machine.
 */
export function staticServer(root: string): Server {
  const server = createServer((req, res) => {
    const raw = (req.url ?? '/').split('?')[0]!.split('#')[0]!;
    let path: string;
    try {
      path = decodeURIComponent(raw);
    } catch {
      path = raw;
    }
    if (path.endsWith('/')) path += 'index.html';
    const file = join(root, normalize(path).replace(/^(\.\.[/\\])+/, ''));
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      const body = '<html><body><h1>404 Not Found</h1></body></html>\n';
      res.writeHead(404, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    }
  });
  server.keepAliveTimeout = 60_000;
  server.maxRequestsPerSocket = 0;
  server.headersTimeout = 60_000;
  return server;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [root, portText, host = '127.0.0.1'] = process.argv.slice(2);
  if (root === undefined || portText === undefined) {
    console.error('usage: static-server ROOT PORT [HOST]');
    process.exit(2);
  }
  const server = staticServer(root);
  server.listen(Number(portText), host, () => console.log(`listening ${portText}`));
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
