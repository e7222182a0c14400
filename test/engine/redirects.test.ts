/**
 * The one redirect handler (src/engine/redirects.ts), without a network:
 * redirectStep's answer for each kind of response, and followRedirects over
 * fake fetch functions (the policy, failures, the order of outcomes).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CrawlerError } from '../../src/errors.js';
import { followRedirects, redirectStep, type FetchOutcome, type FollowOptions, type RedirectStep } from '../../src/engine/redirects.js';
import { parseHttpUrl, resolveHttpUrl, type HttpUrl } from '../../src/url/http-url.js';
import { fakeResponse } from '../helpers/fakes.js';

const from = parseHttpUrl('http://a.example/dir/page.html');
const resolve = (href: string, base: HttpUrl): HttpUrl => resolveHttpUrl(href, base);
const moved = (url: HttpUrl, location: string, status = 301) => fakeResponse(url, status, [['Location', location]]);

describe('redirectStep', () => {
  test('a 200 is final, even with a Location header; so is a 304 (not a redirect status)', () => {
    assert.deepEqual(redirectStep(fakeResponse(from, 200, [['Location', '/x']]), from, 0, 5, resolve), { kind: 'final' });
    assert.deepEqual(redirectStep(moved(from, '/x', 304), from, 0, 5, resolve), { kind: 'final' });
  });

  test('a 3xx without a Location is final: the response is the answer', () => {
    for (const status of [301, 302, 303, 307, 308]) {
      assert.deepEqual(redirectStep(fakeResponse(from, status), from, 0, 5, resolve), { kind: 'final' }, `HTTP ${status}`);
    }
  });

  test('every redirect status with a Location gives its target, resolved against the URL that redirected', () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const step = redirectStep(moved(from, '../other.html#frag', status), from, 0, 5, resolve);
      assert.equal(step.kind, 'target', `HTTP ${status}`);
      assert.equal(step.kind === 'target' && step.target.key, 'http://a.example/other.html');
      assert.equal(step.kind === 'target' && step.raw, '../other.html#frag', 'raw is the Location as sent');
    }
  });

  test('a Location that is not an http(s) URL is invalid, with the resolver\'s error', () => {
    const step = redirectStep(moved(from, 'ftp://a.example/file'), from, 0, 5, resolve);
    assert.equal(step.kind, 'invalid');
    assert.equal(step.kind === 'invalid' && step.raw, 'ftp://a.example/file');
    assert.equal(step.kind === 'invalid' && step.error.code, 'ERR_UNSUPPORTED_SCHEME');
  });

  test('a resolver failure that is not a CrawlerError is a bug: it propagates', () => {
    const broken = (): HttpUrl => {
      throw new TypeError('bug');
    };
    assert.throws(() => redirectStep(moved(from, '/x'), from, 0, 5, broken), TypeError);
  });

  test('the limit: with maxRedirects 2, the answers of hops 0 and 1 may be followed, hop 2\'s redirect (the third) is one too many', () => {
    const res = moved(from, '/next');
    assert.equal(redirectStep(res, from, 0, 2, resolve).kind, 'target');
    assert.equal(redirectStep(res, from, 1, 2, resolve).kind, 'target');
    const step = redirectStep(res, from, 2, 2, resolve);
    assert.equal(step.kind, 'limit');
    assert.equal(step.kind === 'limit' && step.target.key, 'http://a.example/next', 'the target that was not followed');
    assert.equal(step.kind === 'limit' && step.error.code, 'ERR_REDIRECT_LIMIT');
    assert.equal(step.kind === 'limit' && step.error.url, from.href);
    assert.equal(redirectStep(res, from, 0, 0, resolve).kind, 'limit', 'maxRedirects 0: no redirect is followed');
  });
});

/** A fake site: each URL's outcome by path; records every fetch as "path@hop". */
function fakeSite(answers: Record<string, (url: HttpUrl) => FetchOutcome>) {
  const fetched: string[] = [];
  const fetch = async (url: HttpUrl, hop: number): Promise<FetchOutcome> => {
    fetched.push(`${url.path}@${hop}`);
    const answer = answers[url.path];
    if (answer === undefined) throw new Error(`unexpected fetch of ${url.href}`);
    return answer(url);
  };
  return { fetched, fetch };
}

const to = (location: string) => (url: HttpUrl): FetchOutcome => ({ response: moved(url, location, 302) });
const ok = (url: HttpUrl): FetchOutcome => ({ response: fakeResponse(url, 200, [], 'page') });

function options(fetch: FollowOptions['fetch'], follow: FollowOptions['follow'], extra: Partial<FollowOptions> = {}): FollowOptions {
  return { fetch, maxRedirects: 5, resolve, follow, ...extra };
}

describe('followRedirects', () => {
  test('follows a chain to its end: each hop fetched with its number, every outcome reported in order, the policy shown each step', async () => {
    const site = fakeSite({ '/a': to('/b'), '/b': to('/c'), '/c': ok });
    const outcomes: string[] = [];
    const steps: string[] = [];
    const end = await followRedirects(parseHttpUrl('http://a.example/a'), options(
      site.fetch,
      async (step, at) => {
        steps.push(`${at.path}->${step.kind === 'target' ? step.target.path : step.kind}`);
        return true;
      },
      { onOutcome: (url, o) => void outcomes.push(`${url.path}:${o.response?.status}`) },
    ));
    assert.deepEqual(site.fetched, ['/a@0', '/b@1', '/c@2']);
    assert.deepEqual(outcomes, ['/a:302', '/b:302', '/c:200']);
    assert.deepEqual(steps, ['/a->/b', '/b->/c']);
    assert.equal(end.url.path, '/c');
    assert.equal(end.outcome.response?.status, 200);
    assert.deepEqual(end.step, { kind: 'final' });
  });

  test('a policy that refuses ends the chain at the redirect: its answer and step are the end, the target is not fetched', async () => {
    const site = fakeSite({ '/a': to('/b'), '/b': ok });
    const end = await followRedirects(parseHttpUrl('http://a.example/a'), options(site.fetch, () => false));
    assert.deepEqual(site.fetched, ['/a@0']);
    assert.equal(end.url.path, '/a');
    assert.equal(end.outcome.response?.status, 302);
    assert.equal(end.step?.kind === 'target' && end.step.target.path, '/b');
  });

  test('a policy that says yes to an invalid or over-the-limit step still ends the chain (only a target can be followed)', async () => {
    const bad = fakeSite({ '/a': to('mailto:x@y') });
    const seen: RedirectStep['kind'][] = [];
    const end = await followRedirects(parseHttpUrl('http://a.example/a'), options(bad.fetch, (step) => (seen.push(step.kind), true)));
    assert.deepEqual(bad.fetched, ['/a@0']);
    assert.deepEqual(seen, ['invalid']);
    assert.equal(end.step?.kind, 'invalid');

    const loop = fakeSite({ '/a': to('/b'), '/b': to('/a') });
    const ended = await followRedirects(parseHttpUrl('http://a.example/a'), options(loop.fetch, () => true, { maxRedirects: 3 }));
    assert.deepEqual(loop.fetched, ['/a@0', '/b@1', '/a@2', '/b@3']);
    assert.equal(ended.step?.kind, 'limit');
    assert.equal(ended.url.path, '/b');
  });

  test('a failed hop ends the chain with its error: no step, the policy not asked, the failure reported', async () => {
    const error = new CrawlerError('ERR_CONNECT', 'connection refused');
    const site = fakeSite({ '/a': to('/b'), '/b': () => ({ error }) });
    const outcomes: Array<[string, FetchOutcome]> = [];
    let asked = 0;
    const end = await followRedirects(parseHttpUrl('http://a.example/a'), options(site.fetch, () => (asked++, true), {
      onOutcome: (url, o) => void outcomes.push([url.path, o]),
    }));
    assert.deepEqual(site.fetched, ['/a@0', '/b@1']);
    assert.equal(asked, 1, 'only /a\'s redirect was shown to the policy');
    assert.deepEqual(outcomes.map(([p, o]) => [p, o.error?.code ?? o.response?.status]), [['/a', 302], ['/b', 'ERR_CONNECT']]);
    assert.equal(end.url.path, '/b');
    assert.equal(end.outcome.error, error);
    assert.equal(end.step, undefined);
  });

  test('the policy is awaited before the next hop is fetched', async () => {
    const site = fakeSite({ '/a': to('/b'), '/b': ok });
    const order: string[] = [];
    await followRedirects(parseHttpUrl('http://a.example/a'), options(
      async (url, hop) => (order.push(`fetch ${url.path}`), site.fetch(url, hop)),
      async () => {
        await new Promise((r) => setTimeout(r, 5));
        order.push('policy done');
        return true;
      },
    ));
    assert.deepEqual(order, ['fetch /a', 'policy done', 'fetch /b']);
  });
});
