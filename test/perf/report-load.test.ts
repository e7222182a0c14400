/**
 * How fast a large report opens (a tuning check, `npm run test:perf`): the
 * report of a synthetic 10,000-page crawl loads in chromium in under 2 s,
 * by the browser's own navigation timing. That the file stays small, cut and
 * whole is checked in test/report/report-html.test.ts.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { test } from 'node:test';
import { browserSkipReason, withBrowser } from '../helpers/browser.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { writeBigReport } from '../report/synthetic.js';

const { temp } = useTempDirs('report-load-');

test('10,000 pages: chromium opens the report in under 2 s', { skip: browserSkipReason }, async () => {
  const file = writeBigReport(temp(), 10_000);
  const size = statSync(file).size;
  await withBrowser(async (page) => {
    const started = performance.now();
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    const wall = performance.now() - started;
    // Runs in the page (the DOM's Performance API), written as a string: this project's types are Node's.
    const nav = await page.evaluate<number>("(() => { const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime; })()");
    // The browser's own load time is the figure; the wall time from here has generous slack for a loaded machine.
    console.log(`10,000 pages: ${(size / 1e6).toFixed(2)} MB, load ${nav.toFixed(0)} ms in the page, ${wall.toFixed(0)} ms from the test`);
    assert.ok(nav < 2000, `loaded in ${nav.toFixed(0)} ms`);
    assert.ok(wall < 10_000, `opened in ${wall.toFixed(0)} ms`);
  });
});
