/**
 * The built-in static file server the benchmark uses when nginx is not
 * installed: node:http, keep-alive without a request cap, the query ignored
 * (like nginx), Content-Length always, 404 for a missing file, no cache of
 * its own (the OS page cache holds the files). Run it as its
 * own process so that it does not share an event loop with the measuring
 * code: `node dist/bench/static-server.js ROOT PORT [HOST]`; it prints
 * "listening PORT" on stdout once ready.
 *
 * With `validators` (`--validators` for the process), it sends each file's
 * validators as nginx does (ETag from its size and modification time,
 * Last-Modified) and answers a conditional GET whose validators still hold
 * with 304 and no body (RFC 9110 §13.2.2: If-None-Match decides when
 * present, else If-Modified-Since), so a refresh (crawler --since) can be
 * measured against it. `onBody` counts the body bytes sent.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
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
export interface StaticServerOptions {
  /** Send ETag and Last-Modified, and answer a conditional GET with 304 when they still hold (default off). */
  validators?: boolean;
  /** Told each answer: the path, its status, and the body bytes sent (0 for a 304). */
  onBody?: (path: string, status: number, bytes: number) => void;
}

/** The validators of a file: an ETag from its size and modification time (as nginx makes it), and its Last-Modified. */
export function fileValidators(file: string): { etag: string; lastModified: string; mtimeMs: number } {
  const st = statSync(file);
  return { etag: `"${st.size.toString(16)}-${Math.floor(st.mtimeMs * 1000).toString(16)}"`, lastModified: new Date(st.mtimeMs).toUTCString(), mtimeMs: st.mtimeMs };
}

/** Whether a GET with these conditional header fields is answered 304 (RFC 9110 §13.2.2). */
export function notModified(req: { headers: Record<string, string | string[] | undefined> }, v: { etag: string; mtimeMs: number }): boolean {
  const inm = req.headers['if-none-match'];
  if (typeof inm === 'string') return inm.split(',').some((t) => t.trim().replace(/^W\//, '') === v.etag || t.trim() === '*');
  const ims = req.headers['if-modified-since'];
  if (typeof ims !== 'string') return false;
  const since = Date.parse(ims);
  // HTTP dates have whole seconds: a file modified within the second named is modified since.
  return !Number.isNaN(since) && Math.floor(v.mtimeMs / 1000) * 1000 <= since;
}

export function staticServer(root: string, options: StaticServerOptions = {}): Server {
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
      const v = options.validators === true ? fileValidators(file) : undefined;
      const validators = v === undefined ? {} : { etag: v.etag, 'last-modified': v.lastModified };
      if (v !== undefined && notModified(req, v)) {
        res.writeHead(304, validators);
        res.end();
        options.onBody?.(path, 304, 0);
        return;
      }
      res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': body.length, ...validators });
      res.end(req.method === 'HEAD' ? undefined : body);
      options.onBody?.(path, 200, req.method === 'HEAD' ? 0 : body.length);
    } catch {
      const body = '<html><body><h1>404 Not Found</h1></body></html>\n';
      res.writeHead(404, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
      options.onBody?.(path, 404, req.method === 'HEAD' ? 0 : Buffer.byteLength(body));
    }
  });
  server.keepAliveTimeout = 60_000;
  server.maxRequestsPerSocket = 0;
  server.headersTimeout = 60_000;
  return server;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const validators = args.includes('--validators');
  const [root, portText, host = '127.0.0.1'] = args.filter((a) => a !== '--validators');
  if (root === undefined || portText === undefined) {
    console.error('usage: static-server [--validators] ROOT PORT [HOST]');
    process.exit(2);
  }
  const server = staticServer(root, { validators });
  server.listen(Number(portText), host, () => console.log(`listening ${portText}`));
  const stop = (): void => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
