/**
 * A broad site for tests: `hosts` loopback addresses from 127.0.1.1 up
 * (127.0.1.1 ... 127.0.1.255, 127.0.2.0 ...: all of 127.0.0.0/8 is
 * loopback on Linux), one raw node:net server on each, all on one port.
 * Each host serves a chain of `pages` pages (/p0 links /p1, ... up to
 * /p{pages-1}) and a 404 for robots.txt; the first host's `/` (the hub)
 * links to every host's /p0. Answers are keep-alive HTTP/1.1 written as
 * literal bytes. The connections open at once, across all hosts, are
 * counted at the servers (open-connections.ts).
 */
import { createServer, type Server, type Socket } from 'node:net';
import { openConnections, type OpenConnections } from './open-connections.js';
import { listen, type Listening } from './server-base.js';

export interface ManyHosts {
  port: number;
  /** The hosts' addresses, 127.0.1.1 first. */
  hosts: string[];
  /** `http://host:port` of each host. */
  origins: string[];
  /** The hub page: `origins[0]/`. */
  hub: string;
  /** Every page URL the site has, hub included. */
  pageUrls: string[];
  /** Connections open at once, across all hosts. */
  connections: OpenConnections;
  /** Requests answered, robots.txt included. */
  readonly requests: number;
  close(): Promise<void>;
}

/** The k-th address from 127.0.1.1 up (k from 0). */
export function loopbackHost(k: number): string {
  const n = 257 + k; // 127.0.1.1 is 127.0.0.0 + 257
  if (n > 0xffffff) throw new RangeError(`no loopback address number ${k}`);
  return `127.${n >>> 16}.${(n >>> 8) & 0xff}.${n & 0xff}`;
}

function answer(status: string, body: string): string {
  return `HTTP/1.1 ${status}\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** Starts the site (see the module comment); a port taken on one address makes it try another port. */
export async function startManyHosts(options: { hosts: number; pages: number }): Promise<ManyHosts> {
  const hosts = Array.from({ length: options.hosts }, (_, k) => loopbackHost(k));
  const connections = openConnections();
  let requests = 0;
  const serve = (socket: Socket, host: string, port: number): void => {
    let buf = '';
    socket.setEncoding('latin1');
    socket.on('error', () => undefined);
    socket.on('data', (chunk: string) => {
      buf += chunk;
      for (let end = buf.indexOf('\r\n\r\n'); end !== -1; end = buf.indexOf('\r\n\r\n')) {
        const path = buf.slice(0, end).split(' ')[1] ?? '';
        buf = buf.slice(end + 4);
        requests++;
        socket.write(pageAt(host, port, path));
      }
    });
  };
  const pageAt = (host: string, port: number, path: string): string => {
    if (host === hosts[0] && path === '/') return answer('200 OK', `<html><body>\n${hosts.map((h) => `<a href="http://${h}:${port}/p0">${h}</a>`).join('\n')}\n</body></html>\n`);
    const m = /^\/p([0-9]+)$/.exec(path);
    const p = m === null ? -1 : Number(m[1]);
    if (p < 0 || p >= options.pages) return answer('404 Not Found', '<html><body>not found</body></html>');
    const next = p + 1 < options.pages ? `<a href="/p${p + 1}">next</a>` : 'the end';
    return answer('200 OK', `<html><body><h1>${host} page ${p}</h1>${next}</body></html>\n`);
  };

  for (let attempt = 1; ; attempt++) {
    const started: Listening[] = [];
    try {
      let port = 0;
      for (const host of hosts) {
        const server: Server = createServer((socket) => serve(socket, host, port));
        connections.watch(server);
        const listening = await listen(server, { host, port });
        started.push(listening);
        port = listening.port;
      }
      const origins = hosts.map((h) => `http://${h}:${port}`);
      return {
        port,
        hosts,
        origins,
        hub: `${origins[0]}/`,
        pageUrls: [`${origins[0]}/`, ...origins.flatMap((o) => Array.from({ length: options.pages }, (_, p) => `${o}/p${p}`))],
        connections,
        get requests() {
          return requests;
        },
        close: async () => void (await Promise.all(started.map((l) => l.close()))),
      };
    } catch (err) {
      await Promise.all(started.map((l) => l.close()));
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw err;
    }
  }
}
