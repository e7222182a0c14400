/**
 * `npm run measure:memory`: a crawl whose frontier grows past one million
 * URLs, and the crawler's peak resident memory (VmHWM). A generated site on
 * loopback gives every page LINKS links to new pages; crawling to depth 2
 * with --max-pages 1 + LINKS fetches depth 0 and 1 and queues LINKS^2 URLs.
 * Prints one JSON line: { urls, pages, seconds, peakRssMB }.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LINKS = Number(process.env['LINKS'] ?? 1000);

/** Peak resident set of a live process, in kB, from /proc (0 when gone). */
function peakKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? 0 : Number(m[1]);
  } catch {
    return 0;
  }
}

/**
 * Crawls the generated site to depth 2 with --max-pages 1 + `links`, so
 * `links`^2 URLs are queued; `extraArgs` go before the positionals (e.g.
 * `--frontier sqlite:FILE` to measure the shared store instead).
 */
export async function measureFrontierMemory(links = LINKS, extraArgs: string[] = []): Promise<{ urls: number; pages: number; seconds: number; peakRssMB: number }> {
  const server = createServer((req, res) => {
    const m = /^\/p\/([0-9]+)\.html$/.exec(req.url ?? '');
    if (m === null) {
      res.writeHead(404).end();
      return;
    }
    const n = Number(m[1]);
    let body = '<html><body>\n';
    for (let k = 1; k <= links; k++) body += `<a href="/p/${n * links + k}.html">${k}</a>\n`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(body + '</body></html>\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), 'measure-memory-'));
  const pages = 1 + links;
  const started = performance.now();
  const child = spawn(join(root, 'crawler'), ['--delay', '0', '--quiet', '--ignore-robots', '--max-pages', String(pages), ...extraArgs, `http://127.0.0.1:${port}/p/0.html`, dir, '2'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // The wrapper execs node, so the pid is the crawler's own.
  let peak = 0;
  const poll = setInterval(() => (peak = Math.max(peak, peakKb(child.pid as number))), 50);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearInterval(poll);
  server.close();
  rmSync(dir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`crawler exited ${code}`);
  return { urls: pages + links * links, pages, seconds: Number(((performance.now() - started) / 1000).toFixed(1)), peakRssMB: Math.round(peak / 1024) };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  measureFrontierMemory().then(
    (r) => console.log(JSON.stringify(r)),
    (err: unknown) => {
      console.error(`measure-memory: ${String(err)}`);
      process.exit(1);
    },
  );
}
