/**
 * Scenario rows about redirects and URL identity (spec decisions "`crawler`":
 * redirects followed up to --max-redirects hops while they stay internal;
 * URL identity; "One crawl, whatever runs it": --max-redirects bounds every
 * chain in both modes). A redirect is the last URL of its depth, so that a
 * private crawl (which follows it at once) and a worker (which queues its
 * target at the same depth) tell the same order.
 */
import { html, page, scenarioTable, type Route } from '../helpers/scenario-table.js';

const moved = (location: string): Route => ({ status: 301, headers: { location } });

scenarioTable([
  {
    name: 'a redirect chain beyond --max-redirects 3: the page fails, the 5th URL is never requested',
    maxDepth: 1,
    maxRedirects: 3,
    routes: () => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', ['/a.html', '/r1'])),
      '/a.html': html(page('a')),
      '/r1': moved('/r2'),
      '/r2': moved('/r3'),
      '/r3': moved('/r4'),
      '/r4': moved('/r5'),
      '/r5': html(page('r5')),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/r1 follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 H/r1 301',
      'redirect 1 H/r1 -> H/r2 follow',
      'response 1 H/r2 301',
      'redirect 1 H/r2 -> H/r3 follow',
      'response 1 H/r3 301',
      'redirect 1 H/r3 -> H/r4 follow',
      'response 1 H/r4 301',
      'redirect 1 H/r4 -> H/r5 invalid (more than 3 redirects)',
    ],
    never: ['H GET /r5'],
  },
  {
    name: 'a redirect loop (/l1 -> /l2 -> /l1): already seen',
    maxDepth: 1,
    routes: () => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', ['/a.html', '/l1'])),
      '/a.html': html(page('a')),
      '/l1': moved('/l2'),
      '/l2': moved('/l1'),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/l1 follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 H/l1 301',
      'redirect 1 H/l1 -> H/l2 follow',
      'response 1 H/l2 301',
      'redirect 1 H/l2 -> H/l1 duplicate',
    ],
  },
  {
    name: 'a redirect off the crawl: not requested, outside the crawl',
    maxDepth: 1,
    routes: (o) => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', ['/a.html', '/off', '/off2'])),
      '/a.html': html(page('a')),
      '/off': moved('http://elsewhere.example/'),
      // The other server under a name outside the scope: a request would show at that server.
      '/off2': moved(`${o.other.replace('127.0.0.1', 'localhost')}/there.html`),
    }),
    otherRoutes: () => ({ '/there.html': html(page('there')) }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/off follow',
      'link 0 H/off2 follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 H/off 301',
      'redirect 1 H/off -> http://elsewhere.example/ external',
      'response 1 H/off2 301',
      'redirect 1 H/off2 -> L/there.html external',
    ],
    never: ['O GET /there.html', 'C L', 'C http://elsewhere.example:80'],
  },
  {
    name: 'spellings of one URL (dot segments, scheme case, a fragment): one fetch, the others IgnDupl',
    maxDepth: 1,
    routes: (o) => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', ['/a.html', '/./a.html', `${o.main.replace('http:', 'HTTP:')}/a.html#x`, '/b/../a.html'])),
      '/a.html': html(page('a')),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/a.html duplicate',
      'link 0 H/a.html duplicate',
      'link 0 H/a.html duplicate',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
  },
]);
