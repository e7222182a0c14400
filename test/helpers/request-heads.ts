/**
 * Request heads as a test server receives them, and their check against
 * RFC 9112: what the hostile-network tests use to see exactly what reached
 * the wire (test/helpers/fault-server.ts records one per request).
 */

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

/** A FaultRequest from the bytes of one request head (request line to the blank line). */
export function requestFromHead(raw: Buffer, conn = 0): FaultRequest {
  const lines = raw.toString('latin1').replace(/\r\n\r\n$/, '').split('\r\n');
  const requestLine = lines[0] ?? '';
  const [method = '', target = ''] = requestLine.split(' ');
  return { conn, raw, requestLine, method, target, headerLines: lines.slice(1), at: performance.now() };
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
