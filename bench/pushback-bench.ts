/**
 * Section "pushback" (issue 13): a server that answers every fifth request
 * with `429 Too Many Requests` and `Retry-After: 1`, crawled by
 * `./crawler --delay D` with its default --retries.
 *
 * - Requests inside a pause: a request that arrived at the server less than
 *   1 s after a 429 was sent. Must be 0. The server's clock only makes this
 *   stricter than the crawler's: the crawler receives the 429 after the
 *   server sent it, and the server notes a request after it arrived.
 * - Time against the ideal: from the first request's arrival to the
 *   crawler's exit, against the sum of the least gaps between the request
 *   starts the server saw: D after a 200, max(1 s, the backed-off interval
 *   2D) after a 429 (1 s for D <= 0.5). Target: at most 1.1x.
 * - Pages saved, for the record: with every fifth request refused, a page
 *   whose retries also land on a fifth request runs out of its tries
 *   (default --retries 2) and fails, as the spec says it must.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMeasured } from './measure.js';
import { generatePage } from './synthetic-page.js';

export interface PushbackResult {
  command: string;
  pages: number;
  pagesSaved: number;
  delaySeconds: number;
  retryAfterSeconds: number;
  requests: number;
  refused: number;
  /** Requests that arrived inside a pause (must be 0). */
  insidePause: number;
  /** Shortest time from a 429 to the next request, ms. */
  leastGapAfter429Ms: number;
  /** First request's arrival to the crawler's exit. */
  crawlSeconds: number;
  idealSeconds: number;
  ratio: number;
  wallSeconds: number;
  target: string;
  ok: boolean;
  note?: string;
}

/**
 * The least time from the first of `requests` request starts to the last:
 * each gap is `delay` s, or max(`pause`, 2 x `delay`) s after a request
 * answered 429 (`refused` of them that had a request after them).
 */
export function pushbackIdeal(requests: number, refused: number, delay: number, pause: number): number {
  if (requests < 2) return 0;
  return (requests - 1 - refused) * delay + refused * Math.max(pause, 2 * delay);
}

/** Counts the requests that arrived inside a pause, and the shortest gap after a 429. */
export function pauseViolations(arrivals: readonly number[], refusedAt: readonly number[], pauseMs: number): { inside: number; leastGapMs: number } {
  let inside = 0;
  let least = Infinity;
  for (const t of refusedAt) {
    const next = arrivals.find((a) => a > t);
    if (next !== undefined) least = Math.min(least, next - t);
    inside += arrivals.filter((a) => a > t && a < t + pauseMs).length;
  }
  return { inside, leastGapMs: least };
}

export async function pushbackSection(repo: string, scratch = tmpdir(), pages = 20, delaySeconds = 0.1, retryAfter = 1, every = 5): Promise<PushbackResult> {
  const files = new Map<string, string>();
  for (let k = 0; k < pages; k++) {
    const kids: string[] = [];
    for (let c = 3 * k + 1; c <= 3 * k + 3 && c < pages; c++) kids.push(`/p${c}.html`);
    files.set(k === 0 ? '/index.html' : `/p${k}.html`, generatePage(5000 + k, kids));
  }
  const arrivals: number[] = [];
  const refusedAt: number[] = [];
  const server = createServer((req, res) => {
    const now = performance.now();
    arrivals.push(now);
    if (arrivals.length % every === 0) {
      refusedAt.push(now);
      res.writeHead(429, { 'retry-after': String(retryAfter), 'content-type': 'text/plain', 'content-length': 18 }).end('too many requests\n');
      return;
    }
    const body = files.get((req.url ?? '/').split('?')[0]!);
    if (body === undefined) res.writeHead(404, { 'content-type': 'text/plain', 'content-length': 10 }).end('not found\n');
    else res.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(body) }).end(body);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const dir = mkdtempSync(join(scratch, 'pushback-'));
  const args = ['--delay', String(delaySeconds), '--quiet', `http://127.0.0.1:${port}/index.html`, dir, '6'];
  const t0 = performance.now();
  const m = await runMeasured(join(repo, 'crawler'), args, { cwd: repo, timeoutMs: 5 * 60_000 });
  const end = t0 + m.wallSeconds * 1000;
  server.closeAllConnections();
  server.close();
  const saved = readdirSync(dir).filter((n) => /^[1-9][0-9]*$/.test(n)).length;
  rmSync(dir, { recursive: true, force: true });
  const v = pauseViolations(arrivals, refusedAt, retryAfter * 1000);
  const last = arrivals[arrivals.length - 1] ?? 0;
  const ideal = pushbackIdeal(arrivals.length, refusedAt.filter((t) => t < last).length, delaySeconds, retryAfter);
  const crawlSeconds = arrivals.length > 0 ? (end - arrivals[0]!) / 1000 : NaN;
  const ratio = crawlSeconds / ideal;
  return {
    command: `./crawler ${args.join(' ')}`,
    pages,
    pagesSaved: saved,
    delaySeconds,
    retryAfterSeconds: retryAfter,
    requests: arrivals.length,
    refused: refusedAt.length,
    insidePause: v.inside,
    leastGapAfter429Ms: v.leastGapMs,
    crawlSeconds,
    idealSeconds: ideal,
    ratio,
    wallSeconds: m.wallSeconds,
    target: '0 requests inside a pause; time <= 1.1x ideal',
    ok: m.exitCode === 0 && v.inside === 0 && ratio <= 1.1,
    note: m.exitCode !== 0 ? `exit ${m.exitCode ?? m.signal}: ${m.stderr.slice(-300)}` : undefined,
  };
}

export function formatPushback(p: PushbackResult): string[] {
  return [
    `push-back: every 5th request answered 429 Retry-After: ${p.retryAfterSeconds}, --delay ${p.delaySeconds}, default --retries: ${p.pagesSaved}/${p.pages} pages saved, ${p.requests} requests (${p.refused} refused)`,
    `  requests inside a pause: ${p.insidePause} (must be 0; least gap after a 429 ${p.leastGapAfter429Ms.toFixed(0)} ms); crawl (first request to exit) ${p.crawlSeconds.toFixed(2)} s vs ideal ${p.idealSeconds.toFixed(2)} s = ${p.ratio.toFixed(3)}x (target <= 1.1x) ${p.ok ? 'ok' : 'CHECK'}; wall with start-up ${p.wallSeconds.toFixed(2)} s${p.note ? ` (${p.note})` : ''}`,
  ];
}
