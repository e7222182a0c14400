/**
 * Scenario rows about the crawl's limits and scope (spec decisions
 * "`crawler`", "Many hosts", "One crawl, whatever runs it"): --exclude,
 * --max-pages at a concurrency above it (the responses of all workers
 * together, never exceeded), and pages at maxDepth (fetched, not scanned).
 */
import { html, page, scenarioTable } from '../helpers/scenario-table.js';

const pages = Array.from({ length: 12 }, (_, i) => `/p${i + 1}.html`);

scenarioTable([
  {
    name: '--exclude: a link the pattern matches is IgnExtrn and never requested',
    maxDepth: 1,
    exclude: ['/secret/'],
    routes: () => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', ['/a.html', '/secret/s.html'])),
      '/a.html': html(page('a')),
      '/secret/s.html': html(page('secret')),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'link 0 H/secret/s.html external',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
    never: ['H GET /secret/s.html'],
  },
  {
    name: '--max-pages 3 with --concurrency 4: exactly 3 final answers, in every runner together',
    maxDepth: 1,
    maxPages: 3,
    concurrency: 4,
    unordered: true,
    answers: 3,
    routes: () => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', pages)),
      ...Object.fromEntries(pages.map((p) => [p, html(page(p))])),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/p1.html follow',
      'link 0 H/p2.html follow',
      'link 0 H/p3.html follow',
      'link 0 H/p4.html follow',
      'link 0 H/p5.html follow',
      'link 0 H/p6.html follow',
      'link 0 H/p7.html follow',
      'link 0 H/p8.html follow',
      'link 0 H/p9.html follow',
      'link 0 H/p10.html follow',
      'link 0 H/p11.html follow',
      'link 0 H/p12.html follow',
      'response 1 H/p1.html 200',
      'saved 1 H/p1.html #2',
      'response 1 H/p2.html 200',
      'saved 1 H/p2.html #3',
    ],
  },
  {
    name: 'a page at maxDepth: Fetched, not scanned; its links never requested',
    maxDepth: 1,
    routes: () => ({
      '/robots.txt': { status: 404 },
      '/': html(page('home', ['/a.html'])),
      '/a.html': html(page('a', ['/b.html'])),
      '/b.html': html(page('b')),
    }),
    expect: [
      'robots H allow-all group= rules=0',
      'response 0 H/ 200',
      'saved 0 H/ #1',
      'scanning 0 H/',
      'link 0 H/a.html follow',
      'response 1 H/a.html 200',
      'saved 1 H/a.html #2',
    ],
    never: ['H GET /b.html'],
  },
]);
