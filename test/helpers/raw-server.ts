/**
 * A raw node:net server for HTTP edge cases: each connection is handed to a
 * script that writes literal bytes (or misbehaves: resets, stalls, drips).
 * Records what each connection received. Listens and closes through
 * server-base.ts.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { listen } from './server-base.js';

export interface RawConnection {
  socket: Socket;
  /** Everything received so far on this connection. */
  received: () => Buffer;
  /** Resolves with the bytes of the next complete request head ("\r\n\r\n"), or undefined on close. */
  nextRequest: () => Promise<string | undefined>;
  index: number;
}

export interface RawServer {
  server: Server;
  host: string;
  port: number;
  origin: string;
  connections: RawConnection[];
  close(): Promise<void>;
}

export type RawHandler = (conn: RawConnection) => void | Promise<void>;

/** Starts a raw server; `handler` runs once per accepted connection. */
export async function startRaw(handler: RawHandler, host = '127.0.0.1'): Promise<RawServer> {
  const connections: RawConnection[] = [];
  const server = createServer((socket) => {
    let buf = Buffer.alloc(0);
    let consumed = 0;
    const waiters: Array<() => void> = [];
    let closed = false;
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (const w of waiters.splice(0)) w();
    });
    socket.on('close', () => {
      closed = true;
      for (const w of waiters.splice(0)) w();
    });
    const conn: RawConnection = {
      socket,
      index: connections.length,
      received: () => buf,
      nextRequest: async () => {
        for (;;) {
          const end = buf.indexOf('\r\n\r\n', consumed);
          if (end !== -1) {
            const head = buf.subarray(consumed, end + 4).toString('latin1');
            consumed = end + 4;
            return head;
          }
          if (closed) return undefined;
          await new Promise<void>((r) => waiters.push(r));
        }
      },
    };
    connections.push(conn);
    void Promise.resolve(handler(conn)).catch(() => socket.destroy());
  });
  const listening = await listen(server, { host });
  return {
    server,
    host,
    port: listening.port,
    origin: `http://${host}:${listening.port}`,
    connections,
    close: listening.close,
  };
}
