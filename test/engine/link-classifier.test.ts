/**
 * LinkClassifier (src/engine/link-classifier.ts): one order for every mode,
 * external, then duplicate, then robots, then follow; undecided (now()
 * undefined) only while robots.txt is needed and unknown.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LinkClassifier, type LinkClassifierOptions } from '../../src/engine/link-classifier.js';
import { RobotsGate } from '../../src/engine/robots-gate.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { RobotsRules } from '../../src/robots/rules.js';
import { parseHttpUrl, type HttpUrl } from '../../src/url/http-url.js';

const IN = 'http://in.example';
const OUT = 'http://out.example';
const DISALLOW_PRIVATE = RobotsRules.parse('User-agent: *\nDisallow: /private\n', 'TestBot');

/** A classifier whose scope is IN, with `seen` keys and robots.txt known for the origins in `known`. */
function classifier(seen: string[] | undefined, known: string[] = [IN, OUT], load?: (origin: string) => Promise<RobotsRules>) {
  const robots = new RobotsGate({ politeness: new Politeness({ delayMs: 0 }), ...(load ? { load } : {}) });
  for (const origin of known) robots.learn(origin, DISALLOW_PRIVATE);
  const o: LinkClassifierOptions = { inScope: (url: HttpUrl) => url.origin === IN, robots };
  if (seen !== undefined) {
    const keys = new Set(seen);
    o.isSeen = (key) => keys.has(key);
  }
  return new LinkClassifier(o);
}

test('the order: external before duplicate before robots before follow', async () => {
  const out = parseHttpUrl(`${OUT}/private/x`);
  const seenPrivate = parseHttpUrl(`${IN}/private/seen`);
  const c = classifier([out.key, seenPrivate.key]);
  assert.equal(c.now(out), 'external', 'out of scope, though seen and disallowed');
  assert.equal(c.now(seenPrivate), 'duplicate', 'seen, though disallowed');
  assert.equal(c.now(parseHttpUrl(`${IN}/private/new`)), 'robots');
  assert.equal(c.now(parseHttpUrl(`${IN}/public`)), 'follow');
  assert.equal(await c.classify(seenPrivate), 'duplicate', 'classify() keeps the order');
});

test('a duplicate is found by the identity key: another spelling of a seen URL is a duplicate', () => {
  const c = classifier([parseHttpUrl(`${IN}/a%20b`).key]);
  assert.equal(c.now(parseHttpUrl('HTTP://IN.example:80/x/../a b#top')), 'duplicate');
});

test('now() is undefined when the host\'s robots.txt is not known, but external and duplicate need no robots.txt', () => {
  const seen = parseHttpUrl(`${IN}/seen`);
  const c = classifier([seen.key], []);
  assert.equal(c.now(parseHttpUrl(`${IN}/new`)), undefined);
  assert.equal(c.now(seen), 'duplicate');
  assert.equal(c.now(parseHttpUrl(`${OUT}/x`)), 'external');
});

test('classify() loads the unknown host\'s robots.txt and decides; external and duplicate load nothing', async () => {
  const asked: string[] = [];
  const load = async (origin: string): Promise<RobotsRules> => (asked.push(origin), DISALLOW_PRIVATE);
  const seen = parseHttpUrl(`${IN}/private/seen`);
  const c = classifier([seen.key], [], load);
  assert.equal(await c.classify(parseHttpUrl(`${OUT}/private`)), 'external');
  assert.equal(await c.classify(seen), 'duplicate');
  assert.deepEqual(asked, []);
  assert.equal(await c.classify(parseHttpUrl(`${IN}/private/new`)), 'robots');
  assert.equal(await c.classify(parseHttpUrl(`${IN}/public`)), 'follow');
  assert.equal(c.now(parseHttpUrl(`${IN}/private/other`)), 'robots', 'known now');
  assert.deepEqual(asked, [IN]);
});

test('without isSeen (a shared store decides later) nothing is a duplicate', () => {
  const c = classifier(undefined);
  const url = parseHttpUrl(`${IN}/page`);
  assert.equal(c.now(url), 'follow');
  assert.equal(c.now(url), 'follow', 'asked again, still follow: the classifier remembers nothing');
  assert.equal(c.now(parseHttpUrl(`${IN}/private/p`)), 'robots');
});
