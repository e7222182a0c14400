/**
 * The scheduler scenario table (spec decision "One crawl, whatever runs it";
 * style.md, "The seam is the visit"), its first rows: each site is crawled by
 * the private crawl and by shared workers on every store (see
 * test/helpers/scenario-table.ts), and all must tell the same events in the
 * same order: responses (a failure after the head keeps its status),
 * redirects, pages saved and failed, robots.txt decisions, every link; print
 * the same log and notes; save the same pages.
 *
 * The sites are laid out so that both orders of work coincide: a private
 * crawl follows a redirect at once, a worker queues its target at the same
 * depth, so a redirect here is the last URL of its depth; a retried page
 * waits behind the whole queue in one and behind its own depth in the
 * other, so it sits at the last depth.
 */
import { html, page, robotsTxt, scenarioTable } from '../helpers/scenario-table.js';

scenarioTable([
  {
    name: 'a small site: robots.txt, an external link, a non-page link, duplicates, a 404, a redirect last at its depth',
    maxDepth: 2,
    routes: () => ({
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\n'),
      '/': html(page('home', ['/a.html', 'http://elsewhere.example/x.html', '/private/p.html', 'mailto:me@example.com', '/img.png', '/a.html#again', '/missing.html', '/moved'])),
      '/a.html': html(page('a', ['/', '/c.html'])),
      '/missing.html': html('gone', 404),
      '/moved': { status: 301, headers: { location: '/b.html' } },
      '/b.html': html(page('b', ['/c.html', '/a.html'])),
      '/c.html': html(page('c', ['/d.html'])),
    }),
    expect: [
      'robots H file group=* rules=1',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 http://elsewhere.example/x.html external',
      'link 0 H/private/p.html robots',
      'link 0 raw:mailto:me@example.com invalid',
      'link 0 H/img.png external',
      'link 0 H/a.html duplicate',
      'link 0 H/missing.html follow',
      'link 0 H/moved follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'scanning 1 H/a.html',
      'link 1 H/ duplicate',
      'link 1 H/c.html follow',
      'response 1 H/missing.html 404',
      'failed 1 H/missing.html (HTTP 404)',
      'response 1 H/moved 301',
      'redirect 1 H/moved -> H/b.html follow',
      'response 1 H/b.html 200',
      'saved 1 H/b.html #3',
      'scanning 1 H/b.html',
      'link 1 H/c.html duplicate',
      'link 1 H/a.html duplicate',
      'response 2 H/c.html 200',
      'saved 2 H/c.html #4',
    ],
  },
  {
    name: 'a failure after the head keeps its status; a host of the crawl first met in a link has its robots.txt learnt then',
    maxDepth: 2,
    routes: (o) => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', [`${o.raw}/cut`, `${o.other}/o.html`, `${o.other}/private/no.html`])),
    }),
    otherRoutes: () => ({
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\n'),
      '/o.html': html(page('o', ['/'])),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'robots R allow-all group= rules=0',
      'robots O file group=* rules=1',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 R/cut follow',
      'link 0 O/o.html follow',
      'link 0 O/private/no.html robots',
      'response 1 R/cut 200 ERR_PREMATURE_CLOSE',
      'failed 1 R/cut (connection closed after the headers had arrived, before the end of the body (20 of 1000 bytes))',
      'response 1 O/o.html 200',
      'saved 1 O/o.html #2',
      'scanning 1 O/o.html',
      'link 1 O/ follow',
      'response 2 O/ 404',
      'failed 2 O/ (HTTP 404)',
    ],
  },
  {
    name: 'a seed that redirects; a page pushed back (503) is tried again later and saved',
    maxDepth: 2,
    retries: 1,
    routes: () => {
      let busy = 0;
      return {
        '/robots.txt': { status: 404 },
        '/': { status: 302, headers: { location: '/home.html' } },
        '/home.html': html(page('home', ['/a.html'])),
        '/a.html': html(page('a', ['/busy.html'])),
        '/busy.html': { handle: (_req, res) => (busy++ === 0 ? res.writeHead(503, { 'content-length': '0' }).end() : res.writeHead(200, { 'content-type': 'text/html' }).end(page('busy'))) },
      };
    },
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 302',
      'redirect 0 H/ -> H/home.html follow',
      'response 0 H/home.html 200',
      'saved 0 H/home.html #1',
      'scanning 0 H/home.html',
      'link 0 H/a.html follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'scanning 1 H/a.html',
      'link 1 H/busy.html follow',
      'response 2 H/busy.html 503',
      'response 2 H/busy.html 200',
      'saved 2 H/busy.html #3',
    ],
  },
  {
    name: 'sitemaps (--sitemaps): read once the seed\'s page is in, their URLs queued after its links, robots.txt applied',
    sitemaps: true,
    maxDepth: 2,
    routes: () => ({
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private\nSitemap: /sm.xml\n'),
      '/': html(page('home', ['/a.html'])),
      '/sm.xml': {
        handle: (req, res) => {
          const o = `http://${req.headers.host as string}`;
          res.writeHead(200, { 'content-type': 'application/xml' }).end(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/a.html</loc></url><url><loc>${o}/b.html</loc></url><url><loc>${o}/private/x.html</loc></url><url><loc>http://elsewhere.example/o.html</loc></url></urlset>`);
        },
      },
      '/a.html': html(page('a')),
      '/b.html': html(page('b')),
    }),
    expect: [
      'robots H file group=* rules=1',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'sitemap H/sm.xml read found=4 queued=1',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'scanning 1 H/a.html',
      'response 1 H/b.html 200',
      'saved 1 H/b.html #3',
      'scanning 1 H/b.html',
    ],
    notes: ['crawler: sitemap H/sm.xml: 4 URLs listed, 1 queued; 1 out of scope, 1 disallowed by robots.txt, 1 already known'],
  },
  {
    name: 'a seed robots.txt disallows: told once, nothing requested but robots.txt',
    maxDepth: 2,
    routes: () => ({
      '/robots.txt': robotsTxt('User-agent: *\nDisallow: /\n'),
      '/': html(page('home', ['/a.html'])),
    }),
    expect: ['robots H file group=* rules=1', 'disallowed 0 H/'],
  },
]);
