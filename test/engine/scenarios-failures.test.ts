/**
 * Scenario rows about pages that fail (spec decisions "`crawler`", "When the
 * server pushes back", "Bounded by default", "One crawl, whatever runs it":
 * the same events with the same reasons): error statuses, a retried 429,
 * a body over the cap, a response that never comes, a reset mid-body, a
 * response that is not HTML, and a failure that is not a CrawlerError
 * thrown below the fetcher, after which the crawl goes on.
 */
import { DEFAULT_LIMITS } from '../../src/http/response-parser.js';
import { html, page, robotsTxt, scenarioTable } from '../helpers/scenario-table.js';

const noRobots = { status: 404 };

scenarioTable([
  {
    name: 'pages answered 404 and 500 (--retries 0): Failed with their status, not tried again',
    maxDepth: 1,
    retries: 0,
    routes: () => ({
      '/robots.txt': noRobots,
      '/': html(page('home', ['/nf.html', '/err.html', '/a.html'])),
      '/nf.html': html('gone', 404),
      '/err.html': html('oops', 500),
      '/a.html': html(page('a')),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/nf.html follow',
      'link 0 H/err.html follow',
      'link 0 H/a.html follow',
      'response 1 H/nf.html 404',
      'failed 1 H/nf.html (HTTP 404)',
      'response 1 H/err.html 500',
      'failed 1 H/err.html (HTTP 500)',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
  },
  {
    name: 'a page answered 429, then 200 (--retries 1): saved on its second try',
    maxDepth: 1,
    retries: 1,
    routes: () => {
      let tries = 0;
      return {
        '/robots.txt': noRobots,
        '/': html(page('home', ['/a.html', '/busy.html'])),
        '/a.html': html(page('a')),
        '/busy.html': { handle: (_req, res) => (tries++ === 0 ? res.writeHead(429, { 'content-length': '0' }).end() : res.writeHead(200, { 'content-type': 'text/html' }).end(page('busy'))) },
      };
    },
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/busy.html follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 H/busy.html 429',
      'response 1 H/busy.html 200',
      'saved 1 H/busy.html #3',
    ],
  },
  {
    name: 'a body over --max-body-bytes: Failed with the same reason',
    maxDepth: 1,
    client: { limits: { ...DEFAULT_LIMITS, maxBodyBytes: 4096 } },
    routes: () => ({
      '/robots.txt': noRobots,
      '/': html(page('home', ['/big.html', '/a.html'])),
      '/big.html': html(page('big', [], 'x'.repeat(10_000))),
      '/a.html': html(page('a')),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/big.html follow',
      'link 0 H/a.html follow',
      'response 1 H/big.html 200 ERR_BODY_OVERFLOW',
      'failed 1 H/big.html (chunked body exceeds maxBodyBytes (4096 bytes))',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
  },
  {
    name: 'a response that never comes (a short response timeout): Failed with the same reason',
    maxDepth: 1,
    client: { responseTimeoutMs: 300 },
    routes: () => ({
      '/robots.txt': noRobots,
      '/': html(page('home', ['/a.html', '/never.html'])),
      '/a.html': html(page('a')),
      '/never.html': { handle: () => undefined },
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/never.html follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 H/never.html 0 ERR_RESPONSE_TIMEOUT',
      'failed 1 H/never.html (response not complete after 300 ms (response timeout))',
    ],
  },
  {
    name: 'a connection reset in the middle of a body',
    maxDepth: 1,
    raw: async (conn) => {
      for (;;) {
        const head = await conn.nextRequest();
        if (head === undefined) return;
        if (head.startsWith('GET /reset ')) {
          conn.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\n<html><body>reset he');
          setTimeout(() => conn.socket.resetAndDestroy(), 20);
          return;
        }
        conn.socket.write('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      }
    },
    routes: (o) => ({
      '/robots.txt': noRobots,
      '/': html(page('home', ['/a.html', `${o.raw}/reset`])),
      '/a.html': html(page('a')),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'robots R allow-all group= rules=0',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 R/reset follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 R/reset 200 ERR_SOCKET',
      'failed 1 R/reset (connection reset by the server)',
    ],
  },
  {
    name: 'a response that is not HTML (image/png at a .html path): Failed, not HTML',
    maxDepth: 1,
    routes: () => ({
      '/robots.txt': noRobots,
      '/': html(page('home', ['/pic.html', '/a.html'])),
      '/pic.html': { headers: { 'content-type': 'image/png' }, body: Buffer.from('89504e470d0a1a0a', 'hex') },
      '/a.html': html(page('a')),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/pic.html follow',
      'link 0 H/a.html follow',
      'response 1 H/pic.html 200',
      'failed 1 H/pic.html (not HTML: image/png)',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
  },
  {
    name: 'an error that is not a CrawlerError, thrown below the fetcher: the page fails with its reason and the crawl goes on',
    maxDepth: 1,
    // Each request on a connection of its own, so that the other host's page (not its robots.txt) meets the fault.
    client: { keepAlive: false },
    connector: (base, sites) => {
      let toOther = 0;
      return (endpoint, timeoutMs) => (endpoint.port === sites.other.port && ++toOther > 1 ? Promise.reject(new TypeError('boom')) : base(endpoint, timeoutMs));
    },
    routes: (o) => ({
      '/robots.txt': noRobots,
      // The other host's page between two of this host's: the order both schedulers take (a worker takes the host whose turn came first).
      '/': html(page('home', ['/a.html', `${o.other}/boom.html`, '/b.html'])),
      '/a.html': html(page('a')),
      '/b.html': html(page('b')),
    }),
    otherRoutes: () => ({ '/robots.txt': robotsTxt('User-agent: *\nAllow: /\n'), '/boom.html': html(page('boom')) }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'robots O file group=* rules=1',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 O/boom.html follow',
      'link 0 H/b.html follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 O/boom.html 0 ERR_SOCKET',
      'failed 1 O/boom.html (unexpected failure: TypeError: boom)',
      'response 1 H/b.html 200',
      'saved 1 H/b.html #3',
    ],
  },
]);
