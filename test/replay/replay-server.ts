/**
 * ReplayWeb.page served on loopback, as its embedding guide says to self-host
 * it: an HTML page with the `<replay-web-page>` element, its `ui.js` and its
 * service worker `sw.js` (from npm `replaywebpage`, the built app) under
 * `/rwp/`, and the WACZ under test, with HTTP range requests, which the app
 * uses to read the index and single records out of the ZIP. Nothing comes
 * from a CDN: the element is pointed at these files. The service worker
 * needs an http origin, so this is a node:http server (tests may use it).
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { listen } from '../helpers/server-base.js';

/** The directory of the installed `replaywebpage` package, or undefined. */
export const REPLAYWEBPAGE_DIR: string | undefined = (() => {
  try {
    const dir = dirname(createRequire(import.meta.url).resolve('replaywebpage/index.html'));
    return existsSync(join(dir, 'ui.js')) && existsSync(join(dir, 'sw.js')) ? dir : undefined;
  } catch {
    return undefined;
  }
})();

/** Why replay tests are skipped here, or undefined when ReplayWeb.page is installed. */
export const replaySkipReason: string | undefined =
  REPLAYWEBPAGE_DIR === undefined ? 'replay tests need npm replaywebpage 2.4.6 (a devDependency: npm ci installs it)' : undefined;

export interface ReplayServer {
  origin: string;
  /** The embed page that opens `url` of the served WACZ (its capture at `ts`, 14 digits, when given). */
  embedUrl(url: string, ts?: string): string;
  close(): Promise<void>;
}

const escapeAttr = (s: string): string => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function embedPage(url: string, ts: string | undefined): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>replay</title>
<script src="/rwp/ui.js"></script>
<style>html, body { margin: 0; width: 100%; height: 100%; } replay-web-page { display: block; width: 100%; height: 100%; }</style>
</head><body>
<replay-web-page source="/archive.wacz" url="${escapeAttr(url)}"${ts === undefined ? '' : ` ts="${escapeAttr(ts)}"`} replayBase="/rwp/" embed="replayonly"></replay-web-page>
</body></html>
`;
}

/** Answers a GET or HEAD for `file`, honouring one `Range: bytes=a-b` (RFC 9110 §14). */
function sendFile(req: IncomingMessage, res: ServerResponse, file: string, type: string): void {
  const size = statSync(file).size;
  const headers: Record<string, string | number> = { 'content-type': type, 'accept-ranges': 'bytes', 'cache-control': 'no-store' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
  let start = 0;
  let end = size - 1;
  if (m !== null) {
    if (m[1] === '') start = Math.max(0, size - Number(m[2]));
    else {
      start = Number(m[1]);
      if (m[2] !== '') end = Math.min(end, Number(m[2]));
    }
    if (start > end || start >= size) {
      res.writeHead(416, { ...headers, 'content-range': `bytes */${size}` });
      res.end();
      return;
    }
    headers['content-range'] = `bytes ${start}-${end}/${size}`;
  }
  headers['content-length'] = end - start + 1;
  res.writeHead(m === null ? 200 : 206, headers);
  if (req.method === 'HEAD') res.end();
  else createReadStream(file, { start, end }).pipe(res);
}

/** Serves ReplayWeb.page and `waczPath` on 127.0.0.1 (a free port). */
export async function startReplayServer(waczPath: string): Promise<ReplayServer> {
  const app = REPLAYWEBPAGE_DIR;
  if (app === undefined) throw new Error(replaySkipReason);
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/embed.html') {
      const params = new URL(req.url ?? '/', 'http://x').searchParams;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(embedPage(params.get('url') ?? '', params.get('ts') ?? undefined));
    } else if (path === '/rwp/ui.js' || path === '/rwp/sw.js') {
      sendFile(req, res, join(app, path.slice('/rwp/'.length)), 'application/javascript');
    } else if (path === '/archive.wacz') {
      sendFile(req, res, waczPath, 'application/wacz');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  const listening = await listen(server, { host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${listening.port}`;
  return {
    origin,
    embedUrl: (url, ts) => `${origin}/embed.html?url=${encodeURIComponent(url)}${ts === undefined ? '' : `&ts=${ts}`}`,
    close: listening.close,
  };
}
