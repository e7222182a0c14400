/**
 * The built-in demo site that `npm run demo` crawls, also served by tests
 * that crawl it end to end (the archive's replay test).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

function pageHtml(title: string, body: string): string {
  return `<!DOCTYPE html>\n<html><head><title>${title}</title></head>\n<body>\n<h1>${title}</h1>\n${body}\n</body></html>\n`;
}

/** The pages, by request target. */
const SITE: Record<string, { type: string; body: string }> = {
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

/** The demo site's start page, the seed of `npm run demo`. */
export const DEMO_SEED_PATH = '/index.html';

export interface DemoSite {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves the demo site on 127.0.0.1 (a free port): pages in several
 * directories, links written every which way, a robots.txt disallow, a
 * redirect, a 404, and a page that answers 429 with Retry-After: 1 the first
 * time it is asked, so the crawl's report shows a pause and back-off.
 */
export function startDemoSite(): Promise<DemoSite> {
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
    const p = SITE[req.url ?? ''];
    if (p === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>not found</body></html>');
      return;
    }
    res.writeHead(200, { 'content-type': p.type });
    res.end(p.body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((done) => server.close(() => done())) });
    });
  });
}
