/**
 * The seed PANIC names its cause first (spec decision "Errors name their
 * cause first"), fed by hand: a host that cannot be reached is named so,
 * whether robots.txt's request or the seed's own found it out, with what to
 * do on a second line and never --ignore-robots; robots.txt is named only
 * when its own answer decided, and then --ignore-robots is what to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrawlerError } from '../../src/errors.js';
import { ConnectError } from '../../src/http/connect-error.js';
import { CrawlLog } from '../../src/output/cs50-log.js';
import { ROBOTS_HINT, SeedPanic } from '../../src/programs/seed-panic.js';
import { tseEventLog } from '../../src/programs/tse-log.js';
import type { RobotsFetchResult } from '../../src/robots/policy.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { recordingIo } from '../helpers/fakes.js';

const SEED = 'http://site.test:8080/';
const seed = parseHttpUrl(SEED);
const ORIGIN = 'http://site.test:8080';
const ROBOTS = `${ORIGIN}/robots.txt`;

const refused = (host = 'site.test', port = 8080): ConnectError =>
  new ConnectError('ERR_CONNECT', `cannot connect to ${host}:${port}: connection refused`, { host, port, systemCode: 'ECONNREFUSED' });
const unreachable: Array<[string, ConnectError, RegExp]> = [
  ['refused', refused(), /^Check the URL's host and port, and that the server is running\.$/],
  ['host unreachable', new ConnectError('ERR_CONNECT', 'cannot connect to site.test:8080: host unreachable', { host: 'site.test', port: 8080, systemCode: 'EHOSTUNREACH' }), /^Check the URL's host, and this machine's network\.$/],
  ['not resolved', new ConnectError('ERR_DNS', 'cannot resolve site.test: host name not found', { host: 'site.test', systemCode: 'ENOTFOUND' }), /^Check the host name in the URL/],
  ['offline (EAI_AGAIN)', new ConnectError('ERR_DNS', 'cannot resolve site.test: no name server answered (temporary failure in name resolution)', { host: 'site.test', systemCode: 'EAI_AGAIN' }), /^Check the host name in the URL; if it is right, check this machine's network/],
  ['connect timeout', new ConnectError('ERR_CONNECT_TIMEOUT', 'cannot connect to site.test:8080: no answer within 10 s (connect timeout)', { host: 'site.test', port: 8080 }), /--connect-timeout waits longer/],
  ['plain http port', new ConnectError('ERR_TLS', 'TLS handshake failed with site.test:8080: the server did not answer in TLS', { host: 'site.test', port: 8080, systemCode: 'ERR_SSL_WRONG_VERSION_NUMBER' }), /speaks https on that port.*http:\/\//],
  ['untrusted certificate', new ConnectError('ERR_TLS', 'TLS handshake failed with site.test:8080: self-signed certificate', { host: 'site.test', port: 8080, systemCode: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), /--insecure skips the check/],
];

/** A SeedPanic whose robots.txt fetcher answered `result` for the seed's origin. */
async function afterRobots(result: RobotsFetchResult): Promise<SeedPanic> {
  const panic = new SeedPanic(seed);
  const fetch = panic.watching(async () => result);
  assert.equal(await fetch(ROBOTS, ORIGIN), result, 'the answer passes through');
  return panic;
}

/** The PANIC's two lines. */
function lines(panic: SeedPanic): [string, string | undefined] {
  const p = panic.panic;
  assert.ok(p !== undefined, 'a PANIC');
  assert.equal(p.code, 'ERR_SEED');
  return [p.message, p.hint];
}

for (const [what, error, hint] of unreachable) {
  test(`robots.txt's request finds the host unreachable (${what}): the PANIC names that, never robots.txt nor --ignore-robots`, async () => {
    const panic = await afterRobots({ error });
    panic.disallowed();
    const [message, second] = lines(panic);
    assert.equal(message, `PANIC: cannot crawl ${SEED}: ${error.message}`);
    assert.match(second ?? '', hint);
    assert.doesNotMatch(`${message}\n${second}`, /robots|ignore-robots/);
  });

  test(`with --ignore-robots, the seed's own request finds it unreachable (${what}): the same cause and the same advice`, () => {
    const panic = new SeedPanic(seed);
    assert.equal(panic.failed(0, true, `(${error.message})`, error), true);
    const [message, second] = lines(panic);
    assert.equal(message, `PANIC: cannot crawl ${SEED}: ${error.message}`);
    assert.match(second ?? '', hint);
  });
}

test('robots.txt answered 503 (or 500, 429): robots.txt decided, so it is named, with --ignore-robots on the second line', async () => {
  for (const status of [503, 500, 429]) {
    const panic = await afterRobots({ status, body: Buffer.from('busy') });
    panic.disallowed();
    assert.deepEqual(lines(panic), [`PANIC: cannot crawl ${SEED}: ${ROBOTS} answered HTTP ${status}, which means disallow all (RFC 9309)`, ROBOTS_HINT]);
    assert.equal(ROBOTS_HINT, 'Use --ignore-robots to crawl it anyway.');
  }
});

test('robots.txt rules that disallow the seed: "robots.txt disallows it", --ignore-robots on the second line', async () => {
  const panic = await afterRobots({ status: 200, body: Buffer.from('User-agent: *\nDisallow: /\n') });
  panic.disallowed();
  assert.deepEqual(lines(panic), [`PANIC: cannot crawl ${SEED}: robots.txt disallows it`, ROBOTS_HINT]);
});

test('robots.txt failing on a host that answered (a response cut short, a redirect to a host that refuses): robots.txt decided', async () => {
  const idle = new CrawlerError('ERR_IDLE_TIMEOUT', 'no data for 15000 ms (idle timeout)');
  const cut = await afterRobots({ error: idle });
  cut.disallowed();
  assert.deepEqual(lines(cut), [`PANIC: cannot crawl ${SEED}: ${ROBOTS} could not be fetched (no data for 15000 ms (idle timeout)), which means disallow all (RFC 9309)`, ROBOTS_HINT]);

  for (const elsewhere of [refused('other.test', 8080), refused('site.test', 9999)]) {
    const moved = await afterRobots({ error: elsewhere });
    moved.disallowed();
    assert.deepEqual(lines(moved), [`PANIC: cannot crawl ${SEED}: ${ROBOTS} could not be fetched (${elsewhere.message}), which means disallow all (RFC 9309)`, ROBOTS_HINT]);
  }
});

test('a failure that is not the host being unreachable keeps the program\'s reason, without a second line; only at depth 0 with nothing saved', () => {
  const panic = new SeedPanic(seed);
  assert.equal(panic.failed(1, true, '(HTTP 404)', undefined), false);
  assert.equal(panic.failed(0, false, '(cannot connect)', refused()), false);
  assert.equal(panic.panic, undefined);
  assert.equal(panic.failed(0, true, '(HTTP 404)'), true);
  assert.deepEqual(lines(panic), [`PANIC: cannot crawl ${SEED}: (HTTP 404)`, undefined]);
  const reset = new SeedPanic(seed);
  reset.failed(0, true, '(connection reset by the server)', new CrawlerError('ERR_SOCKET', 'connection reset by the server'));
  assert.deepEqual(lines(reset), [`PANIC: cannot crawl ${SEED}: (connection reset by the server)`, undefined]);
});

test('through the log: a failed event carrying the cause, and a shared crawl\'s disallowed seed, both name the unreachable host', async () => {
  const rec = recordingIo();
  const panic = new SeedPanic(seed);
  const sink = tseEventLog({ io: rec.io, log: new CrawlLog(rec.io, 'cs50'), seedPanic: panic, nothingSaved: () => true });
  sink({ type: 'failed', url: SEED, depth: 0, reason: `(${refused().message})`, error: refused() });
  assert.deepEqual(lines(panic), [`PANIC: cannot crawl ${SEED}: ${refused().message}`, "Check the URL's host and port, and that the server is running."]);

  const shared = await afterRobots({ error: refused() });
  const sharedSink = tseEventLog({ io: rec.io, log: new CrawlLog(rec.io, 'cs50'), seedPanic: shared, nothingSaved: () => true });
  // A worker of a shared crawl learns the seed is disallowed when it claims it.
  sharedSink({ type: 'disallowed', url: `${ORIGIN}/home`, depth: 0 });
  assert.deepEqual(lines(shared), [`PANIC: cannot crawl ${SEED}: ${refused().message}`, "Check the URL's host and port, and that the server is running."]);
  assert.equal(rec.out(), '', 'no Failed line');
});

test('a shared crawl\'s stderr note for a robots.txt that means disallow all: the cause first when the host was not reached', async () => {
  const down = await afterRobots({ error: refused() });
  assert.equal(down.robotsNote(ROBOTS, 0), `${refused().message}: ${ROBOTS} could not be fetched, which means disallow all (RFC 9309)`);
  const cut = await afterRobots({ error: new CrawlerError('ERR_IDLE_TIMEOUT', 'no data for 15000 ms (idle timeout)') });
  assert.equal(cut.robotsNote(ROBOTS, 0), `${ROBOTS} could not be fetched (no data for 15000 ms (idle timeout)), which means disallow all (RFC 9309)`);
  const busy = await afterRobots({ status: 503, body: Buffer.alloc(0) });
  assert.equal(busy.robotsNote(ROBOTS, 503), `${ROBOTS} answered HTTP 503, which means disallow all (RFC 9309)`);
  const fine = await afterRobots({ status: 404, body: Buffer.alloc(0) });
  assert.equal(fine.robotsNote(ROBOTS, 404), undefined, 'a 404 means allow all: nothing to note');
  assert.equal(new SeedPanic(seed).robotsNote(ROBOTS, 0), `${ROBOTS} could not be fetched, which means disallow all (RFC 9309)`, 'an answer from the store (another worker fetched it)');
});

test('several seeds (--seeds): a seed that fails is a Failed line, not a PANIC; the PANIC comes at the end only when none was crawled, with the first one\'s cause', () => {
  const rec = recordingIo();
  const panic = new SeedPanic(seed, 3);
  const log = new CrawlLog(rec.io, 'cs50');
  const sink = tseEventLog({ io: rec.io, log, seedPanic: panic, nothingSaved: () => true });
  const other = 'http://other.test/';
  sink({ type: 'failed', url: other, depth: 0, reason: `(${refused('other.test', 80).message})`, error: refused('other.test', 80) });
  sink({ type: 'failed', url: SEED, depth: 0, reason: '(HTTP 404)' });
  sink({ type: 'disallowed', url: 'http://third.test/', depth: 0 });
  sink({ type: 'redirect', from: parseHttpUrl('http://fourth.test/'), depth: 0, target: parseHttpUrl('http://away.test/'), raw: 'http://away.test/', action: 'external' });
  log.flush();
  assert.equal(panic.panic, undefined, 'no PANIC while the crawl goes on');
  assert.deepEqual(rec.out().trimEnd().split('\n'), [
    ` 0    Failed: ${other} (${refused('other.test', 80).message})`,
    ` 0    Failed: ${SEED} (HTTP 404)`,
    ' 0    Failed: http://third.test/ (disallowed by robots.txt)',
    ' 0    Failed: http://fourth.test/ (redirects to http://away.test/: outside the crawl)',
  ]);
  panic.ended();
  assert.deepEqual(lines(panic), [`PANIC: cannot crawl any of the 3 seeds; the first, ${other}: ${refused('other.test', 80).message}`, "Check the URL's host and port, and that the server is running."]);
});

test('several seeds: the first failure noted is the one named, a robots.txt one with its advice; none noted (another worker\'s): no page was saved', () => {
  const robots = new SeedPanic(seed, 2);
  assert.equal(robots.disallowed(seed), false);
  assert.equal(robots.failed(0, true, '(HTTP 500)', undefined, 'http://second.test/'), false);
  robots.ended();
  assert.deepEqual(lines(robots), [`PANIC: cannot crawl any of the 2 seeds; the first, ${SEED}: robots.txt disallows it`, ROBOTS_HINT]);
  const none = new SeedPanic(seed, 2);
  none.ended();
  assert.deepEqual(lines(none), ['PANIC: cannot crawl any of the 2 seeds; no page was saved', undefined]);
  const one = new SeedPanic(seed);
  one.ended();
  assert.equal(one.panic, undefined, 'one seed: its PANIC came when it failed, or not at all');
});
