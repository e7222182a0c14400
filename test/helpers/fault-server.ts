/**
 * A fault-injecting HTTP server on raw node:net, for the hostile-network
 * tests (hostile-crawler, hostile-keyword-hunter and bad-input-requests,
 * under test/e2e-*).
 *
 * Ordinary pages (`server.page(target, html)`) are answered with a proper
 * Content-Length on a kept-alive connection. A target under `/f/NAME`
 * misbehaves as FAULTS[NAME] says (http-faults.ts); `/trap/...`, `/long/...`
 * and `/calendar?page=N` are endless crawler traps; anything else is 404
 * (robots.txt included, which both programs read as "allow all").
 *
 * Every request head is recorded byte for byte (`requests`, see
 * request-heads.ts), so tests can check what reached the wire. Bounded:
 * streams stop when the peer goes or at their cap, and close() clears every
 * timer and destroys every socket. Listens and closes through
 * server-base.ts.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { FAULTS, HTML_TYPE, responseHead, trapPage } from './http-faults.js';
import { requestFromHead, type FaultRequest } from './request-heads.js';
import { fixedPortCandidate } from './refused-port.js';
import { listen, type Listening } from './server-base.js';

export interface StaticPage {
  status?: number;
  /** Extra header lines ("Name: value"); Content-Type defaults to text/html. */
  headers?: string[];
  body: string | Buffer;
}

/** What a fault handler may do with the connection it was given. */
export interface FaultContext {
  socket: Socket;
  req: FaultRequest;
  /** Write bytes; false when the socket is gone. */
  write(data: string | Buffer): boolean;
  /** Sends a TCP RST (not a FIN). */
  reset(): void;
  /** A one-shot timer, cleared on close. */
  later(ms: number, fn: () => void): void;
  /** A repeating timer, cleared on close or when the socket closes. */
  every(ms: number, fn: () => void): void;
  /** Streams `chunk` repeatedly (with backpressure) until `total` bytes or the peer goes; then `done(bytesWritten)`. */
  stream(chunk: Buffer, total: number, done?: (written: number) => void): void;
  /** Go on reading requests on this connection (the fault answered in full); `prefix` is written before the next answer. */
  keepReading(prefix?: string): void;
  server: FaultServer;
}

export type FaultHandler = (ctx: FaultContext) => void;

export interface FaultServer {
  host: string;
  port: number;
  origin: string;
  /** `origin + target`. */
  url(target: string): string;
  requests: FaultRequest[];
  /** Request targets, in order. */
  targets(): string[];
  /** How many requests had a target starting with `prefix`. */
  hits(prefix: string): number;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Bytes a streaming fault wrote before the peer went (by request target). */
  streamed: Map<string, number>;
  /** Bytes received on each connection (by connection number): all of them should be request heads. */
  bytesIn: Map<number, number>;
  /** Answers targets that are neither pages, faults nor traps (default: none, so 404). */
  fallback: ((target: string) => StaticPage | undefined) | undefined;
  /** Serves `body` (HTML unless headers say otherwise) at exactly `target`. */
  page(target: string, body: string | Buffer, options?: Omit<StaticPage, 'body'>): void;
  /**
   * Stops listening now (connections are refused) and listens again on the
   * same port after `ms`. Only on a server started with `{ refusable: true }`,
   * whose port nothing else can be given meanwhile (refused-port.ts).
   */
  refuseFor(ms: number): void;
  /** Resolves when a request with this target has arrived (or after `ms`). */
  waitFor(target: string, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Starts a fault server on `host` (default 127.0.0.1) and a free port; with
 * `refusable`, on a free port below the kernel's ephemeral range, so that
 * refuseFor can give it up for a while and get it back.
 */
export async function startFaultServer(host = '127.0.0.1', options: { refusable?: boolean } = {}): Promise<FaultServer> {
  const pages = new Map<string, StaticPage>();
  const requests: FaultRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();
  const bytesIn = new Map<number, number>();

  const listener = createServer((socket: Socket): void => {
    const conn = listening.connectionOf(socket) as number;
    let buf: Buffer = Buffer.alloc(0);
    let reading = true;
    let prefix: string | undefined;
    const mine = new Set<NodeJS.Timeout>();
    socket.on('close', () => {
      for (const t of mine) {
        clearTimeout(t);
        clearInterval(t);
        timers.delete(t);
      }
    });
    const track = (t: NodeJS.Timeout): void => {
      timers.add(t);
      mine.add(t);
    };
    const pump = (): void => {
      while (reading) {
        const end = buf.indexOf('\r\n\r\n');
        if (end === -1) return;
        const raw = Buffer.from(buf.subarray(0, end + 4));
        buf = buf.subarray(end + 4);
        const req = requestFromHead(raw, conn);
        requests.push(req);
        for (const w of [...waiters]) w();
        answer(req);
      }
    };
    const answer = (req: FaultRequest): void => {
      const ctx: FaultContext = {
        socket,
        req,
        server,
        write: (data) => (socket.destroyed ? false : socket.write(data)),
        reset: () => {
          if (!socket.destroyed) socket.resetAndDestroy();
        },
        later: (ms, fn) => {
          const t = setTimeout(() => {
            timers.delete(t);
            mine.delete(t);
            if (!socket.destroyed) fn();
          }, ms);
          track(t);
        },
        every: (ms, fn) => {
          const t = setInterval(() => {
            if (socket.destroyed) {
              clearInterval(t);
              return;
            }
            fn();
          }, ms);
          track(t);
        },
        stream: (chunk, total, done) => {
          let written = 0;
          const step = (): void => {
            while (!socket.destroyed && written < total) {
              written += chunk.length;
              if (!socket.write(chunk)) {
                socket.once('drain', step);
                return;
              }
            }
            if (!socket.destroyed) socket.end();
          };
          socket.once('close', () => done?.(written));
          step();
        },
        keepReading: (before) => {
          prefix = before;
          reading = true;
          setImmediate(pump);
        },
      };
      if (prefix !== undefined) {
        socket.write(prefix);
        prefix = undefined;
      }
      const target = req.target;
      const fixed = pages.get(target) ?? server.fallback?.(target);
      if (fixed !== undefined) {
        const body = typeof fixed.body === 'string' ? Buffer.from(fixed.body, 'utf8') : fixed.body;
        const extra = fixed.headers ?? [];
        const lines = extra.some((l) => /^content-type:/i.test(l)) ? extra : [HTML_TYPE, ...extra];
        socket.write(responseHead(`${fixed.status ?? 200} ${fixed.status === undefined || fixed.status === 200 ? 'OK' : 'Status'}`, [...lines, `Content-Length: ${body.length}`]));
        socket.write(body);
        return;
      }
      const m = /^\/f\/([a-z0-9-]+)/.exec(target);
      const fault = m === null ? undefined : FAULTS[m[1] as string];
      if (fault !== undefined) {
        reading = false; // the fault decides whether the connection reads on
        fault.handle(ctx);
        return;
      }
      const generated = trapPage(target);
      const body = generated ?? '<html><body>not found</body></html>\n';
      socket.write(responseHead(generated === undefined ? '404 Not Found' : '200 OK', [HTML_TYPE, `Content-Length: ${Buffer.byteLength(body)}`]) + body);
    };
    socket.on('data', (d: Buffer) => {
      bytesIn.set(conn, (bytesIn.get(conn) ?? 0) + d.length);
      buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
      if (buf.length > 1024 * 1024) socket.destroy(); // no request head is that long
      pump();
    });
  });
  const listening = options.refusable === true ? await listenOnFixedPort(listener, host) : await listen(listener, { host });
  const port = listening.port;

  const server: FaultServer = {
    host,
    port,
    origin: `http://${host}:${port}`,
    url: (target) => `http://${host}:${port}${target}`,
    requests,
    targets: () => requests.map((r) => r.target),
    hits: (prefix) => requests.filter((r) => r.target.startsWith(prefix)).length,
    get connections() {
      return listening.connections;
    },
    streamed: new Map(),
    bytesIn,
    fallback: undefined,
    page: (target, body, options = {}) => void pages.set(target, { ...options, body }),
    refuseFor: (ms) => {
      if (options.refusable !== true) throw new Error('refuseFor needs a server started with { refusable: true }');
      listening.stopListening();
      const t = setTimeout(() => {
        timers.delete(t);
        listening.listenAgain().catch((err: Error) => process.stderr.write(`# fault server: cannot listen again on ${host}:${port}: ${err.message}\n`));
      }, ms);
      timers.add(t);
    },
    waitFor: (target, ms) =>
      new Promise<boolean>((resolve) => {
        const check = (): void => {
          if (!requests.some((r) => r.target === target)) return;
          finish(true);
        };
        const finish = (v: boolean): void => {
          waiters.delete(check);
          clearTimeout(t);
          timers.delete(t);
          resolve(v);
        };
        const t = setTimeout(() => finish(false), ms);
        timers.add(t);
        waiters.add(check);
        check();
      }),
    close: () => {
      for (const t of timers) {
        clearTimeout(t);
        clearInterval(t);
      }
      timers.clear();
      return listening.close();
    },
  };
  return server;
}

/** Listens on a port from fixedPortCandidate(), trying others while they are in use. */
async function listenOnFixedPort(listener: Server, host: string): Promise<Listening> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await listen(listener, { host, port: fixedPortCandidate() });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 20) throw err;
    }
  }
}
