/**
 * ./crawler end to end, spec decision "Errors name their cause first": a
 * seed whose host cannot be reached (a refused port, a name that does not
 * resolve, https spoken to a plain http port, a handshake never answered) is a PANIC that names that
 * cause, then says what to check, never --ignore-robots, and the same with
 * --ignore-robots. robots.txt is named only when its own answer decided (a
 * 503), and then --ignore-robots is the advice.
 *
 * No test leaves the machine: the unknown name is under `.invalid`, which
 * the crawler's resolver answers itself (RFC 6761 §6.4) without asking any
 * name server; the servers are on 127.0.0.1.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { assertCleanError, crawl } from '../helpers/crawler-e2e.js';
import { numberedFiles } from '../helpers/page-files.js';
import { startRaw, type RawServer } from '../helpers/raw-server.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('seed-unreachable-');

let plain: SiteServer;
let busyRobots: SiteServer;
/** Accepts connections and never says a word. */
let silent: RawServer;
let refused = 0;

before(async () => {
  plain = await startSite({ '/': { body: page('home') }, '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' } });
  busyRobots = await startSite({ '/robots.txt': { status: 503, body: 'busy' }, '/': { body: page('home') } });
  silent = await startRaw(() => undefined);
  refused = await refusedPort();
});
after(() => Promise.all([plain.close(), busyRobots.close(), silent.close()]));

/** Runs the crawl; the PANIC must be `cause` then `hint`, with no word of robots.txt, and no page file written. */
async function unreachable(args: string[], seed: string, cause: string, hint: RegExp): Promise<void> {
  const dir = tempDir();
  const r = await crawl(['--delay', '0', ...args, seed, dir, '1']);
  const escaped = `crawler: PANIC: cannot crawl ${seed}: ${cause}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assertCleanError(r, new RegExp(`^${escaped}$`), { hint });
  assert.doesNotMatch(r.stderr, /robots|ignore-robots/, 'robots.txt decided nothing');
  assert.deepEqual(numberedFiles(dir), []);
}

for (const ignoring of [[], ['--ignore-robots']]) {
  const how = ignoring.length === 0 ? 'obeying robots.txt' : 'with --ignore-robots';
  describe(`a seed whose host cannot be reached, ${how}`, { concurrency: true }, () => {
    test('nothing listens on the port (https, as a user types it): "cannot connect to HOST:PORT: connection refused"', () =>
      unreachable(ignoring, `https://127.0.0.1:${refused}/`, `cannot connect to 127.0.0.1:${refused}: connection refused`, /^Check the URL's host and port, and that the server is running\.$/));

    test('the same over http, by the name localhost: the name as given', () =>
      unreachable(ignoring, `http://localhost:${refused}/`, `cannot connect to localhost:${refused}: connection refused`, /^Check the URL's host and port/));

    test('a host name that does not exist: "cannot resolve NAME: host name not found"', () =>
      unreachable(ignoring, 'http://no-such-host.invalid/', 'cannot resolve no-such-host.invalid: host name not found', /^Check the host name in the URL; if it is right, check this machine's network and name servers\.$/));

    test('https to a port that speaks http: "TLS handshake failed with HOST:PORT: the server did not answer in TLS", the server asked nothing', async () => {
      const before = plain.requests.length;
      await unreachable(ignoring, `https://127.0.0.1:${plain.port}/`, `TLS handshake failed with 127.0.0.1:${plain.port}: the server did not answer in TLS`, /^Check that the server speaks https on that port \(for plain http, the URL starts with http:\/\/\)\.$/);
      assert.equal(plain.requests.length, before, 'no HTTP request reached it');
    });

    // 1.5 s, not less: the TCP connect before the handshake must be seen within it, and a loaded machine delayed it past 300 ms.
    test('https to a server that accepts and never answers: "TLS handshake failed ... not done within 1.5 s (connect timeout)"', () =>
      unreachable(['--connect-timeout', '1.5', ...ignoring], `https://127.0.0.1:${silent.port}/`, `TLS handshake failed with 127.0.0.1:${silent.port}: not done within 1.5 s (connect timeout)`, /^Check the URL's host and port, and the network; --connect-timeout waits longer\.$/));
  });
}

describe('a worker of a shared crawl (--frontier) says the same', { concurrency: true }, () => {
  for (const ignoring of [[], ['--ignore-robots']]) {
    test(`a refused port${ignoring.length === 0 ? '' : ', with --ignore-robots'}: the PANIC names it; stderr never suggests --ignore-robots`, async () => {
      const dir = tempDir();
      const seed = `http://127.0.0.1:${refused}/`;
      const r = await crawl(['--delay', '0', '--frontier', `sqlite:${join(dir, 'frontier.db')}`, ...ignoring, seed, dir, '1']);
      assert.equal(r.code, 1, r.stderr);
      const lines = r.stderr.trimEnd().split('\n');
      assert.deepEqual(lines.slice(-2), [`crawler: PANIC: cannot crawl ${seed}: cannot connect to 127.0.0.1:${refused}: connection refused`, "Check the URL's host and port, and that the server is running."]);
      // The PANIC names the cause; no note on the host's robots.txt repeats it, as in a private crawl.
      assert.deepEqual(lines.slice(0, -2), []);
      assert.doesNotMatch(r.stderr, /ignore-robots/);
    });
  }
});

test('robots.txt answering 503 decides (disallow all, RFC 9309): the PANIC names robots.txt, then --ignore-robots; the seed not requested', async () => {
  const dir = tempDir();
  const seed = `${busyRobots.origin}/`;
  const r = await crawl(['--delay', '0', seed, dir, '1']);
  assertCleanError(r, new RegExp(`^crawler: PANIC: cannot crawl ${seed}: ${busyRobots.origin}/robots\\.txt answered HTTP 503, which means disallow all \\(RFC 9309\\)$`), {
    hint: /^Use --ignore-robots to crawl it anyway\.$/,
  });
  assert.deepEqual(busyRobots.paths(), ['/robots.txt']);
  assert.deepEqual(numberedFiles(dir), []);
});

test('the same seed with --ignore-robots is crawled: the advice was right', async () => {
  const dir = tempDir();
  const r = await crawl(['--delay', '0', '--ignore-robots', `${busyRobots.origin}/`, dir, '0']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(numberedFiles(dir), ['1']);
});
