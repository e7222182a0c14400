/**
 * The report of a refresh (crawler --since): the refresh section's figures
 * (unchanged, changed, new, gone, bytes not sent again) and its lists of
 * changed and gone pages, from synthetic events; the records it keeps go
 * through the journal and back (a resumed refresh's report covers all its
 * runs); and a crawl that refreshed nothing has no such section.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ReportModel } from '../../src/report/report-model.js';
import type { ReportRecord } from '../../src/report/report-records.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { exchange, recorder, run, T0, url } from './synthetic.js';

const { temp } = useTempDirs('report-refresh-');

function figures(html: string): Record<string, string> {
  return Object.fromEntries([...html.matchAll(/data-figure="(refresh-[a-z]+)" data-value="([^"]*)"/g)].map((m) => [m[1] as string, m[2] as string]));
}

test('a refresh\'s section: unchanged, changed, new and gone pages, the bytes not sent again, the changed and gone pages listed', () => {
  const file = join(temp(), 'r.html');
  const r = recorder(file, run({ since: 'old-pages' }));
  const saved = (path: string, id: number, refresh: Extract<Parameters<typeof r.consume>[0], { type: 'saved' }>['refresh']): void => {
    r.consume(exchange(`http://a.test${path}`, T0 + id * 10, 5, refresh?.state === 'unchanged' ? 304 : 200));
    r.consume({ type: 'response', url: url(`http://a.test${path}`), depth: 1, status: refresh?.state === 'unchanged' ? 304 : 200 });
    r.consume({ type: 'saved', url: url(`http://a.test${path}`), depth: 1, id, refresh });
  };
  saved('/', 1, { state: 'unchanged', earlierId: 1, sparedBytes: 1000 });
  saved('/a.html', 2, { state: 'unchanged', earlierId: 2, sparedBytes: 234 });
  saved('/b.html', 3, { state: 'changed', earlierId: 3 });
  saved('/new.html', 4, { state: 'new' });
  r.refreshed({ gone: 3, goneListed: ['http://a.test/gone-1.html', 'http://a.test/gone-2.html', 'http://a.test/gone-3.html'] });
  r.finish('the crawl finished');
  const html = readFileSync(file, 'utf8');
  assert.deepEqual(figures(html), { 'refresh-unchanged': '2', 'refresh-changed': '1', 'refresh-new': '1', 'refresh-gone': '3', 'refresh-spared': '1234' });
  assert.ok(html.includes('Refresh of <span class="url">old-pages</span>'));
  const listed = (id: string): string[] => [...(new RegExp(`<ul id="${id}">(.*?)</ul>`).exec(html)?.[1] ?? '').matchAll(/data-url="([^"]+)"/g)].map((m) => m[1] as string);
  assert.deepEqual(listed('refresh-changed-pages'), ['http://a.test/b.html']);
  assert.deepEqual(listed('refresh-gone-pages'), ['http://a.test/gone-1.html', 'http://a.test/gone-2.html', 'http://a.test/gone-3.html']);
});

test('a refresh stopped before its end: gone is not known yet, and the report says so', () => {
  const file = join(temp(), 'r.html');
  const r = recorder(file, run({ since: 'old' }));
  r.consume({ type: 'saved', url: url('http://a.test/'), depth: 0, id: 1, refresh: { state: 'changed', earlierId: 1 } });
  r.finish('stopped by a signal');
  const html = readFileSync(file, 'utf8');
  assert.equal(figures(html)['refresh-gone'], '');
  assert.match(html, /Known once the refresh has run to its end/);
});

test('a refresh\'s records come back the same from the journal, and a crawl that refreshed nothing has no refresh section', () => {
  const records: ReportRecord[] = [
    ['run', run({ since: 'old' })],
    ['saved', 'http://a.test/', 0, 1, 'unchanged', 500],
    ['saved', 'http://a.test/b', 1, 2, 'changed'],
    ['gone', 1, ['http://a.test/c']],
  ];
  const model = new ReportModel();
  for (const rec of JSON.parse(JSON.stringify(records)) as ReportRecord[]) model.apply(rec);
  assert.equal(model.pages.get('http://a.test/')?.refresh, 'unchanged');
  assert.equal(model.pages.get('http://a.test/')?.spared, 500);
  assert.equal(model.pages.get('http://a.test/b')?.refresh, 'changed');
  assert.deepEqual(model.gone, { count: 1, listed: ['http://a.test/c'] });
  const file = join(temp(), 'plain.html');
  const r = recorder(file, run());
  r.consume({ type: 'saved', url: url('http://a.test/'), depth: 0, id: 1 });
  r.finish('the crawl finished');
  assert.doesNotMatch(readFileSync(file, 'utf8'), /id="refresh"/);
});
