/**
 * The connector the HTTP client uses by default: the host's addresses from
 * a HostResolver (each name looked up once per crawl; IP literals need no
 * lookup), then a TCP connection, then for https a TLS handshake, all
 * within the connect timeout. A failure is a ConnectError whose message
 * names the cause in words: "cannot resolve HOST: host name not found",
 * "cannot connect to HOST:PORT: connection refused", "TLS handshake failed
 * with HOST:PORT: the server did not answer in TLS".
 */
import { connect as netConnect, isIP, type LookupFunction, type Socket } from 'node:net';
import { ConnectError } from './connect-error.js';
import type { Connector } from './connection.js';
import type { HostAddress, HostResolver } from './host-resolver.js';
import { socketErrorCode, socketFailureWords, systemCode, tlsFailureWords } from '../net-errors.js';

/**
 * node:tls, loaded on the first https connection: loading it (OpenSSL's
 * contexts) adds resident memory that an http crawl never uses
 * (docs/performance.md, Memory).
 */
let tls: Promise<typeof import('node:tls')> | undefined;

/** A Connector over node:net and node:tls (SNI unless the host is an IP) whose names `resolver` resolves. */
export function socketConnector(resolver: HostResolver): Connector {
  return async (endpoint, timeoutMs) => {
    const { hostname, port } = endpoint;
    const where = `${hostname}:${port}`;
    const started = performance.now();
    const addresses = isIP(hostname) === 0 ? await withinTimeout(resolver.resolve(hostname), timeoutMs, hostname) : undefined;
    const tlsModule = endpoint.tls ? await (tls ??= import('node:tls')) : undefined;
    const left = Math.max(1, timeoutMs - (performance.now() - started));
    return new Promise<Socket>((resolve, reject) => {
      const lookup = addresses === undefined ? {} : { lookup: answer(addresses) };
      const socket: Socket =
        tlsModule !== undefined
          ? tlsModule.connect({ host: hostname, port, rejectUnauthorized: endpoint.rejectUnauthorized ?? true, ...lookup, ...(isIP(hostname) === 0 ? { servername: hostname } : {}) })
          : netConnect({ host: hostname, port, ...lookup });
      // Connected over TCP: from then on an https failure is the handshake's.
      let connected = false;
      socket.once('connect', () => {
        connected = true;
      });
      const timer = setTimeout(() => {
        socket.destroy();
        const message = connected
          ? `TLS handshake failed with ${where}: not done within ${seconds(timeoutMs)} (connect timeout)`
          : `cannot connect to ${where}: no answer within ${seconds(timeoutMs)} (connect timeout)`;
        reject(new ConnectError('ERR_CONNECT_TIMEOUT', message, { host: hostname, port }));
      }, left);
      const onError = (err: Error): void => {
        clearTimeout(timer);
        socket.destroy();
        reject(connectFailure(err, hostname, port, endpoint.tls && connected));
      };
      socket.once('error', onError);
      socket.once(endpoint.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.off('error', onError);
        socket.setNoDelay(true);
        resolve(socket);
      });
    });
  };
}

/** A failed connect or handshake as a ConnectError in words. */
function connectFailure(err: Error, host: string, port: number, inHandshake: boolean): ConnectError {
  const where = `${host}:${port}`;
  const code = systemCode(err);
  if (inHandshake || socketErrorCode(err) === 'ERR_TLS') {
    return new ConnectError('ERR_TLS', `TLS handshake failed with ${where}: ${tlsFailureWords(err)}`, { host, port, systemCode: code, cause: err });
  }
  return new ConnectError('ERR_CONNECT', `cannot connect to ${where}: ${socketFailureWords(err)}`, { host, port, systemCode: code, cause: err });
}

/** net.connect's `lookup`, answering with the addresses already resolved. */
function answer(addresses: readonly HostAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) (callback as (err: null, all: HostAddress[]) => void)(null, [...addresses]);
    else {
      const first = addresses[0] as HostAddress;
      callback(null, first.address, first.family);
    }
  };
}

/** The lookup, or a ConnectError when the connect timeout runs out first (the lookup goes on, and is remembered). */
function withinTimeout<T>(lookup: Promise<T>, timeoutMs: number, hostname: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ConnectError('ERR_DNS', `cannot resolve ${hostname}: no answer within ${seconds(timeoutMs)} (connect timeout)`, { host: hostname, systemCode: 'ETIMEOUT' })), timeoutMs);
  });
  return Promise.race([lookup, timeout]).finally(() => clearTimeout(timer));
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${+(ms / 1000).toFixed(1)} s`;
}
