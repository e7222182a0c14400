/**
 * The broad section's site server (issue 30): `hosts` loopback hosts
 * (bench/broad-shape.ts), one node:http server per address on one port,
 * every answer sent `latency` ms after its request was noted. It runs as its
 * own process, so that the crawler under test and the bench do not share an
 * event loop with it, and records per host when each request arrived (as a
 * window, test/helpers/arrivals.ts), so that the bench can tell each host's
 * least gap between request starts.
 *
 * The bench drives it with startBroadSite(); the process itself is
 * `node dist/bench/broad-site.js` with the options as JSON in argv[2] and an
 * IPC channel: it sends `{ ready: port }` (or `{ error }`) once every
 * address listens, answers `reset` (forget every record) and `collect` (the
 * records since the last reset) and exits on `stop` or a closed channel.
 *
 * File descriptors: one listening socket per host, plus the connections the
 * crawlers keep open (up to one per host and crawler process). The process
 * inherits the bench's RLIMIT_NOFILE; startBroadSite() raises the soft limit
 * to the hard one with prlimit(1) when the estimate needs it, refuses with
 * the figures when the hard limit cannot hold even the listening sockets,
 * and says so in `note` when it may not hold every connection (a connection
 * the server cannot accept then counts in acceptErrors).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { arrivalNow, watchArrivals } from '../test/helpers/arrivals.js';
import { hostAddress, pageBody, ROBOTS_TXT, type BroadShape } from './broad-shape.js';
import type { ArrivalWindow } from './broad-stats.js';
import { freePort } from './servers.js';

export interface BroadSiteOptions extends BroadShape {
  /** Every answer is sent this many ms after its request was noted. */
  latencyMs: number;
}

/** What the server saw since the last reset. */
export interface BroadRecords {
  /** Per host (index = host), each request's arrival window (ms on the server's clock) and path. */
  arrivals: ArrivalWindow[][];
  /** performance.timeOrigin of the server process: its clock plus this is epoch ms. */
  timeOrigin: number;
  pagesServed: number;
  robotsServed: number;
  notFound: number;
  /** Page URLs requested more than once (a crawler that fetched a page twice). */
  fetchedTwice: number;
  /** When the last answer was sent (server clock, ms), or NaN. */
  lastSentAt: number;
  /** The server's event loop delay while recording (ms): max and 99th percentile. */
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
  /** How much later than `latency` after being noted an answer was sent, at most (ms): the server keeping up. */
  lateMaxMs: number;
  /** CPU of the server process while recording (user + system, s). */
  cpuSeconds: number;
  /** Most connections open at once. */
  peakConnections: number;
  /** Connections the server failed to accept (EMFILE: out of file descriptors). */
  acceptErrors: number;
}

/** The site server process, as the bench sees it. */
export interface BroadSite {
  port: number;
  pid: number | undefined;
  /** Set when the file descriptor limit may not hold every connection. */
  note: string | undefined;
  /** Forgets every record: call before each crawl. */
  reset(): Promise<void>;
  collect(): Promise<BroadRecords>;
  stop(): Promise<void>;
}

/** File descriptors the server may need: a listener per host, `clients` connections per host, and a margin. */
export function descriptorsNeeded(hosts: number, clients: number): number {
  return hosts * (1 + clients) + 256;
}

/** RLIMIT_NOFILE of this process (soft, hard), from /proc/self/limits; undefined when unreadable or unlimited. */
export function fileLimit(): { soft: number; hard: number } | undefined {
  try {
    const m = /^Max open files\s+([0-9]+)\s+([0-9]+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m === null ? undefined : { soft: Number(m[1]), hard: Number(m[2]) };
  } catch {
    return undefined;
  }
}

const CALL_TIMEOUT_MS = 60_000;

/**
 * Starts the site server process for `options`; `clients` is how many
 * crawler processes may each keep a connection per host (for the file
 * descriptor estimate).
 */
export async function startBroadSite(options: BroadSiteOptions, clients = 4): Promise<BroadSite> {
  const need = descriptorsNeeded(options.hosts, clients);
  const limit = fileLimit();
  let execArgv: string[] = [];
  let execPath = process.execPath;
  let note: string | undefined;
  if (limit !== undefined && limit.soft < need) {
    const least = descriptorsNeeded(options.hosts, 0);
    if (limit.hard < least) {
      throw new Error(`the broad site's ${options.hosts} hosts need at least ${least} file descriptors (a listening socket per host); the hard limit is ${limit.hard}: raise it (ulimit -Hn, LimitNOFILE=) or use fewer hosts`);
    }
    if (limit.hard < need) note = `the site server may run short of file descriptors: ${need} with a connection per host from each of ${clients} crawler processes, the hard limit is ${limit.hard} (connections it cannot accept count as accept errors)`;
    // prlimit runs node with the soft limit raised to the hard one (allowed without privileges).
    execArgv = [`--nofile=${limit.hard}:${limit.hard}`, process.execPath];
    execPath = 'prlimit';
  }
  const script = fileURLToPath(import.meta.url);
  const child: ChildProcess = fork(script, [JSON.stringify(options)], { execPath, execArgv, serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the broad site server did not start within 60 s')), CALL_TIMEOUT_MS);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the broad site server exited (${code}) before it listened`)));
    child.once('message', (m: { ready?: number; error?: string }) => {
      clearTimeout(timer);
      if (m.ready !== undefined) resolve(m.ready);
      else reject(new Error(`the broad site server: ${m.error ?? 'no answer'}`));
    });
  }).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  child.removeAllListeners('exit');
  const call = <T>(cmd: 'reset' | 'collect'): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the broad site server did not answer "${cmd}" within 60 s`)), CALL_TIMEOUT_MS);
      child.once('message', (m: T) => {
        clearTimeout(timer);
        resolve(m);
      });
      child.send(cmd);
    });
  return {
    port,
    pid: child.pid,
    note,
    reset: () => call<unknown>('reset').then(() => undefined),
    collect: () => call<BroadRecords>('collect'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The recording state of the server process. */
class Recorder {
  arrivals: ArrivalWindow[][];
  fetched = new Set<string>();
  counts = { pagesServed: 0, robotsServed: 0, notFound: 0, fetchedTwice: 0, acceptErrors: 0 };
  lastSentAt = NaN;
  lateMaxMs = 0;
  connections = 0;
  peakConnections = 0;
  cpu = process.cpuUsage();
  loop = monitorEventLoopDelay({ resolution: 10 });

  constructor(readonly hosts: number) {
    this.arrivals = Array.from({ length: hosts }, () => []);
    this.loop.enable();
  }

  reset(): void {
    this.arrivals = Array.from({ length: this.hosts }, () => []);
    this.fetched.clear();
    this.counts = { pagesServed: 0, robotsServed: 0, notFound: 0, fetchedTwice: 0, acceptErrors: 0 };
    this.lastSentAt = NaN;
    this.lateMaxMs = 0;
    this.peakConnections = this.connections;
    this.cpu = process.cpuUsage();
    this.loop.reset();
  }

  records(): BroadRecords {
    const cpu = process.cpuUsage(this.cpu);
    return {
      arrivals: this.arrivals,
      timeOrigin: performance.timeOrigin,
      ...this.counts,
      lastSentAt: this.lastSentAt,
      loopDelayMaxMs: this.loop.max / 1e6,
      loopDelayP99Ms: this.loop.percentile(99) / 1e6,
      lateMaxMs: this.lateMaxMs,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      peakConnections: this.peakConnections,
    };
  }
}

/** Listens on every host's address at one port; retries with another port when one is taken. */
async function listenAll(options: BroadSiteOptions, rec: Recorder): Promise<{ port: number; servers: Server[] }> {
  let failure: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort(hostAddress(0));
    const servers: Server[] = [];
    try {
      for (let k = 0; k < options.hosts; k++) {
        const server = hostServer(options, rec, k, port);
        servers.push(server);
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, hostAddress(k), () => {
            server.off('error', reject);
            // Once listening, an error is a connection it could not accept: counted, not fatal.
            server.on('error', () => rec.counts.acceptErrors++);
            resolve();
          });
        });
      }
      return { port, servers };
    } catch (err) {
      failure = err;
      for (const s of servers) s.close();
    }
  }
  throw failure;
}

/** Host k's server: notes each request's arrival, answers it `latencyMs` later. */
function hostServer(options: BroadSiteOptions, rec: Recorder, k: number, port: number): Server {
  // For a connection whose first request has not come yet: the earliest that request can have arrived.
  const firstAfter = new WeakMap<object, number>();
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const { at, after } = arrivalNow();
    const accepted = firstAfter.get(req.socket);
    firstAfter.delete(req.socket);
    const path = (req.url ?? '/').split('?')[0]!;
    rec.arrivals[k]!.push({ at, after: accepted === undefined ? after : Math.min(accepted, after), path });
    setTimeout(() => {
      const sent = performance.now();
      rec.lateMaxMs = Math.max(rec.lateMaxMs, sent - at - options.latencyMs);
      rec.lastSentAt = sent;
      const body = path === '/robots.txt' ? ROBOTS_TXT : pageBody(options, port, k, path);
      if (body === undefined) {
        rec.counts.notFound++;
        res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 10 }).end('not found\n');
        return;
      }
      if (path === '/robots.txt') rec.counts.robotsServed++;
      else {
        rec.counts.pagesServed++;
        const key = `${k} ${path}`;
        if (rec.fetched.has(key)) rec.counts.fetchedTwice++;
        else rec.fetched.add(key);
      }
      const type = path === '/robots.txt' ? 'text/plain' : 'text/html; charset=utf-8';
      res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
    }, options.latencyMs);
  };
  const server = createServer({ keepAliveTimeout: 60_000 }, answer);
  server.maxRequestsPerSocket = 0;
  server.on('connection', (socket) => {
    firstAfter.set(socket, arrivalNow().after);
    rec.peakConnections = Math.max(rec.peakConnections, ++rec.connections);
    socket.once('close', () => rec.connections--);
  });
  return server;
}

async function serveMain(options: BroadSiteOptions): Promise<void> {
  const unwatch = watchArrivals();
  const rec = new Recorder(options.hosts);
  const { port, servers } = await listenAll(options, rec);
  const stop = (): void => {
    unwatch();
    for (const s of servers) {
      s.close();
      s.closeAllConnections();
    }
    process.exit(0);
  };
  process.on('disconnect', stop);
  process.on('message', (cmd: string) => {
    if (cmd === 'reset') {
      rec.reset();
      process.send!('reset');
    } else if (cmd === 'collect') process.send!(rec.records());
    else if (cmd === 'stop') stop();
  });
  process.send!({ ready: port });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.send === undefined) {
    console.error('broad-site: run it through startBroadSite() (bench/broad-bench.ts), which talks to it over IPC');
    process.exit(2);
  }
  serveMain(JSON.parse(process.argv[2] ?? '{}') as BroadSiteOptions).catch((err: unknown) => {
    process.send!({ error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  });
}
