/**
 * The report's model from synthetic crawl events (no network): figures,
 * the tree, each host's gaps against the interval in force, and a resumed
 * crawl's records read back from the journal in its page directory.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CrawlEvent } from '../../src/engine/events.js';
import { CrawlerError } from '../../src/errors.js';
import { REPORT_JOURNAL, ReportJournal } from '../../src/report/report-journal.js';
import { ReportRecorder } from '../../src/report/report-recorder.js';
import { MAX_CHILDREN } from '../../src/report/report-model.js';
import { hostGaps } from '../../src/report/render-timeline.js';
import { markPageDirectory } from '../../src/sink/tse-pagedir.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { exchange, recorder, run, T0, url } from './synthetic.js';

const { temp } = useTempDirs('report-model-');

const A = 'http://a.test';
const B = 'http://b.test';

/** Two hosts; a's /x answers 429 and is paused, backed off and tried again (too early: a gap below its interval); b has Crawl-delay 1.5. */
function crawlEvents(): CrawlEvent[] {
  return [
    exchange(`${A}/robots.txt`, T0 + 10, 5, 404),
    { type: 'robots', origin: A, source: 'allow-all', group: '', rules: 0, crawlDelay: undefined },
    exchange(`${A}/`, T0 + 1010, 30, 200, 2000),
    { type: 'response', url: url(`${A}/`), depth: 0, status: 200 },
    { type: 'saved', url: url(`${A}/`), depth: 0, id: 1 },
    { type: 'scanning', url: url(`${A}/`), depth: 0 },
    { type: 'link', depth: 0, raw: '/x', url: url(`${A}/x`), action: 'follow' },
    { type: 'link', depth: 0, raw: `${B}/`, url: url(`${B}/`), action: 'follow' },
    { type: 'link', depth: 0, raw: '/', url: url(`${A}/`), action: 'duplicate' },
    { type: 'link', depth: 0, raw: '/private/', url: url(`${A}/private/`), action: 'robots' },
    { type: 'link', depth: 0, raw: 'mailto:x@a.test', url: undefined, action: 'invalid' },
    { type: 'link', depth: 0, raw: '/missing', url: url(`${A}/missing`), action: 'follow' },
    exchange(`${B}/robots.txt`, T0 + 1020, 5, 200),
    { type: 'robots', origin: B, source: 'file', group: '*', rules: 1, crawlDelay: 1.5 },
    { type: 'host', origin: B, at: T0 + 1026, intervalMs: 1500, pausedUntil: undefined, failures: 0 },
    exchange(`${A}/x`, T0 + 2020, 10, 429),
    { type: 'host', origin: A, at: T0 + 2031, intervalMs: 1000, pausedUntil: T0 + 3031, failures: 0 },
    // The back-off that follows the pause repeats its end (computed anew: a hair off).
    { type: 'host', origin: A, at: T0 + 2033, intervalMs: 2000, pausedUntil: T0 + 3030.99, failures: 1 },
    exchange(`${B}/`, T0 + 2530, 400, 200, 5000),
    { type: 'response', url: url(`${B}/`), depth: 1, status: 200 },
    { type: 'saved', url: url(`${B}/`), depth: 1, id: 2 },
    exchange(`${A}/x`, T0 + 3200, 10, 200),
    { type: 'host', origin: A, at: T0 + 3211, intervalMs: 1000, pausedUntil: undefined, failures: 0 },
    { type: 'response', url: url(`${A}/x`), depth: 1, status: 200 },
    { type: 'saved', url: url(`${A}/x`), depth: 1, id: 3 },
    exchange(`${A}/missing`, T0 + 4300, 10, 404),
    { type: 'response', url: url(`${A}/missing`), depth: 1, status: 404 },
    { type: 'failed', url: `${A}/missing`, depth: 1, reason: '(HTTP 404)' },
  ];
}

test('the model counts what the events say: pages saved, failed by reason, links not followed by reason, statuses, bytes, requests per host', () => {
  const r = recorder('r.html');
  crawlEvents().forEach(r.consume);
  const m = r.model;
  assert.deepEqual(m.savedPages.map((p) => p.id), [1, 2, 3]);
  // The log's parentheses are the log's: the table shows the reason itself.
  assert.deepEqual([...m.failures()], [['HTTP 404', 1]]);
  assert.deepEqual(Object.fromEntries(m.skipped()), { duplicate: 1, robots: 1, invalid: 1 });
  assert.deepEqual(Object.fromEntries(m.statuses), { 200: 3, 404: 1 });
  assert.equal(m.bytes, 100 + 2000 + 100 + 100 + 5000 + 100 + 100);
  assert.deepEqual([...m.hosts.values()].map((h) => [h.origin, h.exchanges.length]), [[A, 5], [B, 2]]);
  assert.deepEqual(m.hosts.get(B)?.robots, { source: 'file', group: '*', rules: 1, crawlDelay: 1.5 });
});

test('the tree: each page under the page it was found on; a redirect\'s target under the URL that redirected', () => {
  const r = recorder('r.html');
  crawlEvents().forEach(r.consume);
  r.consume({ type: 'scanning', url: url(`${B}/`), depth: 1 });
  r.consume({ type: 'link', depth: 1, raw: '/old', url: url(`${B}/old`), action: 'follow' });
  r.consume({ type: 'response', url: url(`${B}/old`), depth: 2, status: 301 });
  r.consume({ type: 'redirect', from: url(`${B}/old`), depth: 2, target: url(`${B}/new`), raw: '/new', action: 'follow' });
  r.consume({ type: 'response', url: url(`${B}/new`), depth: 2, status: 200 });
  const m = r.model;
  // In the order they were requested.
  assert.deepEqual(m.pages.get(`${A}/`)?.children, [`${B}/`, `${A}/x`, `${A}/missing`]);
  assert.deepEqual(m.chainTo(`${B}/new`).map((p) => p.url), [`${A}/`, `${B}/`, `${B}/old`, `${B}/new`]);
  assert.deepEqual(m.roots().map((p) => p.url), [`${A}/`]);
});

test('gaps per host: the least gap between request starts against the interval in force at the second start, and every gap below its interval counted', () => {
  const r = recorder('r.html');
  crawlEvents().forEach(r.consume);
  const a = hostGaps(r.model.hosts.get(A)!, 1000);
  // a: 1000, 1010, 1180 (the back-off made it 2000: below), 1100 ms.
  assert.deepEqual(a, { origin: A, requests: 5, least: { gapMs: 1000, intervalMs: 1000 }, below: 1, pauses: 1, backoffs: 1 });
  const b = hostGaps(r.model.hosts.get(B)!, 1000);
  assert.deepEqual(b, { origin: B, requests: 2, least: { gapMs: 1510, intervalMs: 1500 }, below: 0, pauses: 0, backoffs: 0 });
});

test('a page\'s links are kept only up to MAX_CHILDREN (the rest counted), and only until their pages are requested: the model holds no page for a URL only queued', () => {
  const r = recorder('r.html');
  r.consume({ type: 'response', url: url(`${A}/`), depth: 0, status: 200 });
  r.consume({ type: 'scanning', url: url(`${A}/`), depth: 0 });
  for (let i = 0; i < MAX_CHILDREN + 50; i++) r.consume({ type: 'link', depth: 0, raw: `/p${i}`, url: url(`${A}/p${i}`), action: 'follow' });
  r.consume({ type: 'link', depth: 0, raw: '/', url: url(`${A}/`), action: 'follow' }); // the seed again: it stays the root
  const m = r.model;
  assert.equal(m.pages.size, 1, 'queued URLs are no pages');
  assert.equal(m.pages.get(`${A}/`)?.more, 50);
  for (const i of [0, MAX_CHILDREN - 1, MAX_CHILDREN]) r.consume({ type: 'response', url: url(`${A}/p${i}`), depth: 1, status: 200 });
  assert.deepEqual(m.pages.get(`${A}/`)?.children, [`${A}/p0`, `${A}/p${MAX_CHILDREN - 1}`]);
  assert.deepEqual(m.roots().map((p) => p.url), [`${A}/`], 'a page whose link was not kept is no root');
});

test('a resumed crawl: the journal in the page directory gives the earlier run\'s records back, a page saved again counts once, and the wall time is the runs\' sum', async () => {
  const dir = temp();
  markPageDirectory(dir);
  const first = new ReportRecorder({ file: join(dir, '..', 'r.html'), run: run({ startedAt: T0, pageDir: dir }) });
  first.start(await ReportJournal.open(dir, false));
  crawlEvents().slice(0, 12).forEach(first.consume);
  first.flush();
  // The first run ends (SIGINT) 2 s after it started.
  const journal = join(dir, REPORT_JOURNAL);
  appendFileSync(journal, `${JSON.stringify(['end', T0 + 2000, 'signal'])}\n["x","http://a.test","http://a.test/cut`); // and a line cut by a crash
  const again = await ReportJournal.open(dir, true);
  assert.equal(again.records.length, readFileSync(journal, 'utf8').split('\n').length - 1, 'every whole line, not the cut one');
  const second = new ReportRecorder({ file: join(dir, '..', 'r.html'), run: run({ startedAt: T0 + 10_000, pageDir: dir }) });
  second.start(again);
  // The page in flight is done again: saved under the same ID.
  [{ type: 'saved', url: url(`${A}/`), depth: 0, id: 1 } as CrawlEvent, ...crawlEvents().slice(12)].forEach(second.consume);
  second.flush();
  const m = second.model;
  assert.equal(m.runs.length, 2);
  assert.deepEqual(m.savedPages.map((p) => p.id), [1, 2, 3]);
  assert.equal(m.wallMs(T0 + 13_000), 2000 + 3000);
  const third = await ReportJournal.open(dir, true);
  assert.ok(third.records.some((rec) => rec[0] === 'saved' && rec[3] === 3), 'the second run appended its records');
  third.journal.close();
});

test('the journal is written only in a page directory that carries our marker', async () => {
  await assert.rejects(ReportJournal.open(temp(), false), { code: 'ERR_STATE' });
});

test('links not followed are counted by the reason --json gives: external, excluded, non-HTML extension, too long, robots.txt, seen, not a URL', () => {
  const file = join(temp(), 'r.html');
  const r = new ReportRecorder({
    file,
    run: run(),
    leftOut: (u) => (u.host === 'b.test' ? 'external' : u.path.startsWith('/genindex') ? 'excluded' : undefined),
  });
  r.start();
  const link = (raw: string, action: 'external' | 'duplicate' | 'robots' | 'invalid', error?: CrawlerError): CrawlEvent => ({ type: 'link', depth: 0, raw, url: action === 'invalid' ? undefined : url(raw), action, error });
  for (const e of [
    exchange(`${A}/`, T0 + 10, 5, 200),
    { type: 'response', url: url(`${A}/`), depth: 0, status: 200 },
    { type: 'saved', url: url(`${A}/`), depth: 0, id: 1 },
    { type: 'scanning', url: url(`${A}/`), depth: 0 },
    link(`${B}/`, 'external'),
    link(`${A}/genindex.html`, 'external'),
    link(`${A}/genindex-A.html`, 'external'),
    link(`${A}/file.pdf`, 'external'),
    link(`${A}/`, 'duplicate'),
    link(`${A}/private/`, 'robots'),
    link('mailto:x@a.test', 'invalid'),
    link(`${A}/${'x'.repeat(3000)}`, 'invalid', new CrawlerError('ERR_URL_TOO_LONG', 'too long')),
  ] satisfies CrawlEvent[]) r.consume(e);
  r.finish('the crawl finished');
  assert.deepEqual(Object.fromEntries(r.model.skipped()), { external: 1, excluded: 2, extension: 1, duplicate: 1, robots: 1, invalid: 1, 'too-long': 1 });
  const html = readFileSync(file, 'utf8');
  const shown = Object.fromEntries([...html.matchAll(/<li data-skip="([^"]+)" data-count="(\d+)">\d+ ([^<]+)<\/li>/g)].map((m) => [m[1], `${m[2]} ${m[3]}`]));
  assert.deepEqual(shown, {
    excluded: '2 excluded by --exclude',
    external: '1 outside the crawl',
    extension: '1 not a page (non-HTML extension)',
    duplicate: '1 seen before',
    robots: '1 disallowed by robots.txt',
    invalid: '1 not a crawlable URL',
    'too-long': '1 URL too long',
  });
});
