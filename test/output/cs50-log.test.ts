/**
 * crawler's log (src/output/cs50-log.ts) in its two formats: a Failed
 * line's reason is in parentheses in the CS50 log and bare in the JSON log
 * (`"reason":"HTTP 404"`), for every kind of failure the TSE event log
 * writes, through the one helper (bareReason) the report uses too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlEvent } from '../../src/engine/events.js';
import { bareReason, CrawlLog, type LogMode } from '../../src/output/cs50-log.js';
import { tseEventLog } from '../../src/programs/tse-log.js';
import { SeedPanic } from '../../src/programs/seed-panic.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { cs50Line } from '../helpers/cs50-log.js';
import { recordingIo } from '../helpers/fakes.js';

const url = (path: string) => parseHttpUrl(`http://site.example${path}`);

/** The failures of a crawl that has saved a page already (so none is the seed PANIC). */
const FAILURES: CrawlEvent[] = [
  { type: 'failed', url: 'http://site.example/gone', depth: 2, reason: '(HTTP 404)' },
  { type: 'failed', url: 'http://site.example/logo', depth: 1, reason: '(not HTML: image/png)' },
  { type: 'disallowed', url: 'http://site.example/private', depth: 1 },
  { type: 'redirect', from: url('/p'), depth: 1, target: url('/private/x'), raw: '/private/x', action: 'robots' },
];

/** The log lines the TSE event log writes for `events` in `mode`. */
function logOf(mode: LogMode, events: readonly CrawlEvent[]): string[] {
  const rec = recordingIo();
  const log = new CrawlLog(rec.io, mode);
  const sink = tseEventLog({ io: rec.io, log, seedPanic: new SeedPanic(url('/')), nothingSaved: () => false });
  for (const e of events) sink(e);
  log.flush();
  return rec.out().split('\n').filter((l) => l !== '');
}

test('--json: a failure\'s reason is bare ("HTTP 404"); the CS50 log keeps it in parentheses', () => {
  const json = logOf('json', FAILURES).map((l) => JSON.parse(l) as { event: string; depth: number; url: string; reason: string });
  assert.deepEqual(json, [
    { event: 'Failed', depth: 2, url: 'http://site.example/gone', reason: 'HTTP 404' },
    { event: 'Failed', depth: 1, url: 'http://site.example/logo', reason: 'not HTML: image/png' },
    { event: 'Failed', depth: 1, url: 'http://site.example/private', reason: 'disallowed by robots.txt' },
    { event: 'Failed', depth: 1, url: 'http://site.example/p', reason: 'redirects to http://site.example/private/x: disallowed by robots.txt' },
  ]);
  assert.ok(logOf('json', FAILURES)[0]?.includes('"reason":"HTTP 404"'));
  assert.deepEqual(logOf('cs50', FAILURES), json.map((e) => cs50Line(e.depth, 'Failed', e.url, `(${e.reason})`)));
});

test('--json: an event without a reason has no reason key', () => {
  assert.deepEqual(logOf('json', [{ type: 'saved', url: url('/a'), depth: 1, id: 2 }]), ['{"event":"Fetched","depth":1,"url":"http://site.example/a"}']);
});

test('bareReason takes off only the parentheses that enclose the whole reason', () => {
  assert.equal(bareReason('(HTTP 404)'), 'HTTP 404');
  assert.equal(bareReason('(redirects to http://h/(a): already seen)'), 'redirects to http://h/(a): already seen');
  assert.equal(bareReason('HTTP 404'), 'HTTP 404');
  assert.equal(bareReason('(HTTP 404'), '(HTTP 404');
  assert.equal(bareReason('()'), '()');
  assert.equal(bareReason(undefined), undefined);
});
