/**
 * KeywordHunter's policy (src/programs/keyword-policy.ts) in process: the
 * keyword decision, made once per response (the page path remembers each
 * answer's verdict), and the spec's link resolution.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Verdict } from '../../src/engine/page-policy.js';
import { LinkClassifier } from '../../src/engine/link-classifier.js';
import { PagePath } from '../../src/engine/page-path.js';
import { PoliteFetcher } from '../../src/engine/polite-fetch.js';
import { RobotsGate } from '../../src/engine/robots-gate.js';
import { HrefPatternExtractor } from '../../src/extract/href-pattern.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { HttpClient, type FetchResponse } from '../../src/http/client.js';
import { keywordPolicy, resolveKhLink } from '../../src/programs/keyword-policy.js';
import { NO_PAGE_SINK } from '../../src/sink/page-sink.js';
import { parseHttpUrl, type HttpUrl } from '../../src/url/http-url.js';
import { anyScope } from '../../src/url/scope.js';
import { fakeResponse } from '../helpers/fakes.js';

const url = parseHttpUrl('http://h.example/page.html');

/** The decision a verdict stands for: the line holding the keyword, 'scan' for a 200 page without it, 'skip' for any other status. */
function decision(verdict: Verdict): Buffer | 'scan' | 'skip' {
  return !verdict.keep ? 'skip' : (verdict.match ?? 'scan');
}

/**
 * The keyword decision as a search asks it: the policy's verdict through the
 * page path (PagePath.judge), which every ask of a run goes through (the
 * window ahead of the turn, the visit in it). Nothing is fetched: the
 * client is closed when the test ends.
 */
function keywordDecision(keyword: string, t: { after(fn: () => void): void }): { of(response: FetchResponse): Buffer | 'scan' | 'skip' } {
  const resolve = (href: string, base: HttpUrl): HttpUrl => resolveKhLink(href, base, 2048);
  const politeness = new Politeness({ delayMs: 0 });
  const client = new HttpClient({ userAgent: 'test' });
  t.after(() => client.close());
  const robots = new RobotsGate({ politeness, enabled: false });
  const path = new PagePath({
    policy: keywordPolicy({ keyword }, resolve),
    extractor: new HrefPatternExtractor(),
    fetcher: new PoliteFetcher(client, politeness),
    robots,
    classifier: new LinkClassifier({ inScope: anyScope, robots }),
    maxDepth: 5,
    maxRedirects: 5,
    sink: NO_PAGE_SINK,
    onEvent: () => {},
    signal: new AbortController().signal,
  });
  const entry = { key: url.key, url: url.href, depth: 1 };
  return { of: (response) => decision(path.judge(entry, url, response)) };
}

test('a 200 holding the keyword answers its line (the bytes as sent, without the line end); without it, scan', (t) => {
  const d = keywordDecision('needle', t);
  const line = d.of(fakeResponse(url, 200, [], 'first\r\n<p>a needle here</p>\r\nlast\n'));
  assert.ok(Buffer.isBuffer(line));
  assert.equal(line.toString('latin1'), '<p>a needle here</p>');
  assert.equal(d.of(fakeResponse(url, 200, [], 'no Needle, no NEEDLE\n')), 'scan', 'case-sensitive');
});

test('any status but 200 is skipped, keyword or not', (t) => {
  const d = keywordDecision('needle', t);
  for (const status of [404, 500, 203, 301]) assert.equal(d.of(fakeResponse(url, status, [], 'needle\n')), 'skip', `HTTP ${status}`);
});

test('decided once per response: asked again, the very answer, even when the body has changed since', (t) => {
  const d = keywordDecision('needle', t);
  const holding = fakeResponse(url, 200, [], 'a needle\n');
  const first = d.of(holding);
  holding.body.fill(0x20); // the needle is gone: a second search would say 'scan'
  assert.equal(d.of(holding), first, 'the same Buffer instance');

  const without = fakeResponse(url, 200, [], 'a haystack\n');
  assert.equal(d.of(without), 'scan');
  without.body.write('needle'); // a second search would now find it
  assert.equal(d.of(without), 'scan');

  assert.ok(Buffer.isBuffer(d.of(fakeResponse(url, 200, [], 'a needle\n'))), 'another response with the same body is decided afresh');
});

test('the spec\'s link resolution: a URL without a path means /index.html, its query kept', () => {
  const base = parseHttpUrl('http://h.example/dir/page.html');
  assert.equal(resolveKhLink('http://other.example', base, 2048).key, 'http://other.example/index.html');
  assert.equal(resolveKhLink('http://other.example?x=1', base, 2048).key, 'http://other.example/index.html?x=1');
  assert.equal(resolveKhLink('http://other.example/', base, 2048).key, 'http://other.example/');
  assert.equal(resolveKhLink('b.html', base, 2048).key, 'http://h.example/dir/b.html');
});
