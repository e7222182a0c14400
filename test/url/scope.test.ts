/**
 * A crawl's scope from its flags (src/url/scope.ts crawlScope): the seeds'
 * origins by default; --internal, --internal-domain and --any-host each
 * widen it (a URL is in when any says so), --exclude takes URLs out
 * whatever let them in; `outside` says why in the flags' words, and `key`
 * is what workers of a shared crawl compare.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCrawlerError } from '../../src/errors.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { crawlScope, type ScopeFlags } from '../../src/url/scope.js';

const u = (s: string) => parseHttpUrl(s);
const SEED = u('http://a.test:8080/index.html');

function inside(flags: Omit<ScopeFlags, 'seeds'> & { seeds?: ScopeFlags['seeds'] }, urls: string[]): boolean[] {
  const scope = crawlScope({ seeds: [SEED], ...flags });
  return urls.map((x) => scope.inScope(u(x)));
}

test('default: the seed\'s scheme, host and port; with several seeds, any seed\'s', () => {
  assert.deepEqual(inside({}, ['http://a.test:8080/x', 'http://A.TEST:8080/y', 'https://a.test:8080/', 'http://a.test/', 'http://b.test:8080/']), [true, true, false, false, false]);
  assert.deepEqual(inside({ seeds: [SEED, u('https://b.test/start')] }, ['http://a.test:8080/x', 'https://b.test/other', 'http://b.test/', 'https://c.test/']), [true, true, false, false]);
});

test('--internal-domain widens the scope to a domain\'s hosts; the seed\'s own origin is then no longer implied', () => {
  assert.deepEqual(inside({ domains: ['b.test'] }, ['http://x.b.test/', 'https://b.test:9/', 'http://a.test:8080/x', 'http://bb.test/']), [true, true, false, false]);
});

test('--any-host: every host', () => {
  assert.deepEqual(inside({ anyHost: true }, ['http://x.y.z/', 'https://127.0.0.9:1/', 'http://a.test:8080/']), [true, true, true]);
});

test('inclusion flags together: a URL is in when any of them takes it in', () => {
  const flags = { internal: ['http://a.test:8080/docs/'], domains: ['b.test'] };
  assert.deepEqual(inside(flags, ['http://a.test:8080/docs/x', 'http://a.test:8080/other', 'http://w.b.test/', 'http://c.test/']), [true, false, true, false]);
});

test('--exclude takes URLs out whatever took them in: the default, --internal, --internal-domain, --any-host', () => {
  const urls = ['http://a.test:8080/keep', 'http://a.test:8080/private/x', 'http://w.b.test/private/', 'http://w.b.test/ok'];
  assert.deepEqual(inside({ exclude: ['/private/'] }, urls), [true, false, false, false]);
  assert.deepEqual(inside({ internal: ['http://a.test:8080'], exclude: ['/private/'] }, urls), [true, false, false, false]);
  assert.deepEqual(inside({ domains: ['test'], exclude: ['/private/'] }, urls), [true, false, false, true]);
  assert.deepEqual(inside({ anyHost: true, exclude: ['/private/', '^http://w\\.'] }, urls), [true, false, false, false]);
});

test('with --exclude, a URL whose key is longer than --max-url-length once percent-encoded is out: no pattern is matched against more', () => {
  // 20 characters of link, 8 + 12 x 9 = 116 of key.
  const long = parseHttpUrl('http://a.test:8080/' + '\u20ac'.repeat(12));
  assert.equal(long.key.length, 'http://a.test:8080/'.length + 12 * 9);
  const scope = crawlScope({ seeds: [SEED], exclude: ['/never/'], maxUrlLength: 100 });
  assert.equal(scope.inScope(long), false);
  assert.equal(scope.outside(long), 'longer than 100 characters once percent-encoded, too long to match against --exclude (--max-url-length)');
  assert.equal(scope.inScope(u('http://a.test:8080/short')), true);
  assert.equal(crawlScope({ seeds: [SEED], exclude: ['/never/'], maxUrlLength: 200 }).inScope(long), true);
  assert.equal(crawlScope({ seeds: [SEED], maxUrlLength: 100 }).inScope(long), true, 'without --exclude, nothing is matched: the link\'s own length is what counts');
});

test('outside() says why in the flags\' words; undefined for a URL inside', () => {
  const scope = crawlScope({ seeds: [SEED], internal: ['http://a.test:8080/docs/'], domains: ['b.test'], exclude: ['/old/'] });
  assert.equal(scope.outside(u('http://a.test:8080/docs/x')), undefined);
  assert.equal(scope.outside(u('http://c.test/')), 'not inside --internal http://a.test:8080/docs/ or --internal-domain b.test');
  assert.equal(scope.outside(u('http://w.b.test/old/')), 'excluded by --exclude "/old/"');
  assert.equal(crawlScope({ seeds: [SEED] }).outside(u('http://c.test/')), 'not on the origin of a seed');
});

test('leftOut() gives the same answer as a reason for machines: external, excluded, too long; undefined inside', () => {
  const scope = crawlScope({ seeds: [SEED], internal: ['http://a.test:8080/docs/'], domains: ['b.test'], exclude: ['/old/'], maxUrlLength: 100 });
  assert.equal(scope.leftOut(u('http://a.test:8080/docs/x')), undefined);
  assert.equal(scope.leftOut(u('http://c.test/')), 'external');
  assert.equal(scope.leftOut(u('http://w.b.test/old/')), 'excluded');
  assert.equal(scope.leftOut(parseHttpUrl('http://a.test:8080/docs/' + '\u20ac'.repeat(12))), 'too long');
});

test('key: the same for the same flags in any order or repetition, different for a different scope, empty by default', () => {
  const a = crawlScope({ seeds: [SEED], internal: ['http://a.test:8080'], domains: ['B.test', 'c.test'], exclude: ['x', 'y'] }).key;
  const b = crawlScope({ seeds: [u('http://z.test/')], internal: ['HTTP://A.TEST:8080/'], domains: ['c.test', 'b.test', 'c.test'], exclude: ['y', 'x'] }).key;
  assert.equal(a, b);
  assert.notEqual(a, crawlScope({ seeds: [SEED], internal: ['http://a.test:8080'], domains: ['b.test', 'c.test'], exclude: ['x'] }).key);
  assert.notEqual(crawlScope({ seeds: [SEED], anyHost: true }).key, crawlScope({ seeds: [SEED], domains: ['test'] }).key);
  assert.equal(crawlScope({ seeds: [SEED] }).key, '');
  assert.notEqual(crawlScope({ seeds: [SEED], exclude: ['x'] }).key, '');
});

test('an invalid value of any scope flag: ERR_INVALID_OPTION naming the flag', () => {
  const cases: Array<[Omit<ScopeFlags, 'seeds'>, RegExp]> = [
    [{ internal: ['not a url'] }, /^invalid --internal prefix: /],
    [{ domains: ['http://x.test'] }, /^invalid --internal-domain "http:\/\/x\.test": /],
    [{ exclude: ['['] }, /^invalid --exclude "\[": /],
  ];
  for (const [flags, message] of cases) {
    assert.throws(() => crawlScope({ seeds: [SEED], ...flags }), (err: unknown) => isCrawlerError(err, 'ERR_INVALID_OPTION') && message.test(err.message));
  }
});
