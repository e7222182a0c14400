/**
 * A fault-injecting HTTP server on raw node:net, for the hostile-network
 * tests (test/reliability/hostile-*.test.ts, bad-input-*.test.ts).
 *
 * Ordinary pages (`server.page(target, html)`) are answered with a proper
 * Content-Length on a kept-alive connection. A target under `/f/NAME`
 * misbehaves as FAULTS[NAME] says; `/trap/...`, `/long/...` and
 * `/calendar?page=N` are endless crawler traps; anything else is 404
 * (robots.txt included, which both programs read as "allow all").
 *
 * Every request head is recorded byte for byte (`requests`), so tests can
 * check what reached the wire. Bounded: streams stop when the peer goes or
 * at their cap, and close() clears every timer and destroys every socket.
 *
 * Also here, for the same tests: `runMeasured` (run a program under GNU
 * time for its peak RSS and wall time), parsers for KeywordHunter's output,
 * and file-system faults (tmpfs mounts to fill or make read-only, running
 * as nobody so that permissions bind for root).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statfsSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT } from './conformance.js';
import type { RunResult } from './spawn.js';

/** One request head as the server received it. */
export interface FaultRequest {
  /** Connection number, from 1. */
  conn: number;
  /** The head's bytes, request line to the blank line, exactly as received. */
  raw: Buffer;
  /** The first line (latin1), without CRLF. */
  requestLine: string;
  method: string;
  /** The request target as sent. */
  target: string;
  /** Header lines after the request line (latin1), without CRLF. */
  headerLines: string[];
  /** performance.now() at arrival. */
  at: number;
}

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

/** 100 MiB: the size of the streamed huge bodies. */
export const HUGE = 100 * 1024 * 1024;

/** Short timeouts and small caps for both programs, so that every fault is met within a second or so. */
export const FAULT_FLAGS: readonly string[] = [
  '--connect-timeout', '1',
  '--idle-timeout', '0.5',
  '--response-timeout', '1.5',
  '--max-header-bytes', '8192',
  '--max-body-bytes', '1048576',
  '--max-redirects', '3',
];
/**
 * No run may take longer than this. The faults' timeouts add up to about
 * 3 s and a run takes 2 to 4 s on an idle machine; the bound is loose
 * because the test machine may be busy. FAULT_MS (time from the faulty
 * request to the next one, at the server) is the tight bound.
 */
export const FAULT_WALL_MS = 30_000;
/** The longest a fault may hold a run: the 1.5 s response timeout plus slack for a busy machine (the defaults are 15 s and 30 s). */
export const FAULT_MS = 5_000;
/** Peak resident memory a run under faults must stay below. */
export const FAULT_RSS_BOUND_KIB = 150 * 1024;

const HTML = 'Content-Type: text/html';

function head(status: string, lines: string[]): string {
  return `HTTP/1.1 ${status}\r\n${lines.map((l) => l + '\r\n').join('')}\r\n`;
}

/** A small HTML page linking to `links`, one per line. */
export function html(title: string, links: string[] = [], extra = ''): string {
  return `<html><head><title>${title}</title></head><body>\n${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}\n${extra}</body></html>\n`;
}

/** Every byte value, then a link, then invalid UTF-8: a page that is not text. */
export const BINARY_HTML = Buffer.concat([
  Buffer.from('<html><body>\n'),
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from('\n<a href="/good/binary-html">next</a>\n'),
  Buffer.from([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x90, 0x28, 0xbc, 0xff, 0xfe, 0x00, 0x0a]),
  Buffer.from('</body></html>\n'),
]);

/** A latin1 page (not valid UTF-8) that declares its charset. */
export const LATIN1_HTML = Buffer.from('<html><body>\nCaf\xe9 cr\xe8me br\xfbl\xe9e \xff\xfe\n<a href="/good/latin1">next</a>\n</body></html>\n', 'latin1');

/** 4 KiB of pseudo-random bytes, NULs included. */
export const RANDOM_BYTES = (() => {
  const b = Buffer.alloc(4096);
  let x = 12345;
  for (let i = 0; i < b.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x >> 16;
  }
  return b;
})();

/** The final page after the 1xx responses. */
export const INTERIM_FINAL = html('final after 1xx', ['/good/after-interim']);
/** The declared body of length-under, and what follows it on the wire. */
export const SHORT_BODY = '<html><body>short</body></html>\n';
export const SMUGGLED =
  'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 53\r\n\r\n<html><body><a href="/smuggled">x</a></body></html>\n';

/** The faults, by name: each is reached at `/f/NAME` (anything after NAME is ignored unless the fault reads it). */
export const FAULTS: Record<string, { what: string; handle: FaultHandler }> = {
  'refuse-after-reset': {
    what: 'stops listening for 1 s and resets the connection: the client\'s retry on a fresh connection is refused (use a server of its own)',
    handle: (c) => {
      c.server.refuseFor(1000);
      c.reset();
    },
  },
  'reset-before': {
    what: 'RST as soon as the request arrives, before any byte of the response',
    handle: (c) => c.reset(),
  },
  'reset-in-headers': {
    what: 'half a header section, then RST',
    handle: (c) => {
      c.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Le');
      c.later(30, () => c.reset());
    },
  },
  'reset-after-headers': {
    what: 'complete headers (Content-Length 1000), 100 bytes of body, then RST',
    handle: (c) => {
      c.write(head('200 OK', [HTML, 'Content-Length: 1000']) + 'x'.repeat(100));
      c.later(30, () => c.reset());
    },
  },
  silent: {
    what: 'accepts the request and never answers',
    handle: () => undefined,
  },
  drip: {
    what: 'one byte a second, forever (inside the header section)',
    handle: (c) => {
      c.write('HTTP/1.1 200 OK\r\nX-Drip: ');
      c.every(1000, () => c.write('a'));
    },
  },
  'drip-fast': {
    what: 'valid headers, then one body byte every 50 ms, forever (close-delimited body)',
    handle: (c) => {
      c.write(head('200 OK', [HTML]));
      c.every(50, () => c.write('a'));
    },
  },
  'length-over': {
    what: 'Content-Length 100 but 10 bytes of body, then FIN',
    handle: (c) => {
      c.write(head('200 OK', [HTML, 'Content-Length: 100']) + '<html>0123');
      c.socket.end();
    },
  },
  'length-under': {
    what: 'Content-Length shorter than the body: the rest is a second, smuggled response in the same write',
    handle: (c) => {
      c.write(head('200 OK', [HTML, `Content-Length: ${SHORT_BODY.length}`]) + SHORT_BODY + SMUGGLED);
      c.keepReading();
    },
  },
  'length-under-late': {
    what: 'Content-Length shorter than the body: the smuggled rest arrives 50 ms later, on a kept-alive connection',
    handle: (c) => {
      c.write(head('200 OK', [HTML, `Content-Length: ${SHORT_BODY.length}`]) + SHORT_BODY);
      c.later(50, () => {
        c.write(SMUGGLED);
        c.keepReading();
      });
    },
  },
  'length-under-split': {
    what: 'Content-Length shorter than the body; 50 ms later (connection idle) the first half of a smuggled response, its second half just before the next answer',
    handle: (c) => {
      c.write(head('200 OK', [HTML, `Content-Length: ${SHORT_BODY.length}`]) + SHORT_BODY);
      const cut = SMUGGLED.indexOf('\r\n\r\n') + 12;
      c.later(50, () => {
        c.write(SMUGGLED.slice(0, cut));
        c.keepReading(SMUGGLED.slice(cut));
      });
    },
  },
  'bad-chunk': {
    what: 'Transfer-Encoding: chunked with the chunk size "zz"',
    handle: (c) => {
      c.write(head('200 OK', [HTML, 'Transfer-Encoding: chunked']) + 'zz\r\nhello\r\n0\r\n\r\n');
      c.keepReading();
    },
  },
  'header-flood': {
    what: 'header lines without end (1 KiB each), until the peer goes or 100 MiB',
    handle: (c) => {
      c.write('HTTP/1.1 200 OK\r\n');
      c.stream(Buffer.from(`X-Flood: ${'f'.repeat(1012)}\r\n`), HUGE, (n) => c.server.streamed.set(c.req.target, n));
    },
  },
  'body-length-huge': {
    what: 'Content-Length: 104857600, then the 100 MiB streamed',
    handle: (c) => {
      c.write(head('200 OK', [HTML, `Content-Length: ${HUGE}`]));
      c.stream(Buffer.alloc(64 * 1024, 0x61), HUGE, (n) => c.server.streamed.set(c.req.target, n));
    },
  },
  'body-chunked-huge': {
    what: 'a chunked body of 100 MiB in 64 KiB chunks, streamed as fast as the peer reads',
    handle: (c) => {
      c.write(head('200 OK', [HTML, 'Transfer-Encoding: chunked']));
      const data = Buffer.alloc(64 * 1024, 0x62);
      c.stream(Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]), HUGE, (n) =>
        c.server.streamed.set(c.req.target, n),
      );
    },
  },
  'body-close-huge': {
    what: 'a close-delimited body of 100 MiB',
    handle: (c) => {
      c.write(head('200 OK', [HTML, 'Connection: close']));
      c.stream(Buffer.alloc(64 * 1024, 0x63), HUGE, (n) => c.server.streamed.set(c.req.target, n));
    },
  },
  garbage: {
    what: 'an SSH banner and random bytes instead of a status line',
    handle: (c) => {
      c.write(Buffer.concat([Buffer.from('SSH-2.0-OpenSSH_9.6\r\n'), RANDOM_BYTES]));
      c.keepReading();
    },
  },
  interim: {
    what: '100 Continue and 103 Early Hints before the final 200',
    handle: (c) => {
      c.write('HTTP/1.1 100 Continue\r\n\r\n');
      c.later(20, () => {
        c.write(head('103 Early Hints', ['Link: </style.css>; rel=preload; as=style']));
        c.later(20, () => {
          c.write(head('200 OK', [HTML, `Content-Length: ${Buffer.byteLength(INTERIM_FINAL)}`]) + INTERIM_FINAL);
          c.keepReading();
        });
      });
    },
  },
  'redirect-chain': {
    what: '/f/redirect-chain/N answers 302 to /f/redirect-chain/N+1, without end',
    handle: (c) => {
      const n = Number(/\/(\d+)$/.exec(c.req.target)?.[1] ?? 0);
      c.write(head('302 Found', [`Location: /f/redirect-chain/${n + 1}`, 'Content-Length: 0']));
      c.keepReading();
    },
  },
  'loop-a': {
    what: '302 to /f/loop-b (which redirects back here)',
    handle: (c) => {
      c.write(head('302 Found', ['Location: /f/loop-b', 'Content-Length: 0']));
      c.keepReading();
    },
  },
  'loop-b': {
    what: '302 to /f/loop-a',
    handle: (c) => {
      c.write(head('302 Found', ['Location: /f/loop-a', 'Content-Length: 0']));
      c.keepReading();
    },
  },
  'to-ftp': {
    what: '301 to an ftp: URL',
    handle: (c) => {
      c.write(head('301 Moved Permanently', ['Location: ftp://127.0.0.1/pub/file.html', 'Content-Length: 0']));
      c.keepReading();
    },
  },
  'relative-redirect': {
    what: '/f/relative-redirect/from answers 302 with the relative Location "target" (so /f/relative-redirect/target)',
    handle: (c) => {
      if (c.req.target.endsWith('/target')) {
        const body = html('relative redirect target', ['/good/relative-redirect-2']);
        c.write(head('200 OK', [HTML, `Content-Length: ${body.length}`]) + body);
      } else c.write(head('302 Found', ['Location: target', 'Content-Length: 0']));
      c.keepReading();
    },
  },
  binary: {
    what: 'application/octet-stream, 4 KiB of random bytes',
    handle: (c) => {
      c.write(head('200 OK', ['Content-Type: application/octet-stream', `Content-Length: ${RANDOM_BYTES.length}`]));
      c.write(RANDOM_BYTES);
      c.keepReading();
    },
  },
  'binary-html': {
    what: 'text/html whose body holds every byte value and invalid UTF-8, with a link',
    handle: (c) => {
      c.write(head('200 OK', [HTML, `Content-Length: ${BINARY_HTML.length}`]));
      c.write(BINARY_HTML);
      c.keepReading();
    },
  },
  latin1: {
    what: 'text/html; charset=iso-8859-1, not valid UTF-8, with a link',
    handle: (c) => {
      c.write(head('200 OK', ['Content-Type: text/html; charset=iso-8859-1', `Content-Length: ${LATIN1_HTML.length}`]));
      c.write(LATIN1_HTML);
      c.keepReading();
    },
  },
};

export interface FaultServer {
  host: string;
  port: number;
  origin: string;
  /** `origin + target`. */
  url(target: string): string;
  /** A port on `host` where nothing listens (connections are refused). */
  closedPort: number;
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
  /** Stops listening now (connections are refused) and listens again on the same port after `ms`. */
  refuseFor(ms: number): void;
  /** Resolves when a request with this target has arrived (or after `ms`). */
  waitFor(target: string, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

/** A FaultRequest from the bytes of one request head (request line to the blank line). */
export function requestFromHead(raw: Buffer, conn = 0): FaultRequest {
  const lines = raw.toString('latin1').replace(/\r\n\r\n$/, '').split('\r\n');
  const requestLine = lines[0] ?? '';
  const [method = '', target = ''] = requestLine.split(' ');
  return { conn, raw, requestLine, method, target, headerLines: lines.slice(1), at: performance.now() };
}

/** A port on `host` that nothing listens on. */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, host, () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Starts a fault server on `host` (default 127.0.0.1) and a free port. */
export async function startFaultServer(host = '127.0.0.1'): Promise<FaultServer> {
  const pages = new Map<string, StaticPage>();
  const requests: FaultRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();
  const bytesIn = new Map<number, number>();
  let connections = 0;
  let closing = false;
  let listener: Server;

  const onConnection = (socket: Socket): void => {
    const conn = ++connections;
    sockets.add(socket);
    socket.on('error', () => undefined);
    let buf: Buffer = Buffer.alloc(0);
    let reading = true;
    let prefix: string | undefined;
    const mine = new Set<NodeJS.Timeout>();
    socket.on('close', () => {
      sockets.delete(socket);
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
        const lines = extra.some((l) => /^content-type:/i.test(l)) ? extra : [HTML, ...extra];
        socket.write(head(`${fixed.status ?? 200} ${fixed.status === undefined || fixed.status === 200 ? 'OK' : 'Status'}`, [...lines, `Content-Length: ${body.length}`]));
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
      socket.write(head(generated === undefined ? '404 Not Found' : '200 OK', [HTML, `Content-Length: ${Buffer.byteLength(body)}`]) + body);
    };
    socket.on('data', (d: Buffer) => {
      bytesIn.set(conn, (bytesIn.get(conn) ?? 0) + d.length);
      buf = buf.length === 0 ? d : Buffer.concat([buf, d]);
      if (buf.length > 1024 * 1024) socket.destroy(); // no request head is that long
      pump();
    });
  };

  const listen = (port: number): Promise<Server> =>
    new Promise((resolve, reject) => {
      const s = createServer(onConnection);
      s.once('error', reject);
      s.listen(port, host, () => resolve(s));
    });
  listener = await listen(0);
  const port = (listener.address() as AddressInfo).port;
  const refused = await closedPort(host);

  const server: FaultServer = {
    host,
    port,
    origin: `http://${host}:${port}`,
    url: (target) => `http://${host}:${port}${target}`,
    closedPort: refused,
    requests,
    targets: () => requests.map((r) => r.target),
    hits: (prefix) => requests.filter((r) => r.target.startsWith(prefix)).length,
    get connections() {
      return connections;
    },
    streamed: new Map(),
    bytesIn,
    fallback: undefined,
    page: (target, body, options = {}) => void pages.set(target, { ...options, body }),
    refuseFor: (ms) => {
      listener.close();
      const t = setTimeout(() => {
        timers.delete(t);
        if (closing) return;
        void listen(port).then((s) => {
          if (closing) s.close();
          else listener = s;
        });
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
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const t of timers) {
          clearTimeout(t);
          clearInterval(t);
        }
        timers.clear();
        for (const s of sockets) s.destroy();
        if (!listener.listening) resolve();
        else listener.close(() => resolve());
      }),
  };
  return server;
}

/**
 * The endless traps: `/trap/...` links to `a/` below itself (a path that
 * deepens forever), `/long/...` to a 100-character segment below itself (a
 * URL that grows forever), `/calendar?page=N` to `?page=N+1`.
 */
function trapPage(target: string): string | undefined {
  if (target.startsWith('/trap/')) return html(`trap ${target}`, ['a/']);
  if (target.startsWith('/long/')) return html('long', [`${'x'.repeat(99)}/`]);
  const cal = /^\/calendar\?page=(\d+)$/.exec(target);
  if (cal !== null) return html(`calendar ${cal[1]}`, [`?page=${Number(cal[1]) + 1}`]);
  return undefined;
}

/** What `runMeasured` adds to a run: wall time and, when it could be read, the child's peak RSS. */
export interface MeasuredRun extends RunResult {
  wallMs: number;
  /** Peak resident set in KiB (GNU time's %M), undefined when /usr/bin/time is unavailable. */
  peakRssKiB: number | undefined;
}

const GNU_TIME = '/usr/bin/time';

/**
 * Runs ./crawler or ./KeywordHunter (optionally behind `wrap`, e.g. unshare)
 * under GNU time, which reads the peak RSS from wait4(2) after the child is
 * gone: no sampling, so no peak is missed. Killed after `timeoutMs`.
 */
export function runMeasured(
  program: 'crawler' | 'KeywordHunter',
  args: string[],
  options: { timeoutMs?: number; cwd?: string; wrap?: string[] } = {},
): Promise<MeasuredRun> {
  const timeDir = mkdtempSync(join(tmpdir(), 'fault-time-'));
  const timeFile = join(timeDir, 'rss');
  const useTime = existsSync(GNU_TIME);
  const cmd = [...(useTime ? [GNU_TIME, '-f', '%M', '-o', timeFile] : []), ...(options.wrap ?? []), join(PROJECT_ROOT, program), ...args];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0] as string, cmd.slice(1), { cwd: options.cwd ?? PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      let peakRssKiB: number | undefined;
      if (useTime) {
        const m = /(\d+)\s*$/.exec(existsSync(timeFile) ? readFileSync(timeFile, 'utf8') : '');
        peakRssKiB = m === null ? undefined : Number(m[1]);
      }
      rmSync(timeDir, { recursive: true, force: true });
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes, wallMs, peakRssKiB });
    });
  });
}

/** Checks one request head against RFC 9112 §3: returns what is wrong with it, or undefined. */
export function requestHeadProblem(req: FaultRequest): string | undefined {
  const bytes = req.raw;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b >= 0x80) return `non-ASCII byte 0x${b.toString(16)} at ${i}`;
    if (b === 0) return `NUL at ${i}`;
    if (b === 0x0d && bytes[i + 1] !== 0x0a) return `bare CR at ${i}`;
    if (b === 0x0a && bytes[i - 1] !== 0x0d) return `bare LF at ${i}`;
  }
  // request-line = method SP request-target SP HTTP-version; the target is visible ASCII (RFC 9112 §3.2, RFC 3986).
  if (!/^(GET|HEAD) [\x21-\x7e]+ HTTP\/1\.1$/.test(req.requestLine)) return `malformed request line ${JSON.stringify(req.requestLine)}`;
  if (!req.target.startsWith('/')) return `target not in origin-form: ${JSON.stringify(req.target)}`;
  // "[" and "]" are not pchar, but WHATWG URL and every server accept them raw; tolerated here.
  if (/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%[\]]/.test(req.target)) return `target holds a character RFC 3986 does not allow: ${JSON.stringify(req.target)}`;
  // A "%" not followed by two hex digits is sent as written (as browsers do, and as robots.txt matching expects): not checked.
  for (const line of req.headerLines) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+: [\x20-\x7e]*$/.test(line)) return `malformed header line ${JSON.stringify(line)}`;
  }
  return undefined;
}

/** KeywordHunter's PAGE lines: respath and status, in order. */
export function khPages(stdout: string, port?: number): Array<{ respath: string; status: number; host: string; port: number }> {
  const out = [];
  for (const line of stdout.split('\n')) {
    const m = /^PAGE:host=([^;]*);port=(\d+);respath=(.*);status=(\d+)$/.exec(line);
    if (m === null) continue;
    if (port !== undefined && Number(m[2]) !== port) continue;
    out.push({ host: m[1] as string, port: Number(m[2]), respath: m[3] as string, status: Number(m[4]) });
  }
  return out;
}

/** KeywordHunter's LINK lines. */
export function khLinks(stdout: string): Array<{ host: string; port: number; respath: string; action: string }> {
  const out = [];
  for (const line of stdout.split('\n')) {
    const m = /^LINK:host=([^;]*);port=(\d+);respath=(.*);action=([a-z_]+)$/.exec(line);
    if (m !== null) out.push({ host: m[1] as string, port: Number(m[2]), respath: m[3] as string, action: m[4] as string });
  }
  return out;
}

// ------------------------------------------------------- file-system faults

/** True when the tests run as root (file permissions then do not bind). */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Mounts a tmpfs of `size` (e.g. "256k") at `dir` (options such as "ro"
 * added). Returns undefined on success, else why it could not (not root,
 * no mount(8), a sandbox that forbids it): the caller skips with that.
 */
export function mountTmpfs(dir: string, size: string, extra: string[] = []): string | undefined {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', [`size=${size}`, ...extra].join(','), 'tmpfs', dir], { encoding: 'utf8' });
  if (r.error !== undefined) return `mount(8) not available: ${r.error.message}`;
  if (r.status !== 0) return `cannot mount a tmpfs at ${dir} (needs root or CAP_SYS_ADMIN): ${r.stderr.trim() || `exit ${r.status}`}`;
  return undefined;
}

/** Unmounts `dir` (lazily, so that a test that failed half-way cannot leave it busy). */
export function unmount(dir: string): void {
  spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
}

/** Free bytes on the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const st = statfsSync(dir);
  return st.bavail * st.bsize;
}

/**
 * The command prefix that runs a program as `nobody` (uid/gid 65534), so
 * that directory permissions bind even when the tests run as root; or why
 * that is not possible here.
 */
export function asNobody(): { wrap: string[] } | { why: string } {
  if (!isRoot()) return { why: 'not root: no need to change user (and no way to)' };
  const wrap = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  const probe = spawnSync(wrap[0] as string, [...wrap.slice(1), join(PROJECT_ROOT, 'crawler'), '--help'], { encoding: 'utf8' });
  if (probe.error !== undefined) return { why: `setpriv not available: ${probe.error.message}` };
  if (probe.status !== 0) return { why: `cannot run ./crawler as nobody (setpriv exit ${probe.status}: ${probe.stderr.trim().split('\n')[0]})` };
  return { wrap };
}
