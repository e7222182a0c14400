/**
 * A raw HTTP "site" for KeywordHunter's end-to-end tests, on test/helpers/
 * raw-server.ts: each request path maps to literal response bytes (or a
 * script that writes them), so chunked framing, trailers, folded headers,
 * HTTP/1.0, read-until-close and misbehaviour are exactly what the test says.
 * Records every request head with its connection number.
 *
 * Strings are written as latin1: one character, one byte ("\xe9" is byte 0xE9).
 */
import { arrivalNow, watchArrivals, type Arrival } from './arrivals.js';
import { startRaw, type RawConnection, type RawServer } from './raw-server.js';
import { sleep } from './kh-harness.js';

/** A literal answer: `data` written in pieces `gapMs` apart, then the connection closed when `close`. */
export interface RawAnswer {
  data: string | Buffer | Array<string | Buffer>;
  gapMs?: number;
  close?: boolean;
}

/** A script: writes whatever it likes; return 'close' to end the connection, 'keep' to read the next request. */
export type RawScript = (conn: RawConnection, head: string, nth: number) => Promise<'close' | 'keep'> | 'close' | 'keep';

export type RawRoute = string | Buffer | RawAnswer | RawScript;

/** A request as received; `at` and `after` are its arrival window (performance.now() ms, see arrivals.ts). */
export interface RawRequest extends Arrival {
  path: string;
  /** The request head as received (request line and headers, latin1). */
  head: string;
  /** 0-based connection index. */
  connection: number;
  /** 1-based position of this request on its connection. */
  nth: number;
}

export interface RawSite extends RawServer {
  requests: RawRequest[];
  paths(): string[];
}

const bytes = (d: string | Buffer): Buffer => (typeof d === 'string' ? Buffer.from(d, 'latin1') : d);

/** `HTTP/1.1 200 OK` with Content-Length (kept alive). */
export function ok(body: string | Buffer, headers = ''): string {
  const b = bytes(body);
  return `HTTP/1.1 200 OK\r\n${headers}Content-Length: ${b.length}\r\n\r\n${b.toString('latin1')}`;
}

/** A status line and Content-Length (kept alive). */
export function answer(status: number, body = '', headers = ''): string {
  return `HTTP/1.1 ${status} Whatever\r\n${headers}Content-Length: ${Buffer.byteLength(body, 'latin1')}\r\n\r\n${body}`;
}

/** A redirect with `location` and an empty body. */
export function redirect(status: number, location: string): string {
  return `HTTP/1.1 ${status} Moved\r\nLocation: ${location}\r\nContent-Length: 0\r\n\r\n`;
}

export const NOT_FOUND_ANSWER = 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';

/** Starts a raw site on `host`; unknown paths (robots.txt included) answer 404, kept alive. */
export async function startRawSite(routes: Record<string, RawRoute>, host = '127.0.0.1'): Promise<RawSite> {
  const requests: RawRequest[] = [];
  const unwatch = watchArrivals();
  const server = await startRaw(async (conn) => {
    // The first request of a connection can have come as soon as it was accepted (see arrivals.ts).
    const accepted = arrivalNow().after;
    for (let nth = 1; ; nth++) {
      const head = await conn.nextRequest();
      if (head === undefined) return;
      const path = head.split(' ')[1] ?? '';
      const { at, after } = arrivalNow();
      requests.push({ path, head, connection: conn.index, nth, at, after: nth === 1 ? Math.min(accepted, after) : after });
      const route = routes[path] ?? NOT_FOUND_ANSWER;
      let end: 'close' | 'keep';
      if (typeof route === 'function') {
        end = await route(conn, head, nth);
      } else {
        const a: RawAnswer = typeof route === 'string' || Buffer.isBuffer(route) ? { data: route } : route;
        const pieces = Array.isArray(a.data) ? a.data : [a.data];
        for (let i = 0; i < pieces.length; i++) {
          if (i > 0 && a.gapMs !== undefined) await sleep(a.gapMs);
          if (conn.socket.destroyed) return;
          conn.socket.write(bytes(pieces[i] as string | Buffer));
        }
        end = a.close === true ? 'close' : 'keep';
      }
      if (end === 'close') {
        conn.socket.end();
        return;
      }
    }
  }, host);
  const close = server.close.bind(server);
  return Object.assign(server, {
    requests,
    paths: () => requests.map((r) => r.path),
    close: async () => {
      unwatch();
      await close();
    },
  });
}
