/**
 * KeywordHunter's output protocol (src/output/kh-protocol.ts), fed events by
 * hand: a PAGE: line per answer, a LINK: line per link and redirect target
 * with the action the graders read, notes on stderr for what has no line,
 * and the FOUND_KEYWORD / NOT_FOUND_KEYWORD ends. Each line one write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrawlerError } from '../../src/errors.js';
import type { CrawlEvent } from '../../src/engine/events.js';
import { KhProtocol } from '../../src/output/kh-protocol.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { recordingIo } from '../helpers/fakes.js';

const page = parseHttpUrl('http://www.MyPhotos.com/photos/index.html');

function protocol() {
  const rec = recordingIo();
  const p = new KhProtocol(rec.io);
  return { p, rec, feed: (...events: CrawlEvent[]) => events.forEach((e) => p.consume(e)) };
}

test('a PAGE: line per answer, host as written, the respath as the request line carries it; status 0 when none came', () => {
  const { rec, feed } = protocol();
  const error = new CrawlerError('ERR_CONNECT', 'connection refused');
  feed(
    { type: 'response', url: page, depth: 1, status: 200 },
    { type: 'response', url: parseHttpUrl('http://h.example:8080/a b?q=\u00e9'), depth: 2, status: 404 },
    { type: 'response', url: parseHttpUrl('http://h.example:81/'), depth: 2, status: 0, error },
  );
  assert.deepEqual(rec.stdout, [
    'PAGE:host=www.MyPhotos.com;port=80;respath=/photos/index.html;status=200\n',
    'PAGE:host=h.example;port=8080;respath=/a%20b?q=%C3%A9;status=404\n',
    'PAGE:host=h.example;port=81;respath=/;status=0\n',
  ]);
  assert.deepEqual(rec.stderr, []);
});

test('header lines skipped in an answer are notes on stderr, after its PAGE: line', () => {
  const { rec, feed } = protocol();
  feed({ type: 'response', url: page, depth: 1, status: 200, notes: ['skipped a header line that is not a field: "x"'] });
  assert.equal(rec.stdout.length, 1);
  assert.deepEqual(rec.stderr, ['KeywordHunter: http://www.MyPhotos.com/photos/index.html: skipped a header line that is not a field: "x"\n']);
});

test('LINK: lines carry the spec\'s action codes: follow, robots_ignore, already_seen_ignore (an out-of-scope link does not exist here: follow)', () => {
  const { rec, feed } = protocol();
  const link = (href: string, action: 'follow' | 'duplicate' | 'robots' | 'external'): CrawlEvent => ({ type: 'link', depth: 1, raw: href, url: parseHttpUrl(href), action });
  feed(
    link('http://www.MyPhotos.com/photos/february.html', 'follow'),
    link('http://www.MyPhotos.com/help/OnlyForHumans.html', 'robots'),
    link('http://www.google.com/index.html', 'duplicate'),
    link('http://www.cnn.com/world.html', 'external'),
  );
  assert.deepEqual(rec.stdout, [
    'LINK:host=www.MyPhotos.com;port=80;respath=/photos/february.html;action=follow\n',
    'LINK:host=www.MyPhotos.com;port=80;respath=/help/OnlyForHumans.html;action=robots_ignore\n',
    'LINK:host=www.google.com;port=80;respath=/index.html;action=already_seen_ignore\n',
    'LINK:host=www.cnn.com;port=80;respath=/world.html;action=follow\n',
  ]);
});

test('a link that is not an http(s) URL has no LINK: line; only a reason other than its scheme is told on stderr', () => {
  const { rec, feed } = protocol();
  feed(
    { type: 'link', depth: 1, raw: 'mailto:me@x', url: undefined, action: 'invalid', error: new CrawlerError('ERR_UNSUPPORTED_SCHEME', 'unsupported scheme "mailto"') },
    { type: 'link', depth: 1, raw: 'http://[bad/', url: undefined, action: 'invalid', error: new CrawlerError('ERR_INVALID_HOST', 'invalid host') },
  );
  assert.deepEqual(rec.stdout, []);
  assert.deepEqual(rec.stderr, ['KeywordHunter: skipping link "http://[bad/": invalid host\n']);
});

test('a redirect target is a LINK: line with its action; one that cannot be followed is a note on stderr', () => {
  const { rec, feed } = protocol();
  const target = parseHttpUrl('http://www.MyPhotos.com/new.html');
  feed(
    { type: 'redirect', from: page, depth: 1, target, raw: '/new.html', action: 'follow' },
    { type: 'redirect', from: page, depth: 1, target, raw: '/new.html', action: 'duplicate' },
    { type: 'redirect', from: page, depth: 1, target: undefined, raw: 'ftp://x/', action: 'invalid', error: new CrawlerError('ERR_UNSUPPORTED_SCHEME', 'unsupported scheme "ftp"') },
    { type: 'redirect', from: page, depth: 1, target, raw: '/new.html', action: 'invalid', error: new CrawlerError('ERR_REDIRECT_LIMIT', 'more than 5 redirects') },
  );
  assert.deepEqual(rec.stdout, [
    'LINK:host=www.MyPhotos.com;port=80;respath=/new.html;action=follow\n',
    'LINK:host=www.MyPhotos.com;port=80;respath=/new.html;action=already_seen_ignore\n',
  ]);
  assert.deepEqual(rec.stderr, [
    'KeywordHunter: not following redirect to ftp://x/: unsupported scheme "ftp"\n',
    'KeywordHunter: not following redirect to /new.html: more than 5 redirects\n',
  ]);
});

test('events without a protocol line (saved, scanning, failed, disallowed) write nothing', () => {
  const { rec, feed } = protocol();
  feed(
    { type: 'saved', url: page, depth: 1, id: 1 },
    { type: 'scanning', url: page, depth: 1 },
    { type: 'failed', url: page.key, depth: 1, reason: '(x)' },
    { type: 'disallowed', url: page.key, depth: 1 },
  );
  assert.deepEqual([rec.stdout, rec.stderr], [[], []]);
});

test('FOUND_KEYWORD: the line\'s raw bytes, not decoded, in one write; NOT_FOUND_KEYWORD: with its colon', () => {
  const { p, rec } = protocol();
  const line = Buffer.from([0x3c, 0x70, 0x3e, 0xff, 0xfe, 0x6b, 0x65, 0x79, 0xc3, 0x28]); // "<p>", invalid UTF-8, "key", a broken sequence
  p.consume({ type: 'match', url: parseHttpUrl('http://h.example:8080/a b'), depth: 1, line });
  p.notFound();
  assert.equal(rec.stdout.length, 2);
  const found = rec.stdout[0] as Uint8Array;
  assert.ok(typeof found !== 'string');
  assert.deepEqual(Buffer.from(found), Buffer.concat([Buffer.from('FOUND_KEYWORD:host=h.example;port=8080;respath=/a%20b;line='), line, Buffer.from('\n')]));
  assert.equal(rec.stdout[1], 'NOT_FOUND_KEYWORD:\n');
});
