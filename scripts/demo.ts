/**
 * `npm run demo`: serves a small built-in site on loopback, crawls it with
 * ./crawler into ./demo-pages (depth 3, 0.2 s delay so it takes seconds),
 * then says where the pages went and where its report is
 * (./demo-report.html, one self-contained page to open in a browser).
 * Nothing leaves this machine.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function pageHtml(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html><head><title>${title}</title></head>\n<body>\n<h1>${title}</h1>\n${body}\n</body></html>\n`;
}

const site: Record<string, { type: string; body: string }> = {
  '/robots.txt': { type: 'text/plain', body: 'User-agent: *\nDisallow: /private/\n' },
  '/': { type: 'text/html', body: pageHtml('Root', '<a href="index.html">Home</a>') },
  '/index.html': {
    type: 'text/html',
    body: pageHtml('Demo home', [
      '<p>A tiny site for polite-crawler.</p>',
      '<a href="about.html">About</a> <a href="/docs/">Docs</a>',
      "<a href='news/2026.html'>News (single quotes)</a>",
      '<A HREF=blog/index.html>Blog (no quotes, upper case)</A>',
      '<a href="https://example.com/">An external link (never requested)</a>',
      '<a href="/private/secret.html">Disallowed by robots.txt</a>',
      '<a href="logo.png">An image (not requested)</a>',
      '<a href="busy.html">A busy page (429 with Retry-After: 1 the first time)</a> <a href="gone.html">A page that is gone (404)</a>',
      '<!-- <a href="commented.html">inside a comment: ignored</a> -->',
    ].join('\n')),
  },
  '/about.html': { type: 'text/html', body: pageHtml('About', '<a href="index.html#top">Home</a> <a href="./docs/intro.html">Intro</a>') },
  '/docs/': { type: 'text/html', body: pageHtml('Docs', '<a href="intro.html">Intro</a> <a href="../about.html">About</a> <a href="api.html?v=2">API</a>') },
  '/docs/intro.html': { type: 'text/html', body: pageHtml('Intro', '<a href="/docs/api.html?v=2">API</a> <a href="deep/one.html">Deeper</a>') },
  '/docs/api.html?v=2': { type: 'text/html', body: pageHtml('API', '<a href="/">Home</a>') },
  '/docs/deep/one.html': { type: 'text/html', body: pageHtml('Deep one', '<a href="two.html">Two (depth 4: beyond maxDepth 3)</a>') },
  '/docs/deep/two.html': { type: 'text/html', body: pageHtml('Deep two', '') },
  '/news/2026.html': { type: 'text/html', body: pageHtml('News', '<a href="/old-news.html">Old news (redirects)</a>') },
  '/news/archive.html': { type: 'text/html', body: pageHtml('Archive', '<p>Moved here.</p>') },
  '/blog/index.html': { type: 'text/html', body: pageHtml('Blog', '<a href="../index.html">Home</a> <a href="post-1.html">Post</a>') },
  '/blog/post-1.html': { type: 'text/html', body: pageHtml('Post 1', '<p>Hello.</p>') },
  '/private/secret.html': { type: 'text/html', body: pageHtml('Secret', '') },
  '/busy.html': { type: 'text/html', body: pageHtml('Busy', '<p>Served on the second try.</p>') },
};

let busy = 0;
const server = createServer((req, res) => {
  if (req.url === '/busy.html' && busy++ === 0) {
    res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/html' });
    res.end('<html><body>slow down</body></html>');
    return;
  }
  if (req.url === '/old-news.html') {
    res.writeHead(301, { location: '/news/archive.html' });
    res.end();
    return;
  }
  const p = site[req.url ?? ''];
  if (p === undefined) {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<html><body>not found</body></html>');
    return;
  }
  res.writeHead(200, { 'content-type': p.type });
  res.end(p.body);
});

server.listen(0, '127.0.0.1', () => {
  const port = (server.address() as AddressInfo).port;
  const pageDir = join(root, 'demo-pages');
  mkdirSync(pageDir, { recursive: true });
  const seed = `http://127.0.0.1:${port}/index.html`;
  const report = join(root, 'demo-report.html');
  process.stderr.write(`demo: serving the built-in demo site at http://127.0.0.1:${port}/\n`);
  process.stderr.write(`demo: ./crawler --delay 0.2 --report demo-report.html ${seed} demo-pages 3\n\n`);
  // Relative names, from the repository's root: the report shows the command as a user would type it.
  const child = spawn(join(root, 'crawler'), ['--delay', '0.2', '--report', 'demo-report.html', seed, 'demo-pages', '3'], { stdio: 'inherit', cwd: root });
  child.on('close', (code) => {
    server.close();
    const files = readdirSync(pageDir).filter((f) => /^[0-9]+$/.test(f));
    process.stderr.write(`\ndemo: the crawl saved ${files.length} pages in ${pageDir} (files 1..${files.length}: URL, depth, then the HTML).\n`);
    process.stderr.write(`demo: look at one with: head -5 ${join('demo-pages', '1')}\n`);
    process.stderr.write(`demo: the crawl's report (timeline, statuses, robots.txt, the tree): open ${report} in a browser\n`);
    process.exit(code ?? 1);
  });
});
