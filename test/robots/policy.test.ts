/** RobotsPolicy: one fetch per origin, shared by concurrent callers; failure policies; Crawl-delay cap. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  RobotsPolicy,
  CRAWLER_FAILURE_POLICY,
  KEYWORD_HUNTER_FAILURE_POLICY,
  decodeRobotsBody,
  type RobotsFetchResult,
  type RobotsFailurePolicy,
  type RobotsPolicyOptions,
} from '../../src/robots/policy.js';
import { RobotsRules } from '../../src/robots/rules.js';
import { isCrawlerError } from '../../src/errors.js';

const ok = (text: string): RobotsFetchResult => ({ status: 200, body: Buffer.from(text, 'utf8') });
const status = (code: number): RobotsFetchResult => ({ status: code, body: Buffer.from('User-agent: *\nDisallow: /\n') });

/** A fetcher that records its calls and answers from `answer`. */
function recorder(answer: (url: string) => RobotsFetchResult | Promise<RobotsFetchResult>) {
  const calls: Array<[string, string]> = [];
  const fetch = async (url: string, origin: string) => {
    calls.push([url, origin]);
    return answer(url);
  };
  return { calls, fetch };
}

function policy(fetch: RobotsPolicyOptions['fetch'], extra: Partial<RobotsPolicyOptions> = {}): RobotsPolicy {
  return new RobotsPolicy({ userAgent: 'FooBot', fetch, onFailure: CRAWLER_FAILURE_POLICY, ...extra });
}

describe('fetching and caching', () => {
  test('fetches ${origin}/robots.txt once per origin', async () => {
    const { calls, fetch } = recorder(() => ok('User-agent: *\nDisallow: /private\n'));
    const p = policy(fetch);
    assert.equal(p.cached('http://a.example'), undefined);
    const first = await p.rulesFor('http://a.example');
    const second = await p.rulesFor('http://a.example');
    assert.equal(first, second);
    assert.equal(p.cached('http://a.example'), first);
    await p.rulesFor('http://b.example:8080');
    assert.deepEqual(calls, [
      ['http://a.example/robots.txt', 'http://a.example'],
      ['http://b.example:8080/robots.txt', 'http://b.example:8080'],
    ]);
    assert.equal(first.isAllowed('/private/x'), false);
  });

  test('concurrent callers share one fetch', async () => {
    let release!: (r: RobotsFetchResult) => void;
    const gate = new Promise<RobotsFetchResult>((resolve) => (release = resolve));
    const { calls, fetch } = recorder(() => gate);
    const p = policy(fetch);
    const waiting = [p.rulesFor('http://h'), p.rulesFor('http://h'), p.rulesFor('http://h')];
    assert.equal(p.cached('http://h'), undefined, 'nothing cached while the fetch runs');
    release(ok('User-agent: FooBot\nDisallow: /x\n'));
    const [a, b, c] = await Promise.all(waiting);
    assert.equal(calls.length, 1);
    assert.ok(a === b && b === c);
    assert.equal(a?.isAllowed('/x'), false);
  });

  test('set() seeds the cache: no fetch, and it wins over a fetch already running', async () => {
    const { calls, fetch } = recorder(() => ok(''));
    const p = policy(fetch);
    const seeded = RobotsRules.disallowAll();
    p.set('http://seeded', seeded);
    assert.equal(await p.rulesFor('http://seeded'), seeded);
    assert.equal(calls.length, 0);

    const running = p.rulesFor('http://late');
    const other = RobotsRules.disallowAll();
    p.set('http://late', other);
    assert.equal(await running, other);
    assert.equal(p.cached('http://late'), other);
  });

  test('a fetcher that throws counts as a network failure, and is not retried', async () => {
    let n = 0;
    const p = policy(async () => {
      n++;
      throw new Error('ECONNRESET');
    });
    assert.equal((await p.rulesFor('http://h')).isAllowed('/'), false);
    assert.equal((await p.rulesFor('http://h')).isAllowed('/'), false);
    assert.equal(n, 1);
  });

  test('the body is decoded as UTF-8', async () => {
    const p = policy(async () => ({ status: 200, body: Buffer.from('\uFEFFUser-agent: FooBot\nDisallow: /café\n', 'utf8') }));
    const r = await p.rulesFor('http://h');
    assert.equal(r.isAllowed('/caf%C3%A9'), false);
    assert.equal(r.isAllowed('/cafe'), true);
  });

  test('invalid options are rejected with ERR_INVALID_OPTION', () => {
    const fetch = async () => ok('');
    assert.throws(() => policy(fetch, { maxBytes: 0 }), (e) => isCrawlerError(e, 'ERR_INVALID_OPTION'));
    assert.throws(() => policy(fetch, { maxCrawlDelay: -1 }), (e) => isCrawlerError(e, 'ERR_INVALID_OPTION'));
  });
});

describe('failure policies', () => {
  async function allowedAfter(result: RobotsFetchResult, onFailure: RobotsFailurePolicy): Promise<boolean> {
    const p = policy(async () => result, { onFailure });
    return (await p.rulesFor('http://h')).isAllowed('/page');
  }

  const cases: Array<[string, RobotsFetchResult, boolean, boolean]> = [
    // name, result, crawler allows, KeywordHunter allows
    ['404', status(404), true, true],
    ['410', status(410), true, true],
    ['401', status(401), true, true],
    ['429', status(429), false, true],
    ['500', status(500), false, true],
    ['503', status(503), false, true],
    ['network error', { error: new Error('ENOTFOUND') }, false, true],
    ['3xx (redirects exhausted)', status(301), true, true],
  ];
  for (const [name, result, crawler, hunter] of cases) {
    test(`${name}: crawler ${crawler ? 'allows' : 'disallows'} all, KeywordHunter allows all`, async () => {
      assert.equal(await allowedAfter(result, CRAWLER_FAILURE_POLICY), crawler);
      assert.equal(await allowedAfter(result, KEYWORD_HUNTER_FAILURE_POLICY), hunter);
    });
  }

  test('the policy functions themselves', () => {
    assert.equal(CRAWLER_FAILURE_POLICY(status(404)), 'allow');
    assert.equal(CRAWLER_FAILURE_POLICY(status(599)), 'disallow');
    assert.equal(CRAWLER_FAILURE_POLICY(status(100)), 'disallow');
    assert.equal(CRAWLER_FAILURE_POLICY({ error: 'x' }), 'disallow');
    assert.equal(KEYWORD_HUNTER_FAILURE_POLICY(status(503)), 'allow');
    assert.equal(KEYWORD_HUNTER_FAILURE_POLICY({ error: 'x' }), 'allow');
  });

  test('a 2xx is parsed, not handed to the failure policy', async () => {
    let asked = 0;
    const onFailure: RobotsFailurePolicy = () => {
      asked++;
      return 'disallow';
    };
    const p = policy(async () => ({ status: 204, body: Buffer.alloc(0) }), { onFailure });
    assert.equal((await p.rulesFor('http://h')).isAllowed('/x'), true);
    assert.equal(asked, 0);
  });
});

describe('crawl-delay cap', () => {
  const delayOf = async (text: string, extra: Partial<RobotsPolicyOptions> = {}) =>
    (await policy(async () => ok(text), extra).rulesFor('http://h')).crawlDelay;

  test('a Crawl-delay above the cap (default 30 s) is capped', async () => {
    assert.equal(await delayOf('User-agent: *\nCrawl-delay: 120\n'), 30);
    assert.equal(await delayOf('User-agent: *\nCrawl-delay: 120\n', { maxCrawlDelay: 10 }), 10);
  });

  test('a Crawl-delay within the cap is kept, fractions included', async () => {
    assert.equal(await delayOf('User-agent: *\nCrawl-delay: 0.5\n'), 0.5);
    assert.equal(await delayOf('User-agent: *\nCrawl-delay: 30\n'), 30);
    assert.equal(await delayOf('User-agent: *\nDisallow: /\n'), undefined);
  });

  test('capping keeps the rules', async () => {
    const r = await policy(async () => ok('User-agent: *\nCrawl-delay: 99\nDisallow: /x\n'), { maxCrawlDelay: 1 }).rulesFor('http://h');
    assert.equal(r.crawlDelay, 1);
    assert.deepEqual(r.check('/x'), { allowed: false, line: 3, rule: 'Disallow: /x' });
  });
});

describe('decodeRobotsBody', () => {
  test('keeps whole lines and whole characters', () => {
    const body = Buffer.from('ab\ncdé\nfg', 'utf8');
    assert.equal(decodeRobotsBody(body, 100), 'ab\ncdé\nfg');
    assert.equal(decodeRobotsBody(body, 3), 'ab\n');
    assert.equal(decodeRobotsBody(Buffer.from('ab\ncd\nef'), 5), 'ab\ncd', 'the limit ends a line exactly');
    assert.equal(decodeRobotsBody(body, 5), 'ab\n', 'partial line dropped');
    assert.equal(decodeRobotsBody(Buffer.from('aé', 'utf8'), 2), 'a', 'no newline: cut before a split character');
  });
});
