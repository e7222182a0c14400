/**
 * The TSE crawler's consumer of crawl events (src/programs/tse-log.ts), fed
 * events by hand: the CS50 lines (checked against test/helpers/cs50-log.ts's
 * own rendering of C's printf, not against the formatter), the Failed
 * wording, the seed PANIC that replaces the seed's Failed line, and the
 * notes on stderr.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrawlerError } from '../../src/errors.js';
import type { CrawlEvent } from '../../src/engine/events.js';
import { CrawlLog, formatCs50 } from '../../src/output/cs50-log.js';
import { tseEventLog } from '../../src/programs/tse-log.js';
import { SeedPanic } from '../../src/programs/seed-panic.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { cs50Line } from '../helpers/cs50-log.js';
import { recordingIo } from '../helpers/fakes.js';

const SEED = 'http://site.example/';
const seed = parseHttpUrl(SEED);
const url = (path: string) => parseHttpUrl(`http://site.example${path}`);

/** A TSE event log over a recording CliIo; `saved` says whether a page was saved yet. */
function tseLog(saved = false) {
  const rec = recordingIo();
  const log = new CrawlLog(rec.io, 'cs50');
  const seedPanic = new SeedPanic(seed);
  const sink = tseEventLog({ io: rec.io, log, seedPanic, nothingSaved: () => !saved });
  return {
    seedPanic,
    stderr: rec.stderr,
    /** Feeds the events and returns the log lines they wrote. */
    feed(...events: CrawlEvent[]): string[] {
      for (const e of events) sink(e);
      log.flush();
      const text = rec.out();
      rec.stdout.splice(0);
      return text === '' ? [] : text.slice(0, -1).split('\n');
    },
  };
}

test('formatCs50 is C\'s printf("%2d %*s%9s: %s"), the reason after the URL, control characters percent-encoded', () => {
  for (const depth of [0, 1, 9, 10, 12]) {
    for (const word of ['Fetched', 'Scanning', 'Found', 'IgnRobots']) {
      assert.equal(formatCs50(depth, word, SEED), cs50Line(depth, word, SEED), `depth ${depth} ${word}`);
    }
  }
  assert.equal(formatCs50(3, 'Failed', SEED, '(HTTP 404)'), cs50Line(3, 'Failed', SEED, '(HTTP 404)'));
  assert.equal(formatCs50(0, 'Found', 'http://x/\n 0   Fetched: forged', '(why\r\x1b[2J)'), ' 0     Found: http://x/%0A 0   Fetched: forged (why%0D%1B[2J)');
});

test('saved, scanning and each link action give the CS50 words, every URL by its identity key', () => {
  const l = tseLog();
  const link = (href: string, action: 'follow' | 'duplicate' | 'robots' | 'external'): CrawlEvent => ({ type: 'link', depth: 1, raw: href, url: parseHttpUrl(href), action });
  const lines = l.feed(
    { type: 'saved', url: url('/a.html'), depth: 1, id: 2 },
    { type: 'scanning', url: url('/a.html'), depth: 1 },
    link('HTTP://Site.Example:80/b c.html', 'follow'),
    link('http://site.example/', 'duplicate'),
    link('http://site.example/private', 'robots'),
    link('http://other.example/', 'external'),
  );
  assert.deepEqual(lines, [
    cs50Line(1, 'Fetched', 'http://site.example/a.html'),
    cs50Line(1, 'Scanning', 'http://site.example/a.html'),
    cs50Line(1, 'Found', 'http://site.example/b%20c.html'),
    cs50Line(1, 'Added', 'http://site.example/b%20c.html'),
    cs50Line(1, 'Found', 'http://site.example/'),
    cs50Line(1, 'IgnDupl', 'http://site.example/'),
    cs50Line(1, 'Found', 'http://site.example/private'),
    cs50Line(1, 'IgnRobots', 'http://site.example/private'),
    cs50Line(1, 'Found', 'http://other.example/'),
    cs50Line(1, 'IgnExtrn', 'http://other.example/'),
  ]);
});

test('a link that is not an http(s) URL is Found and IgnExtrn as written, encoded like a request target', () => {
  const l = tseLog();
  const error = new CrawlerError('ERR_UNSUPPORTED_SCHEME', 'not http');
  const lines = l.feed({ type: 'link', depth: 0, raw: 'mailto:a b\n<x>', url: undefined, action: 'invalid', error });
  assert.deepEqual(lines, [cs50Line(0, 'Found', 'mailto:a%20b%0A%3Cx%3E'), cs50Line(0, 'IgnExtrn', 'mailto:a%20b%0A%3Cx%3E')]);
});

test('a response writes no log line; its notes go to stderr, one line each', () => {
  const l = tseLog();
  const lines = l.feed(
    { type: 'response', url: url('/a b'), depth: 1, status: 200, notes: ['skipped a header line', 'another'] },
    { type: 'response', url: url('/c'), depth: 1, status: 404 },
  );
  assert.deepEqual(lines, []);
  assert.deepEqual(l.stderr, ['crawler: http://site.example/a%20b: skipped a header line\n', 'crawler: http://site.example/a%20b: another\n']);
});

test('Failed lines: the program\'s reason for a failed URL, "(disallowed by robots.txt)" for a disallowed one', () => {
  const l = tseLog(true);
  const lines = l.feed(
    { type: 'failed', url: 'http://site.example/gone', depth: 2, reason: '(HTTP 404)' },
    { type: 'disallowed', url: 'http://site.example/private', depth: 1 },
    { type: 'failed', url: SEED, depth: 0, reason: '(connection refused)' },
  );
  assert.deepEqual(lines, [
    cs50Line(2, 'Failed', 'http://site.example/gone', '(HTTP 404)'),
    cs50Line(1, 'Failed', 'http://site.example/private', '(disallowed by robots.txt)'),
    cs50Line(0, 'Failed', SEED, '(connection refused)'),
  ], 'once a page is saved, even the seed fails with a line');
  assert.equal(l.seedPanic.panic, undefined);
});

test('the seed failing while nothing is saved is the PANIC, with no Failed line', () => {
  const failed = tseLog();
  assert.deepEqual(failed.feed({ type: 'failed', url: SEED, depth: 0, reason: '(HTTP 500)' }), []);
  assert.equal(failed.seedPanic.panic?.code, 'ERR_SEED');
  assert.equal(failed.seedPanic.panic?.message, `PANIC: cannot crawl ${SEED}: (HTTP 500)`);

  const disallowed = tseLog();
  assert.deepEqual(disallowed.feed({ type: 'disallowed', url: SEED, depth: 0 }), []);
  assert.equal(disallowed.seedPanic.panic?.message, `PANIC: cannot crawl ${SEED}: robots.txt disallows it`);
  assert.equal(disallowed.seedPanic.panic?.hint, 'Use --ignore-robots to crawl it anyway.', 'what to do, on the line after the cause');

  // A shared crawl queues the seed's redirect target at depth 0: its failure is the seed's, as in a private crawl.
  const target = tseLog();
  assert.deepEqual(target.feed({ type: 'failed', url: 'http://site.example/home', depth: 0, reason: '(HTTP 404)' }), []);
  assert.equal(target.seedPanic.panic?.message, `PANIC: cannot crawl ${SEED}: (HTTP 404)`);
  const targetDisallowed = tseLog();
  assert.deepEqual(targetDisallowed.feed({ type: 'disallowed', url: 'http://site.example/home', depth: 0 }), []);
  assert.match(targetDisallowed.seedPanic.panic?.message ?? '', /^PANIC: cannot crawl .*: robots\.txt disallows it/);

  const deeper = tseLog();
  assert.deepEqual(deeper.feed({ type: 'failed', url: SEED, depth: 1, reason: '(HTTP 500)' }), [cs50Line(1, 'Failed', SEED, '(HTTP 500)')], 'only at depth 0');
  assert.equal(deeper.seedPanic.panic, undefined);
});

test('a redirect at depth 0 not followed while nothing is saved is the PANIC "redirected to X (by Y): why"', () => {
  const bySeed = tseLog();
  const away = parseHttpUrl('http://other.example/x');
  assert.deepEqual(bySeed.feed({ type: 'redirect', from: seed, depth: 0, target: away, raw: 'http://other.example/x', action: 'external' }), []);
  assert.equal(bySeed.seedPanic.panic?.message, `PANIC: cannot crawl ${SEED}: redirected to http://other.example/x: outside the crawl`);

  const byHop = tseLog();
  byHop.feed({ type: 'redirect', from: url('/hop'), depth: 0, target: seed, raw: '/', action: 'duplicate' });
  assert.equal(byHop.seedPanic.panic?.message, `PANIC: cannot crawl ${SEED}: redirected to ${SEED} (by http://site.example/hop): already seen`);

  const limit = tseLog();
  const error = new CrawlerError('ERR_REDIRECT_LIMIT', 'more than 5 redirects');
  limit.feed({ type: 'redirect', from: url('/r5'), depth: 0, target: url('/r6'), raw: '/r6', action: 'invalid', error });
  assert.equal(limit.seedPanic.panic?.message, `PANIC: cannot crawl ${SEED}: redirected to http://site.example/r6 (by http://site.example/r5): more than 5 redirects`);
});

test('a redirect not followed later is a Failed line of the URL that redirected; a followed one writes nothing', () => {
  const l = tseLog(true);
  const lines = l.feed(
    { type: 'redirect', from: url('/moved'), depth: 1, target: url('/new'), raw: '/new', action: 'follow' },
    { type: 'redirect', from: url('/p'), depth: 1, target: url('/private/x'), raw: '/private/x', action: 'robots' },
    { type: 'redirect', from: url('/q'), depth: 2, target: undefined, raw: 'ftp://h/a b', action: 'invalid' },
    { type: 'redirect', from: seed, depth: 0, target: url('/'), raw: '/', action: 'duplicate' },
  );
  assert.deepEqual(lines, [
    cs50Line(1, 'Failed', 'http://site.example/p', '(redirects to http://site.example/private/x: disallowed by robots.txt)'),
    cs50Line(2, 'Failed', 'http://site.example/q', '(redirects to ftp://h/a%20b: not a crawlable URL)'),
    cs50Line(0, 'Failed', SEED, `(redirects to ${SEED}: already seen)`),
  ]);
  assert.equal(l.seedPanic.panic, undefined);
});

test('a lost lease is a note on stderr; a robots.txt meaning "disallow all" is one once a page past the seed is left out by it, once a host; other robots.txt answers say nothing', () => {
  const l = tseLog(true);
  const host = (name: string) => `http://${name}.example`;
  const robots = (name: string, status: number, source: 'file' | 'allow-all' | 'disallow-all'): CrawlEvent =>
    ({ type: 'robots', origin: host(name), source, group: '*', rules: 0, crawlDelay: undefined, status });
  const at = (name: string, path: string) => parseHttpUrl(`${host(name)}${path}`);
  l.feed(
    { type: 'lost', url: 'http://site.example/a', depth: 1 },
    robots('fine', 200, 'file'), robots('gone', 404, 'allow-all'), robots('busy', 503, 'disallow-all'), robots('slow', 429, 'disallow-all'), robots('down', 0, 'disallow-all'), robots('quiet', 503, 'disallow-all'),
    // fine.example's own rules leave a page out: nothing to note.
    { type: 'link', depth: 1, raw: '/x', url: at('fine', '/x'), action: 'robots' },
    { type: 'link', depth: 1, raw: '/x', url: at('busy', '/x'), action: 'robots' },
    { type: 'link', depth: 1, raw: '/y', url: at('busy', '/y'), action: 'robots' },
    { type: 'disallowed', url: `${host('slow')}/p`, depth: 2 },
    { type: 'disallowed', url: `${host('slow')}/q`, depth: 2 },
    { type: 'redirect', from: url('/moved'), depth: 1, target: at('down', '/z'), raw: `${host('down')}/z`, action: 'robots' },
  );
  assert.deepEqual(l.stderr, [
    'crawler: the lease on http://site.example/a ran out before it was done; another worker has taken it over (--lease)\n',
    'crawler: http://busy.example/robots.txt answered HTTP 503, which means disallow all (RFC 9309)\n',
    'crawler: http://slow.example/robots.txt answered HTTP 429, which means disallow all (RFC 9309)\n',
    'crawler: http://down.example/robots.txt could not be fetched, which means disallow all (RFC 9309)\n',
  ], 'quiet.example left nothing out: no note');

  // The seed left out by it: the PANIC names the cause, and no note repeats it.
  const panic = tseLog();
  panic.feed(robots('site', 503, 'disallow-all'), { type: 'disallowed', url: SEED, depth: 0 });
  assert.deepEqual(panic.stderr, []);
  assert.match(panic.seedPanic.panic?.message ?? '', /^PANIC: cannot crawl http:\/\/site\.example\/: /);
});

test('a refresh: an unchanged page keeps its Fetched line and gets an Unchanged line after it; changed and new pages only Fetched', () => {
  const l = tseLog();
  const lines = l.feed(
    { type: 'saved', url: url('/a.html'), depth: 1, id: 2, refresh: { state: 'unchanged', earlierId: 7, sparedBytes: 100 } },
    { type: 'scanning', url: url('/a.html'), depth: 1 },
    { type: 'saved', url: url('/b.html'), depth: 2, id: 3, refresh: { state: 'changed', earlierId: 8 } },
    { type: 'saved', url: url('/c.html'), depth: 2, id: 4, refresh: { state: 'new' } },
  );
  assert.deepEqual(lines, [
    cs50Line(1, 'Fetched', 'http://site.example/a.html'),
    cs50Line(1, 'Unchanged', 'http://site.example/a.html'),
    cs50Line(1, 'Scanning', 'http://site.example/a.html'),
    cs50Line(2, 'Fetched', 'http://site.example/b.html'),
    cs50Line(2, 'Fetched', 'http://site.example/c.html'),
  ]);
});

test('a robots.txt Crawl-delay above --delay is said once a host; one at or below it, or none, says nothing', () => {
  const rec = recordingIo();
  const sink = tseEventLog({ io: rec.io, log: new CrawlLog(rec.io, 'cs50'), seedPanic: new SeedPanic(seed), nothingSaved: () => false, delayMs: 200 });
  const robots = (origin: string, crawlDelay: number | undefined): CrawlEvent => ({ type: 'robots', origin, source: 'file', group: '*', rules: 1, crawlDelay });
  for (const e of [robots('http://slow.example', 0.3), robots('http://slow.example', 0.3), robots('http://same.example', 0.2), robots('http://fast.example', 0.1), robots('http://none.example', undefined)]) sink(e);
  assert.deepEqual(rec.stderr, ['crawler: http://slow.example: Crawl-delay 0.3 s from robots.txt, above --delay 0.2\n']);
});

test('--json gives every link left out its reason (external, excluded, too long, non-HTML extension, robots.txt, already seen, not a crawlable URL); the CS50 lines stay as they were', () => {
  const links: CrawlEvent[] = [
    { type: 'link', depth: 0, raw: '/a.html', url: url('/a.html'), action: 'follow' },
    { type: 'link', depth: 0, raw: 'http://other.example/', url: parseHttpUrl('http://other.example/'), action: 'external' },
    { type: 'link', depth: 0, raw: '/genindex.html', url: url('/genindex.html'), action: 'external' },
    { type: 'link', depth: 0, raw: '/long', url: url('/long'), action: 'external' },
    { type: 'link', depth: 0, raw: '/pic.png', url: url('/pic.png'), action: 'external' },
    { type: 'link', depth: 0, raw: '/private/', url: url('/private/'), action: 'robots' },
    { type: 'link', depth: 0, raw: '/a.html', url: url('/a.html'), action: 'duplicate' },
    { type: 'link', depth: 0, raw: 'ftp://x/', url: undefined, action: 'invalid' },
    { type: 'link', depth: 0, raw: '/x', url: undefined, action: 'invalid', error: new CrawlerError('ERR_URL_TOO_LONG', 'URL longer than 10 characters') },
  ];
  const leftOut = (u: ReturnType<typeof parseHttpUrl>) => (u.hostname !== 'site.example' ? 'external' : u.path.includes('genindex') ? 'excluded' : u.path === '/long' ? 'too long' : undefined);
  const run = (mode: 'json' | 'cs50') => {
    const rec = recordingIo();
    const log = new CrawlLog(rec.io, mode);
    const sink = tseEventLog({ io: rec.io, log, seedPanic: new SeedPanic(seed), nothingSaved: () => false, leftOut });
    for (const e of links) sink(e);
    log.flush();
    return rec.out().split('\n').filter((l) => l !== '');
  };
  const json = run('json').map((l) => JSON.parse(l) as { event: string; reason?: string }).filter((l) => l.event !== 'Found');
  assert.deepEqual(json.map((l) => `${l.event} ${l.reason ?? '-'}`), [
    'Added -',
    'IgnExtrn external',
    'IgnExtrn excluded',
    'IgnExtrn too long',
    'IgnExtrn non-HTML extension',
    'IgnRobots robots.txt',
    'IgnDupl already seen',
    'IgnExtrn not a crawlable URL',
    'IgnExtrn too long',
  ]);
  const cs50 = run('cs50').filter((l) => !l.includes('Found:'));
  assert.equal(cs50[2], cs50Line(0, 'IgnExtrn', 'http://site.example/genindex.html'), 'the CS50 line has no reason: its format has no room');
  assert.ok(cs50.every((l) => !l.includes('(')), cs50.join('\n'));
});
