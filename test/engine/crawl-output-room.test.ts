/**
 * spec-decisions.md, "Output through pipes": a reader that stalls slows the
 * crawl. The private crawl asks `outputRoom` before it takes each page and
 * waits while it is told to: no request goes out until the reader catches up.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite } from '../helpers/site-server.js';

test('the crawl takes no page while the output is behind, and goes on once it has caught up', async (t) => {
  const s = await startSite({
    '/robots.txt': { status: 404 },
    '/': { body: page('home', ['/a.html', '/b.html']) },
    '/a.html': { body: page('a', []) },
    '/b.html': { body: page('b', []) },
  });
  t.after(() => s.close());
  let behind: { promise: Promise<void>; release: () => void } | undefined;
  let asked = 0;
  const outcome = runCrawl({
    seed: `${s.origin}/`,
    outputRoom: () => {
      asked++;
      return behind?.promise;
    },
    onPage: (p) => {
      // The reader stalls after the first page: nothing more may be requested until it is released.
      if (p.url.path === '/' && behind === undefined) {
        let release = (): void => undefined;
        const promise = new Promise<void>((resolve) => (release = resolve));
        behind = { promise, release };
      }
    },
  });
  // The first page reaches the program (however loaded the machine), then the crawl has 300 ms to ask for more.
  for (let waited = 0; behind === undefined && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const pagesWhileBehind = s.requests.filter((r) => r.path !== '/robots.txt').map((r) => r.path);
  assert.deepEqual(pagesWhileBehind, ['/'], 'only the page before the stall was requested');
  assert.ok(behind !== undefined && asked >= 2, 'the crawl asked for room before the next page');
  const stalled = behind;
  behind = undefined;
  stalled.release();
  const { summary, pages } = await outcome;
  assert.equal(summary.stoppedBy, 'done');
  assert.deepEqual(pages.map((p) => p.split(' => ')[1]?.replace(s.origin, '')), ['/', '/a.html', '/b.html']);
});
