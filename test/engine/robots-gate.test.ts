/**
 * RobotsGate (src/engine/robots-gate.ts) without a network: what it answers
 * before and after a host's rules are known, how a host's Crawl-delay reaches
 * politeness, that rules are matched against the request target as sent,
 * and that a private crawl's loader is asked once per origin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RobotsGate } from '../../src/engine/robots-gate.js';
import { Politeness } from '../../src/frontier/politeness.js';
import { RobotsRules } from '../../src/robots/rules.js';
import { parseHttpUrl } from '../../src/url/http-url.js';

const A = 'http://a.example';
const rules = (text: string): RobotsRules => RobotsRules.parse(text, 'TestBot');

/** A loader answering `text` for every origin, recording the origins asked. */
function loader(text: string) {
  const asked: string[] = [];
  const load = async (origin: string): Promise<RobotsRules> => {
    asked.push(origin);
    return rules(text);
  };
  return { asked, load };
}

test('allowsNow is undefined while the host\'s rules are not known, then answers from them', () => {
  const gate = new RobotsGate({ politeness: new Politeness({ delayMs: 0 }) });
  const url = parseHttpUrl(`${A}/private/x`);
  assert.equal(gate.allowsNow(url), undefined);
  assert.equal(gate.rulesOf(A), undefined);
  const r = rules('User-agent: *\nDisallow: /private\n');
  gate.learn(A, r);
  assert.equal(gate.allowsNow(url), false);
  assert.equal(gate.allowsNow(parseHttpUrl(`${A}/public`)), true);
  assert.equal(gate.rulesOf(A), r);
  assert.equal(gate.allowsNow(parseHttpUrl('http://b.example/private/x')), undefined, 'rules are per origin');
});

test('learn() hands the Crawl-delay to politeness as the host\'s interval, unless delayMs says what it is', () => {
  const politeness = new Politeness({ delayMs: 50 });
  const gate = new RobotsGate({ politeness });
  gate.learn(A, rules('User-agent: *\nCrawl-delay: 1.5\n'));
  assert.equal(politeness.intervalFor(A), 1500);
  gate.learn('http://b.example', rules('User-agent: *\nCrawl-delay: 1.5\n'), 300);
  assert.equal(politeness.intervalFor('http://b.example'), 300, 'the store\'s interval wins over the file\'s');
  gate.learn('http://c.example', rules('User-agent: *\nDisallow: /x\n'));
  assert.equal(politeness.intervalFor('http://c.example'), 50, 'no Crawl-delay: the crawl\'s delay');
  assert.equal(politeness.intervalFor('http://d.example'), 50, 'another host is not touched');
});

test('rules are matched against the request target (percent-encoded, RFC 9309 §2.2.2), not the path as written', () => {
  const gate = new RobotsGate({ politeness: new Politeness({ delayMs: 0 }) });
  const r = rules('User-agent: *\nDisallow: /caf\u00e9\nDisallow: /%7Bx\n');
  gate.learn(A, r);
  for (const written of ['/caf\u00e9/menu', '/{x}']) {
    const url = parseHttpUrl(`${A}${written}`);
    assert.notEqual(url.target, url.pathAndQuery, 'the case needs encoding');
    assert.equal(r.isAllowed(url.pathAndQuery), true, `${written} as written does not match the encoded pattern`);
    assert.equal(gate.allowsNow(url), false, `${url.target} is disallowed`);
  }
});

test('a disabled gate (--ignore-robots) allows every URL, now and later, and never loads rules', async () => {
  const { asked, load } = loader('User-agent: *\nDisallow: /\n');
  const gate = new RobotsGate({ politeness: new Politeness({ delayMs: 0 }), load, enabled: false });
  const url = parseHttpUrl(`${A}/x`);
  assert.equal(gate.allowsNow(url), true);
  assert.equal(await gate.allows(url), true);
  gate.learn(A, rules('User-agent: *\nDisallow: /\n'));
  assert.equal(gate.allowsNow(url), true);
  assert.deepEqual(asked, []);
});

test('allows() loads an origin\'s rules once, learns them (Crawl-delay included) and answers every later URL from them', async () => {
  const { asked, load } = loader('User-agent: *\nDisallow: /private\nCrawl-delay: 2\n');
  const politeness = new Politeness({ delayMs: 0 });
  const gate = new RobotsGate({ politeness, load });
  assert.equal(await gate.allows(parseHttpUrl(`${A}/private/1`)), false);
  assert.equal(await gate.allows(parseHttpUrl(`${A}/open`)), true);
  assert.equal(gate.allowsNow(parseHttpUrl(`${A}/private/2`)), false);
  assert.equal(politeness.intervalFor(A), 2000);
  assert.equal(await gate.allows(parseHttpUrl('http://b.example/private')), false);
  assert.deepEqual(asked, [A, 'http://b.example']);
});

test('allows() without a loader: a host without known rules is allowed, and stays unknown', async () => {
  const gate = new RobotsGate({ politeness: new Politeness({ delayMs: 0 }) });
  const url = parseHttpUrl(`${A}/private`);
  assert.equal(await gate.allows(url), true);
  assert.equal(gate.allowsNow(url), undefined);
  gate.learn(A, rules('User-agent: *\nDisallow: /private\n'));
  assert.equal(await gate.allows(url), false);
});

test('learnAll: `loaded` hears each host\'s rules (Crawl-delay in politeness already) once every robots.txt is asked, then as they come; all are learnt and told in the order given', async () => {
  const politeness = new Politeness({ delayMs: 100 });
  const pending = new Map<string, (r: RobotsRules) => void>();
  const asked: string[] = [];
  const load = (origin: string): Promise<RobotsRules> => {
    asked.push(origin);
    return new Promise((resolve) => pending.set(origin, resolve));
  };
  const told: string[] = [];
  const gate = new RobotsGate({ politeness, load, onEvent: (e) => e.type === 'robots' && told.push(e.origin) });
  const [a, b, c, d] = ['http://a.test', 'http://b.test', 'http://c.test', 'http://d.test'] as const;
  const heard: Array<[string, number]> = [];
  const all = gate.learnAll([a, b, c, d, a], 2, (origin) => heard.push([origin, politeness.intervalFor(origin)]));
  const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
  await settle();
  assert.deepEqual(asked, [a, b]);
  pending.get(a)?.(RobotsRules.parse('User-agent: *\nCrawl-delay: 2\n', 'polite-crawler'));
  await settle();
  assert.deepEqual(asked, [a, b, c]);
  assert.equal(heard.length, 0, 'd is not asked yet: nothing heard');
  pending.get(c)?.(RobotsRules.allowAll());
  await settle();
  assert.deepEqual(asked, [a, b, c, d]);
  assert.deepEqual(heard, [[a, 2000], [c, 100]], 'the last robots.txt asked: what came is heard, in the order it came');
  pending.get(d)?.(RobotsRules.allowAll());
  await settle();
  pending.get(b)?.(RobotsRules.allowAll());
  await all;
  assert.deepEqual(heard.map(([o]) => o), [a, c, d, b]);
  assert.deepEqual(told, [a, b, c, d], 'learnt and told in the order given');
});
