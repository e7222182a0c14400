/**
 * Synthetic crawl events for the report's tests: wire exchanges, responses,
 * saved pages and links as the engine would emit them, without a network.
 */
import { join } from 'node:path';
import type { CrawlEvent } from '../../src/engine/events.js';
import type { WireExchange } from '../../src/http/wire-exchange.js';
import { ReportRecorder } from '../../src/report/report-recorder.js';
import type { RunInfo } from '../../src/report/report-records.js';
import { parseHttpUrl, type HttpUrl } from '../../src/url/http-url.js';

export const T0 = Date.UTC(2026, 11, 3, 12, 0, 0);

export function url(href: string): HttpUrl {
  return parseHttpUrl(href);
}

/** One exchange: `url` requested at `start` (epoch ms) for `ms`, answered `status` with `bytes` bytes. */
export function exchange(href: string, start: number, ms: number, status: number, bytes = 100): CrawlEvent {
  const x: WireExchange = {
    url: url(href),
    method: 'GET',
    ip: '127.0.0.1',
    sent: true,
    startedAt: start,
    endedAt: start + ms,
    request: Buffer.from('GET / HTTP/1.1\r\n\r\n'),
    response: Buffer.alloc(bytes),
    payload: undefined,
    status,
    reused: false,
  };
  return { type: 'exchange', exchange: x };
}

export function run(over: Partial<RunInfo> = {}): RunInfo {
  return { program: 'crawler', command: ['crawler', 'http://a.test/', 'pages', '2'], versions: 'polite-crawler test', startedAt: T0, delayMs: 1000, pageDir: 'pages', ...over };
}

/** A recorder (no journal) for `file`, started. */
export function recorder(file: string, info: RunInfo = run()): ReportRecorder {
  const r = new ReportRecorder({ file, run: info });
  r.start();
  return r;
}

/**
 * A breadth-first crawl of `pages` pages on `hosts` hosts, each page linking
 * to the next ones (10 links a page), one request a second per host; a page
 * in 50 answers 404.
 */
export function bigCrawl(pages: number, hosts = 4): CrawlEvent[] {
  const events: CrawlEvent[] = [];
  const href = (i: number): string => `http://h${i % hosts}.test/dir/page-${i}.html?q=${i}`;
  const depthOf: number[] = [0];
  let id = 0;
  let next = 1;
  for (let i = 0; i < pages; i++) {
    const depth = depthOf[i] ?? 0;
    const start = T0 + Math.floor(i / hosts) * 1000 + (i % hosts) * 7;
    const status = i % 50 === 49 ? 404 : 200;
    events.push(exchange(href(i), start, 20 + (i % 13), status, 15_000));
    events.push({ type: 'response', url: url(href(i)), depth, status });
    if (status !== 200) {
      events.push({ type: 'failed', url: url(href(i)).key, depth, reason: '(HTTP 404)' });
      continue;
    }
    events.push({ type: 'saved', url: url(href(i)), depth, id: ++id });
    events.push({ type: 'scanning', url: url(href(i)), depth });
    for (let k = 0; k < 10; k++) {
      if (next < pages && k < 3) {
        depthOf[next] = depth + 1;
        events.push({ type: 'link', depth, raw: href(next), url: url(href(next)), action: 'follow' });
        next++;
      } else {
        events.push({ type: 'link', depth, raw: href(i), url: url(href(i)), action: 'duplicate' });
      }
    }
  }
  return events;
}

/** The report of a crawl of `pages` synthetic pages (bigCrawl), written to `dir/big.html`; returns the file's path. */
export function writeBigReport(dir: string, pages: number): string {
  const file = join(dir, 'big.html');
  const r = recorder(file, run({ pageDir: join(dir, 'pages'), command: ['crawler', 'http://h0.test/dir/page-0.html?q=0', 'pages', '10'] }));
  for (const e of bigCrawl(pages)) r.consume(e);
  r.finish('the crawl finished');
  return file;
}
