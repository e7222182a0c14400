/**
 * Scenario rows about robots.txt (RFC 9309; spec decisions "`crawler`" and
 * "One crawl, whatever runs it"): a file reached through a redirect to
 * another host of the crawl, 4xx (allow all), 5xx and a host that cannot be
 * resolved (disallow all, told once per host on stderr). Each row runs
 * through the private crawl and shared workers on every store
 * (test/helpers/scenario-table.ts).
 */
import { html, page, robotsTxt, scenarioTable } from '../helpers/scenario-table.js';

/** A host of the crawl (--internal) whose name does not resolve: the runs' lookups fail it without asking DNS. */
const DEAD = 'http://dead.example:9';

scenarioTable([
  {
    name: 'robots.txt redirects (301) to another host of the crawl, whose file disallows /private: obeyed (RFC 9309 §2.3.1.2)',
    maxDepth: 1,
    routes: (o) => ({
      '/robots.txt': { status: 301, headers: { location: `${o.other}/rules-for-h.txt` } },
      '/': html(page('home', ['/a.html', '/private/p.html'])),
      '/a.html': html(page('a')),
      '/private/p.html': html(page('private')),
    }),
    otherRoutes: () => ({ '/rules-for-h.txt': robotsTxt('User-agent: *\nDisallow: /private\n') }),
    expect: [
      'robots H file group=* rules=1',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/private/p.html robots',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
    never: ['H GET /private/p.html'],
  },
  {
    name: 'robots.txt redirects off the crawl: not requested, robots.txt unavailable (allow all), told once on stderr',
    maxDepth: 1,
    routes: (o) => ({
      // The other server under a name outside the crawl's scope: a request would show at that server.
      '/robots.txt': { status: 301, headers: { location: `${o.other.replace('127.0.0.1', 'localhost')}/rules.txt` } },
      '/': html(page('home', ['/a.html', '/private/p.html'])),
      '/a.html': html(page('a')),
      '/private/p.html': html(page('private')),
    }),
    otherRoutes: () => ({ '/rules.txt': robotsTxt('User-agent: *\nDisallow: /private\n') }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/private/p.html follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 H/private/p.html 200',
      'saved 1 H/private/p.html #3',
    ],
    notes: ['crawler: H/robots.txt redirects to L/rules.txt, outside the crawl: not followed, robots.txt treated as unavailable (allow all)'],
    never: ['O GET /rules.txt', 'C L'],
  },
  {
    name: 'robots.txt answered 503 on a host linked from the seed: disallow all, its links IgnRobots, told once on stderr',
    maxDepth: 1,
    routes: (o) => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', [`${o.other}/x.html`, '/a.html', `${o.other}/y.html`])),
      '/a.html': html(page('a', [`${o.other}/x.html`])),
    }),
    otherRoutes: () => ({ '/robots.txt': { status: 503, headers: { 'content-type': 'text/plain' } }, '/x.html': html(page('x')), '/y.html': html(page('y')) }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'robots O disallow-all group= rules=1',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 O/x.html robots',
      'link 0 H/a.html follow',
      'link 0 O/y.html robots',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
    notes: [
      'crawler: O/robots.txt answered HTTP 503, which means disallow all (RFC 9309)',
    ],
    never: ['O GET /x.html', 'O GET /y.html'],
  },
  {
    name: 'robots.txt 404 (allow all) on one host, a Disallow on another',
    maxDepth: 1,
    routes: (o) => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', ['/a.html', `${o.other}/ok.html`, `${o.other}/no/x.html`])),
      '/a.html': html(page('a')),
    }),
    otherRoutes: () => ({ '/robots.txt': robotsTxt('User-agent: *\nDisallow: /no/\n'), '/ok.html': html(page('ok')), '/no/x.html': html(page('no')) }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'robots O file group=* rules=1',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 O/ok.html follow',
      'link 0 O/no/x.html robots',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
      'response 1 O/ok.html 200',
      'saved 1 O/ok.html #3',
    ],
    never: ['O GET /no/x.html'],
  },
  {
    name: 'a host of the crawl whose name does not resolve: robots.txt cannot be fetched (disallow all), one note, its links IgnRobots',
    maxDepth: 1,
    moreScope: [DEAD],
    routes: () => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', [`${DEAD}/x.html`, '/a.html', `${DEAD}/y.html`])),
      '/a.html': html(page('a', [`${DEAD}/x.html`])),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'robots http://dead.example:9 disallow-all group= rules=1',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 http://dead.example:9/x.html robots',
      'link 0 H/a.html follow',
      'link 0 http://dead.example:9/y.html robots',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
    notes: [
      'crawler: cannot resolve dead.example: host name not found: http://dead.example:9/robots.txt could not be fetched, which means disallow all (RFC 9309)',
    ],
  },
]);
