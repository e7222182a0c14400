/**
 * Section "ceiling": how many pages per second the server gives one
 * connection, requested back to back. Two clients:
 *
 * - our own loop on node:net: sequential keep-alive GETs over one
 *   connection, cycling through the site's page paths, each response read
 *   to its end (Content-Length framing; the bench servers always send it);
 * - wrk, when installed: one thread, one connection, a Lua script cycling
 *   through the same paths. wrk is C and parses less, so its figure is the
 *   better ceiling; ours shows what a Node client can do at best.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { which } from './servers.js';

export interface CeilingResult {
  client: string;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  megabytesPerSecond: number;
  note?: string;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** Sequential GETs over one keep-alive connection for `seconds`. */
export async function netLoop(port: number, paths: readonly string[], seconds: number, host = '127.0.0.1'): Promise<CeilingResult> {
  const requests = paths.map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\nHost: ${host}:${port}\r\nUser-Agent: bench-ceiling\r\nAccept: */*\r\n\r\n`, 'latin1'));
  const sock = connect(port, host);
  sock.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  let done = 0;
  let bytes = 0;
  let k = 0;
  let buf: Buffer = Buffer.alloc(0);
  let need = -1; // bytes of the current response still to come after the header; -1: header not complete
  const start = performance.now();
  const until = start + seconds * 1000;
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const finished = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const send = (): void => {
    sock.write(requests[k++ % requests.length]!);
  };
  sock.on('data', (chunk: Buffer) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    for (;;) {
      if (need < 0) {
        const end = buf.indexOf(CRLF2);
        if (end === -1) return;
        const head = buf.subarray(0, end).toString('latin1');
        const m = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
        if (m === null) {
          fail(new Error(`ceiling: response without Content-Length: ${head.split('\r\n')[0]}`));
          return;
        }
        need = Number(m[1]);
        bytes += end + 4;
        buf = buf.subarray(end + 4);
      }
      if (buf.length < need) return;
      bytes += need;
      buf = buf.subarray(need);
      need = -1;
      done++;
      if (performance.now() >= until) {
        finish();
        return;
      }
      send();
    }
  });
  sock.once('error', (e) => fail(e));
  sock.once('close', () => fail(new Error('ceiling: the server closed the connection')));
  send();
  try {
    await finished;
  } finally {
    sock.removeAllListeners('close');
    sock.destroy();
  }
  const elapsed = (performance.now() - start) / 1000;
  return { client: 'node:net loop (1 connection, sequential)', seconds: elapsed, requests: done, requestsPerSecond: done / elapsed, megabytesPerSecond: bytes / 1e6 / elapsed };
}

/** wrk -t1 -c1 over the same paths, or undefined when wrk is not installed. */
export function wrkLoop(port: number, paths: readonly string[], seconds: number, scratch: string): CeilingResult | undefined {
  const wrk = which('wrk');
  if (wrk === undefined) return undefined;
  const script = join(scratch, 'paths.lua');
  const list = paths.slice(0, 5000).map((p) => JSON.stringify(p)).join(',\n');
  writeFileSync(
    script,
    `local paths = {\n${list}\n}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format("GET", paths[i])\nend\n`,
  );
  const r = spawnSync(wrk, ['-t1', '-c1', `-d${Math.max(1, Math.round(seconds))}s`, '-s', script, `http://127.0.0.1:${port}/`], { encoding: 'utf8' });
  const out = `${r.stdout}${r.stderr}`;
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const total = /(\d+) requests in ([\d.]+)(m?s)/.exec(out);
  const xfer = /Transfer\/sec:\s+([\d.]+)([KMG]?B)/.exec(out);
  if (rps === null || total === null) return { client: 'wrk -t1 -c1', seconds, requests: 0, requestsPerSecond: NaN, megabytesPerSecond: NaN, note: `could not parse wrk output: ${out.slice(0, 300)}` };
  const unit = xfer?.[2] === 'GB' ? 1024 ** 3 : xfer?.[2] === 'MB' ? 1024 ** 2 : xfer?.[2] === 'KB' ? 1024 : 1;
  const elapsed = Number(total[2]) / (total[3] === 'ms' ? 1000 : 1);
  return {
    client: 'wrk -t1 -c1 (Lua: cycling page paths)',
    seconds: elapsed,
    requests: Number(total[1]),
    requestsPerSecond: Number(rps[1]),
    megabytesPerSecond: xfer === null ? NaN : (Number(xfer[1]) * unit) / 1e6,
  };
}
