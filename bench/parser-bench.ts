/**
 * The response parser alone: this build's ResponseParser against another
 * build's, on 20,000 responses of 20 KB each, once with Content-Length
 * framing and once chunked, every message fed in pieces cut at random
 * offsets (seed fixed, so both builds get the same pieces). Run after
 * building:
 *
 *   node dist/bench/parser-bench.js [runs] [OTHER/src/http/response-parser.js]
 *
 * To compare with an earlier commit, build that commit's tree into a
 * directory of its own (as for entities-bench.ts) and pass its
 * response-parser.js. Each run is a fresh process (so the builds share no
 * JIT state); runs alternate the builds, the order flipping each round, and
 * medians are reported, wall and CPU milliseconds. Each run also prints a
 * checksum of what was parsed, which must be the same for both builds.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './measure.js';
import { createRandom } from './synthetic-page.js';

const RESPONSES = 20_000;
const BODY_BYTES = 20 * 1024;
/** Distinct messages (with their pieces), cycled through RESPONSES times in all. */
const DISTINCT = 200;
const HEAD = 'HTTP/1.1 200 OK\r\nDate: Mon, 01 Jan 2024 00:00:00 GMT\r\nServer: nginx/1.24.0\r\nContent-Type: text/html; charset=utf-8\r\nLast-Modified: Sun, 31 Dec 2023 00:00:00 GMT\r\nConnection: keep-alive\r\nETag: "6590b1a0-5000"\r\nAccept-Ranges: bytes\r\n';

interface ParserLike {
  feed(chunk: Buffer): void;
  readonly done: boolean;
  readonly response: { body: Buffer; headers: unknown[] } | undefined;
}
type ParserClass = new () => ParserLike;

/** `message` cut at random offsets into pieces of 1 to 8,192 bytes. */
function cut(random: () => number, message: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  for (let pos = 0; pos < message.length; ) {
    const n = Math.min(message.length - pos, 1 + Math.floor(random() * 8192));
    pieces.push(message.subarray(pos, pos + n));
    pos += n;
  }
  return pieces;
}

function messages(chunked: boolean): Buffer[][] {
  const random = createRandom(chunked ? 2 : 1);
  const out: Buffer[][] = [];
  for (let m = 0; m < DISTINCT; m++) {
    const body = Buffer.alloc(BODY_BYTES, 97 + (m % 26));
    let message: Buffer;
    if (!chunked) message = Buffer.concat([Buffer.from(`${HEAD}Content-Length: ${BODY_BYTES}\r\n\r\n`, 'latin1'), body]);
    else {
      // Chunks of 1 to 4,096 bytes, as a streaming server writes them.
      const parts = [Buffer.from(`${HEAD}Transfer-Encoding: chunked\r\n\r\n`, 'latin1')];
      for (let pos = 0; pos < body.length; ) {
        const n = Math.min(body.length - pos, 1 + Math.floor(random() * 4096));
        parts.push(Buffer.from(`${n.toString(16)}\r\n`, 'latin1'), body.subarray(pos, pos + n), Buffer.from('\r\n', 'latin1'));
        pos += n;
      }
      parts.push(Buffer.from('0\r\n\r\n', 'latin1'));
      message = Buffer.concat(parts);
    }
    out.push(cut(random, message));
  }
  return out;
}

/** Parses RESPONSES messages; returns wall and CPU ms and a checksum of what was parsed. */
function time(Parser: ParserClass, set: Buffer[][]): { wall: number; cpu: number; sum: number } {
  let sum = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < RESPONSES; i++) {
    const parser = new Parser();
    for (const piece of set[i % DISTINCT] as Buffer[]) parser.feed(piece);
    const response = parser.response;
    if (!parser.done || response === undefined) throw new Error('incomplete response');
    sum += response.body.length + response.headers.length + (response.body[i % BODY_BYTES] as number);
  }
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000, sum };
}

async function child(modulePath: string): Promise<void> {
  const { ResponseParser } = (await import(pathToFileURL(modulePath).href)) as { ResponseParser: ParserClass };
  const result: Record<string, unknown> = {};
  for (const framing of ['length', 'chunked'] as const) {
    const set = messages(framing === 'chunked');
    time(ResponseParser, set); // warm-up
    result[framing] = time(ResponseParser, set);
  }
  console.log(JSON.stringify(result));
}

function main(): void {
  const runs = Number(process.argv[2] ?? 5);
  const builds = [resolve(fileURLToPath(new URL('../src/http/response-parser.js', import.meta.url)))];
  if (process.argv[3] !== undefined) builds.push(resolve(process.argv[3]));
  type Run = Record<'length' | 'chunked', { wall: number; cpu: number; sum: number }>;
  const results: Run[][] = builds.map(() => []);
  for (let round = 0; round < runs; round++) {
    const order = builds.map((_, k) => k);
    if (round % 2 === 1) order.reverse();
    for (const k of order) {
      const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', builds[k] as string], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`run failed: ${run.stderr}`);
      (results[k] as Run[]).push(JSON.parse(run.stdout) as Run);
    }
  }
  console.log(`${RESPONSES} responses of ${BODY_BYTES} bytes, fed in random pieces; medians of ${runs} runs (each a fresh process)`);
  for (const framing of ['length', 'chunked'] as const) {
    builds.forEach((build, k) => {
      const rs = (results[k] as Run[]).map((r) => r[framing]);
      const walls = rs.map((r) => r.wall.toFixed(1)).join(' ');
      const sums = new Set(rs.map((r) => r.sum));
      console.log(`  ${framing.padEnd(8)} ${median(rs.map((r) => r.wall)).toFixed(1).padStart(7)} ms wall, ${median(rs.map((r) => r.cpu)).toFixed(1).padStart(7)} ms CPU   checksum ${[...sums].join('/')}   ${build}   (wall: ${walls})`);
    });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string);
else main();
