/**
 * The one way the tests get a port where connecting is refused (the SYN is
 * answered with RST, so the client fails at once with ECONNREFUSED).
 *
 * Why this way, and not another:
 * - Never a port that was bound and then released: the kernel hands free
 *   ports out again to the next listen(0), bind(0) or connect() of any
 *   process, so by the time a test connects, another test file (or another
 *   developer's run on the same machine) may be listening there.
 * - Not a listening server that destroys each connection: the connect then
 *   succeeds and the client sees a reset (ECONNRESET), not a refusal.
 * - Not a socket bound without listening, which would be refused and held
 *   for as long as the test runs: node:net cannot bind without listening
 *   (only the internal process.binding('tcp_wrap') can, deprecated as
 *   DEP0111 and no public API), and libuv binds with SO_REUSEADDR, which
 *   would not keep out a second explicit bind of that port anyway.
 * - So a port below the kernel's ephemeral range (ip_local_port_range,
 *   32768-60999 by default), and below 1024: the kernel never gives such a
 *   port to a listen(0), bind(0) or connect() of any process, so only a
 *   program that names that very port could take it, and the test servers
 *   never do (server-base.ts listens on port 0). The first such port, from
 *   1 up, that refuses a connection now is taken (a service of the machine,
 *   such as sshd on 22, is passed over); a port whose SYN goes unanswered
 *   (a firewall that drops) is passed over too.
 *
 * The same range serves a server that must refuse for a while and then
 * listen again on its own port (refuseFor in fault-server.ts): it listens
 * on a port from fixedPortCandidate(), which nothing can be given by the
 * kernel while the server is not listening.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** How long a probe waits for the RST; a refusal on loopback takes well under a millisecond. */
const PROBE_MS = 1000;

/** The lowest port the kernel hands out by itself (the floor of ip_local_port_range), or 1024 when that cannot be read. */
function ephemeralFloor(): number {
  try {
    const floor = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(floor) && floor > 0 ? floor : 1024;
  } catch {
    return 1024;
  }
}

/**
 * A port for a server that stops listening for a while and must get the same
 * port back: random between 1024 (below needs privileges) and the floor of
 * the ephemeral range, so that no listen(0), bind(0) or connect() anywhere is
 * given it in the meantime, and two test runs seldom try the same one. It
 * may be in use already: the caller listens on it and tries another on
 * EADDRINUSE.
 */
export function fixedPortCandidate(): number {
  const floor = ephemeralFloor();
  if (floor <= 1025) throw new Error(`the ephemeral port range starts at ${floor}: no unprivileged port lies below it`);
  return 1024 + Math.floor(Math.random() * (floor - 1024));
}

function refuses(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    const done = (refused: boolean): void => {
      clearTimeout(timer);
      s.destroy();
      resolve(refused);
    };
    const timer = setTimeout(() => done(false), PROBE_MS);
    s.once('connect', () => done(false));
    s.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED'));
  });
}

const found = new Map<string, Promise<number>>();

/** A port on `host` (default 127.0.0.1) where connections are refused; see the module comment for why it stays so. */
export function refusedPort(host = '127.0.0.1'): Promise<number> {
  let port = found.get(host);
  if (port === undefined) {
    port = (async () => {
      const below = Math.min(1024, ephemeralFloor());
      for (let p = 1; p < below; p++) if (await refuses(host, p)) return p;
      throw new Error(`no port below ${below} refuses connections on ${host}`);
    })();
    found.set(host, port);
  }
  return port;
}
