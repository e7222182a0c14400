/**
 * The report as a file: self-contained (no script, no reference to any
 * other address than the crawled URLs), network text escaped, and a file
 * that is not a report of ours never overwritten. Rendered in chromium: a
 * hostile URL, reason and matching line show as text and run nothing; a
 * synthetic 10,000-page crawl stays under 3 MB and opens whole (how fast:
 * test/perf/report-load.test.ts).
 */
// run-tests: long (10 s: Chromium)
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkReportFile, GENERATOR_META } from '../../src/report/report-file.js';
import { renderReport } from '../../src/report/render-report.js';
import { FINE_LIMIT } from '../../src/report/render-timeline.js';
import { TREE_LIMIT } from '../../src/report/render-tree.js';
import { browserSkipReason, withBrowser } from '../helpers/browser.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { foreignReferences } from './report-text.js';
import { exchange, recorder, run, T0, url, writeBigReport } from './synthetic.js';

const { temp } = useTempDirs('report-html-');

const HOSTILE = `<script>alert("x")</script>'"&`;

function hostileReport(dir: string): { file: string; html: string } {
  const file = join(dir, 'hostile.html');
  const r = recorder(file, run({ program: 'KeywordHunter', keyword: HOSTILE, command: ['KeywordHunter', '--report', file, 'http://a.test/', HOSTILE], pageDir: undefined }));
  const page = url('http://a.test/');
  r.consume(exchange('http://a.test/', T0 + 10, 20, 200));
  r.consume({ type: 'response', url: page, depth: 1, status: 200 });
  r.consume({ type: 'scanning', url: page, depth: 1 });
  r.consume({ type: 'link', depth: 1, raw: '/p', url: url('http://a.test/p'), action: 'follow' });
  r.consume({ type: 'robots', origin: 'http://a.test', source: 'file', group: HOSTILE, rules: 1, crawlDelay: 1 });
  r.consume({ type: 'failed', url: `http://a.test/${HOSTILE}`, depth: 2, reason: `(HTTP 429, Retry-After: ${HOSTILE})` });
  r.consume(exchange('http://a.test/p', T0 + 1010, 20, 200));
  r.consume({ type: 'response', url: url('http://a.test/p'), depth: 2, status: 200 });
  r.consume({ type: 'match', url: url('http://a.test/p'), depth: 2, line: Buffer.from(`before ${HOSTILE} after`) });
  r.finish('the keyword was found');
  return { file, html: readFileSync(file, 'utf8') };
}

test('network text is HTML-escaped: a URL, a reason, a robots.txt group, a keyword and a matching line holding <script> and quotes stay text; nothing refers to another address', () => {
  const { html } = hostileReport(temp());
  assert.doesNotMatch(html, /<script/i);
  assert.ok(html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&quot;&amp;'), 'escaped as text');
  assert.ok(html.includes(GENERATOR_META));
  assert.deepEqual(foreignReferences(html, ['http://a.test']), []);
});

test('in chromium the hostile report shows the text as written, runs nothing and requests nothing', { skip: browserSkipReason }, async () => {
  const { file } = hostileReport(temp());
  await withBrowser(async (page, watch) => {
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    await page.goto(`file://${file}`);
    assert.ok((await page.textContent('pre.line'))?.includes(HOSTILE), 'the matching line as sent');
    assert.deepEqual(await page.$$eval('#chain ol li', (lis) => lis.map((li) => li.getAttribute('data-url'))), ['http://a.test/', 'http://a.test/p']);
    assert.equal(await page.$$eval('script', (s) => s.length), 0);
    assert.equal(dialogs, 0);
    assert.deepEqual(watch.consoleErrors, []);
    assert.deepEqual(watch.requests, [`file://${file}`]);
  });
});

test('a file that is not a report of ours is refused (one line), and so is a link; a report of ours or no file is fine', () => {
  const dir = temp();
  const theirs = join(dir, 'notes.html');
  writeFileSync(theirs, '<html><body>my notes</body></html>');
  assert.throws(() => checkReportFile(theirs), (err: Error & { code?: string }) => err.code === 'ERR_WRITE' && /is not a report of ours: not overwriting it/.test(err.message) && !err.message.includes('\n'));
  const ours = join(dir, 'ours.html');
  writeFileSync(ours, `<!DOCTYPE html><html><head>${GENERATOR_META}</head></html>`);
  checkReportFile(ours);
  const link = join(dir, 'link.html');
  symlinkSync(ours, link);
  assert.throws(() => checkReportFile(link), /not a report of ours/);
  checkReportFile(join(dir, 'new.html'));
  assert.throws(() => checkReportFile(join(dir, 'no-such-dir', 'r.html')), /does not exist/);
  mkdirSync(join(dir, 'sub.html'));
  assert.throws(() => checkReportFile(join(dir, 'sub.html')), /not a report of ours/);
});

test('10,000 pages: the file stays under 3 MB with its lists cut and a coarser timeline, and chromium opens it whole', { skip: browserSkipReason }, async () => {
  const file = writeBigReport(temp(), 10_000);
  const size = statSync(file).size;
  assert.ok(size < 3_000_000, `${size} bytes`);
  const html = readFileSync(file, 'utf8');
  assert.ok(10_000 > FINE_LIMIT && html.includes('data-mode="coarse"'));
  assert.match(html, /The tree is cut at 2,000 pages/);
  assert.deepEqual(foreignReferences(html, ['http://h0.test', 'http://h1.test', 'http://h2.test', 'http://h3.test']), []);
  // How fast chromium opens it is a tuning check: test/perf/report-load.test.ts.
  await withBrowser(async (page, watch) => {
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    assert.equal(await page.$$eval('ul.tree li', (l) => l.length) <= TREE_LIMIT + 200, true);
    assert.equal(await page.getAttribute('[data-figure="saved"]', 'data-value'), String(10_000 - 200));
    assert.deepEqual(watch.consoleErrors, []);
    assert.deepEqual(watch.requests, [`file://${file}`]);
  });
});

test('the renderer alone: a model with no request draws no timeline, and says so', () => {
  const r = recorder('x.html');
  const html = renderReport(r.model, { file: 'x.html', now: T0 + 1000 });
  assert.match(html, /No request was recorded/);
});
