/**
 * The report's breadth-first tree says what it shows, for each program,
 * checked in chromium: crawler's legend promises an ID linked to the saved
 * file, and every saved page has one that opens an existing file; a failed
 * page says why. KeywordHunter's pages have no ID and no file link, and its
 * legend promises none; its depths start at 1, as the legend says.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import type { CrawlEvent } from '../../src/engine/events.js';
import { browserSkipReason, withBrowser } from '../helpers/browser.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { exchange, recorder, run, T0, url } from './synthetic.js';

const { temp } = useTempDirs('tree-legend-');
const A = 'http://a.test';

/** A crawl of a seed linking to a saved page, a 404 and a page robots.txt disallows; depths from `first`. */
function events(first: number, saved: boolean): CrawlEvent[] {
  const out: CrawlEvent[] = [];
  const page = (path: string, depth: number, at: number, id: number): void => {
    out.push(exchange(`${A}${path}`, T0 + at, 5, 200), { type: 'response', url: url(`${A}${path}`), depth, status: 200 });
    if (saved) out.push({ type: 'saved', url: url(`${A}${path}`), depth, id });
  };
  page('/', first, 10, 1);
  out.push({ type: 'scanning', url: url(`${A}/`), depth: first });
  for (const p of ['/a.html', '/gone.html', '/private.html']) out.push({ type: 'link', depth: first, raw: p, url: url(`${A}${p}`), action: 'follow' });
  page('/a.html', first + 1, 20, 2);
  out.push(exchange(`${A}/gone.html`, T0 + 30, 5, 404), { type: 'response', url: url(`${A}/gone.html`), depth: first + 1, status: 404 });
  if (saved) {
    out.push({ type: 'failed', url: `${A}/gone.html`, depth: first + 1, reason: '(HTTP 404)' });
    out.push({ type: 'disallowed', url: `${A}/private.html`, depth: first + 1 });
  }
  return out;
}

interface TreeView {
  legend: string;
  lines: Array<{ depth: string; url: string; status: string; why: string; id: string | null; href: string | null }>;
}

/** The tree as chromium shows it: the legend's text and, for each page, what its line shows. */
async function viewTree(file: string): Promise<TreeView> {
  return withBrowser(async (p, watch) => {
    await p.goto(`file://${file}`);
    const legend = (await p.textContent('#tree p.note')) ?? '';
    // Each page's line: the <summary> of a page with pages below it, else the <li> itself.
    const lines = await p.$$eval('ul.tree li:not(.more)', (lis) =>
      lis.map((li) => {
        const own = li.querySelector(':scope > details > summary') ?? li;
        const text = (sel: string): string => own.querySelector(`:scope > ${sel}`)?.textContent ?? '';
        const a = own.querySelector(':scope > a.id');
        return { depth: text('.d'), url: text('.url'), status: text('.st'), why: text('.why'), id: a?.textContent ?? null, href: a?.getAttribute('href') ?? null };
      }),
    );
    assert.deepEqual(watch.consoleErrors, []);
    return { legend, lines };
  });
}

test('crawler\'s tree: the legend promises an ID linked to the saved file, and each saved page has one that opens its file', { skip: browserSkipReason }, async () => {
  const dir = temp();
  const pageDir = join(dir, 'pages');
  mkdirSync(pageDir);
  for (const id of [1, 2]) writeFileSync(join(pageDir, String(id)), `page ${id}\n`);
  const file = join(dir, 'report.html');
  const r = recorder(file, run({ pageDir }));
  for (const e of events(0, true)) r.consume(e);
  r.finish('the crawl ended');
  const { legend, lines } = await viewTree(file);
  assert.match(legend, /depth/);
  assert.match(legend, /its ID if it was saved \(#1, #2\.\.\.: a link to its file in the page directory\)/);
  assert.match(legend, /its URL, and its status or why it failed/);
  assert.deepEqual(lines.map((l) => [l.depth, l.url, l.id]), [
    ['0', `${A}/`, '#1'],
    ['1', `${A}/a.html`, '#2'],
    ['1', `${A}/gone.html`, null],
    ['1', `${A}/private.html`, null],
  ]);
  for (const l of lines.filter((x) => x.id !== null)) {
    const target = resolve(dirname(file), decodeURIComponent(l.href ?? ''));
    assert.equal(target, join(pageDir, (l.id ?? '').slice(1)));
    assert.ok(existsSync(target), target);
  }
  // Every page shows its status, or why it failed.
  assert.deepEqual(lines.map((l) => l.status || l.why), ['200', '200', '404', '(disallowed by robots.txt)']);
});

test('KeywordHunter\'s tree: no ID and no file link on any page, and a legend that promises none', { skip: browserSkipReason }, async () => {
  const file = join(temp(), 'kh.html');
  const r = recorder(file, run({ program: 'KeywordHunter', keyword: 'needle', command: ['KeywordHunter', `${A}/`, 'needle'], pageDir: undefined }));
  for (const e of events(1, false)) r.consume(e);
  r.finish('the keyword was not found');
  const { legend, lines } = await viewTree(file);
  assert.doesNotMatch(legend, /\bID\b|link|file|saved/i);
  assert.match(legend, /its depth \(StartURL is 1\), its URL and its status/);
  assert.deepEqual(lines.map((l) => [l.depth, l.url, l.status, l.id, l.href]), [
    ['1', `${A}/`, '200', null, null],
    ['2', `${A}/a.html`, '200', null, null],
    ['2', `${A}/gone.html`, '404', null, null],
  ]);
});
