/**
 * A crawl stopped in the middle, as a user's kill or Ctrl-C stops it: a
 * site of slow pages (p0 links to p0..p29) and a run killed once it has
 * logged some pages. Used by the resume tests of the archive and outputs.
 */
import assert from 'node:assert/strict';
import { page, startSite, type Route, type SiteServer } from './site-server.js';
import { startProgram } from './spawn.js';

export const SLOW_PAGES = 30;

/** p0 links to every page; each answer takes a little while, so a crawl can be killed in the middle. Each page carries `padding` bytes more. */
export async function slowSite(padding = 0): Promise<{ site: SiteServer; all: string[] }> {
  const routes = new Map<string, Route>();
  const site = await startSite(routes);
  const links = Array.from({ length: SLOW_PAGES }, (_, i) => `/p${i}.html`);
  for (let i = 0; i < SLOW_PAGES; i++) {
    const body = page(`Page ${i}`, i === 0 ? links : ['/p0.html'], `<p>page number ${i}</p>${`<!-- ${i} -->`.repeat(Math.ceil(padding / 12))}`);
    routes.set(`/p${i}.html`, {
      handle: (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(body);
        }, 15);
      },
    });
  }
  return { site, all: links.map((l) => `${site.origin}${l}`) };
}

/** Runs the crawl and stops it with `signal` (SIGKILL: kill -9) once `fetched` pages are logged. */
export async function crawlKilledAfter(args: string[], fetched: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const run = startProgram('crawler', args);
  let seen = 0;
  let sent = false;
  run.child.stdout.on('data', (d: Buffer) => {
    seen += (d.toString().match(/Fetched:/g) ?? []).length;
    if (seen >= fetched && !sent) {
      sent = true;
      run.child.kill(signal);
    }
  });
  const r = await run.done;
  if (signal === 'SIGKILL') assert.equal(r.signal, 'SIGKILL', `killed after ${fetched} pages (stderr: ${r.stderr})`);
  else assert.equal(r.code, 130, `stopped by ${signal} after ${fetched} pages (stderr: ${r.stderr})`);
}
