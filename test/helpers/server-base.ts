/**
 * The one base of the test servers: raw (node:net writing literal bytes:
 * raw-server.ts, fault-server.ts), HTTP (node:http) and TLS (node:https)
 * (site-server.ts). Given a server that is not listening yet, it listens on
 * a loopback address (127.0.0.1 unless told another 127.0.0.x) and port 0
 * (a free port the kernel picks) unless told a port, numbers and tracks
 * every connection it accepts, and close() destroys them all and stops
 * listening, so that no test leaves a socket or a listener behind.
 */
import type { AddressInfo, Server, Socket } from 'node:net';

export interface Listening {
  host: string;
  port: number;
  /** Connections accepted so far (counted on `countOn`). */
  readonly connections: number;
  /** The number (from 1, in accept order) of a connection's socket, as the `countOn` event gave it. */
  connectionOf(socket: object): number | undefined;
  /** Stops accepting: connections to the port are refused until listenAgain(); open ones stay (node:http closes its idle ones). */
  stopListening(): void;
  /** Listens again on the same host and port (a no-op after close). */
  listenAgain(): Promise<void>;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** The event that counts a connection: 'connection' (TCP accept, the default) or 'secureConnection' (TLS handshake done). */
  countOn?: 'connection' | 'secureConnection';
}

/** Listens with `server` on `host`:`port` and tracks its connections; rejects if it cannot listen there. */
export async function listen(server: Server, options: ListenOptions = {}): Promise<Listening> {
  const host = options.host ?? '127.0.0.1';
  const countOn = options.countOn ?? 'connection';
  const sockets = new Set<Socket>();
  const ids = new WeakMap<object, number>();
  let connections = 0;
  let closed = false;
  let binding: Promise<void> = Promise.resolve();
  let rebinding = false;

  const track = (socket: Socket): void => {
    if (sockets.has(socket)) return;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined); // a peer that resets is no failure of the server
  };
  const count = (socket: Socket): void => {
    track(socket); // a TLS socket, as well as the TCP socket under it
    ids.set(socket, ++connections);
  };
  // Prepended, so that a connection is tracked and numbered before the server's own handler sees it.
  server.prependListener('connection', track);
  server.prependListener(countOn, count);

  const bind = (port: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const fail = (err: Error): void => reject(err);
      server.once('error', fail);
      server.listen(port, host, () => {
        server.off('error', fail);
        resolve();
      });
    });
  try {
    await bind(options.port ?? 0);
  } catch (err) {
    server.off('connection', track);
    server.off(countOn, count);
    throw err;
  }
  const port = (server.address() as AddressInfo).port;

  return {
    host,
    port,
    get connections() {
      return connections;
    },
    connectionOf: (socket) => ids.get(socket),
    stopListening: () => {
      if (server.listening) server.close();
    },
    listenAgain: () => {
      if (!closed && !server.listening && !rebinding) {
        rebinding = true;
        binding = bind(port).finally(() => {
          rebinding = false;
        });
      }
      return binding;
    },
    close: async () => {
      closed = true;
      await binding.catch(() => undefined);
      const stopped = server.listening ? new Promise<void>((resolve) => server.close(() => resolve())) : undefined;
      for (const s of sockets) s.destroy();
      await stopped;
    },
  };
}
