/**
 * A broad crawl within the process's limits (spec decision "Many hosts"):
 * 500 loopback hosts, 3 pages each, behind a hub page that links to them
 * all.
 * - Under an open-file limit of 256 (`prlimit --nofile=256`), with
 *   --concurrency 200: every page is saved, exit 0, no EMFILE, and the
 *   servers never see more connections open at once than the limit less
 *   the margin kept for files (socket-budget.ts).
 * - At --concurrency 1000, the most the flag accepts, both programs print
 *   nothing on stderr but their last line: no MaxListenersExceededWarning
 *   (a listener per request waiting for its host's turn).
 * - --concurrency above 1000 and a bad --max-idle-connections are refused
 *   before any request; --max-idle-connections 0 crawls on new connections.
 */
// run-tests: long (26 s: thousands of hosts)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { FILE_MARGIN } from '../../src/http/socket-budget.js';
import { assertCleanError, crawl } from '../helpers/crawler-e2e.js';
import { startManyHosts, type ManyHosts } from '../helpers/many-hosts.js';
import { assertDenseIds, readPages } from '../helpers/page-files.js';
import { runProgram, type RunResult } from '../helpers/spawn.js';
import { startSite } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('broad-sockets-');
const HOSTS = 500;
const PAGES = 3;
const FILE_LIMIT = 256;

let site: ManyHosts;
before(async () => {
  site = await startManyHosts({ hosts: HOSTS, pages: PAGES });
});
after(() => site.close());

/** The crawler's arguments for the whole site: every host is internal. */
function crawlArgs(dir: string, extra: string[], delay = '0.05'): string[] {
  return ['--delay', delay, ...extra, ...site.origins.flatMap((o) => ['--internal', `${o}/`]), site.hub, dir, String(PAGES)];
}

/** Every page of the site saved once, IDs 1..N, the hub first. */
function assertEveryPage(dir: string): void {
  assertDenseIds(dir);
  const saved = readPages(dir).map((p) => p.url);
  assert.equal(saved[0], site.hub);
  assert.equal(saved.length, site.pageUrls.length, `${site.pageUrls.length} pages saved, got ${saved.length}`);
  assert.deepEqual([...saved].sort(), [...site.pageUrls].sort(), 'each page saved once');
}

/** Runs behind prlimit, or where util-linux lacks it, behind the shell's ulimit. */
function underFileLimit(limit: number): string[] {
  return existsSync('/usr/bin/prlimit') ? ['/usr/bin/prlimit', `--nofile=${limit}`] : ['sh', '-c', `ulimit -n ${limit} && exec "$0" "$@"`];
}

function assertOnlyLastLine(r: RunResult, last: RegExp): void {
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0] as string, last);
}

test(`open-file limit ${FILE_LIMIT}, ${HOSTS} hosts, --concurrency 200: every page saved, no EMFILE, at most ${FILE_LIMIT - FILE_MARGIN} connections open at once`, async (t) => {
  const dir = temp();
  const before = site.connections.accepted;
  const r = await runProgram('crawler', crawlArgs(dir, ['--concurrency', '200', '--quiet']), { timeoutMs: 120_000, wrap: underFileLimit(FILE_LIMIT) });
  assert.doesNotMatch(r.stderr, /EMFILE|too many open files/i);
  assertOnlyLastLine(r, new RegExp(`^crawler: saved ${site.pageUrls.length} pages in `));
  assertEveryPage(dir);
  const most = site.connections.most;
  t.diagnostic(`at most ${most} connections open at once at the servers`);
  assert.ok(site.connections.accepted - before >= HOSTS, 'a connection at least to each host');
  assert.ok(most <= FILE_LIMIT - FILE_MARGIN, `at most ${FILE_LIMIT - FILE_MARGIN} connections open at once at the servers, saw ${most}`);
  // Else the limit was never approached, and the test would show nothing.
  assert.ok(most >= 100, `many hosts were crawled at once (${most} connections open at the most)`);
});

/**
 * Long enough that the requests of most hosts wait for their turn together
 * (each host's page waits out the interval after its robots.txt): each
 * such wait listened to the crawl's stop signal.
 */
const WAITING_DELAY = '0.2';

test('--concurrency 1000, the most accepted: no warning on stderr, from either program', async () => {
  const dir = temp();
  const [tse, kh] = await Promise.all([
    crawl(crawlArgs(dir, ['--concurrency', '1000', '--quiet'], WAITING_DELAY), 120_000),
    runProgram('KeywordHunter', ['--delay', WAITING_DELAY, '--concurrency', '1000', site.hub, 'NotOnAnyPage'], { timeoutMs: 120_000 }),
  ]);
  assertOnlyLastLine(tse, new RegExp(`^crawler: saved ${site.pageUrls.length} pages in `));
  assertEveryPage(dir);
  assert.equal(kh.code, 0, kh.stderr);
  assert.equal(kh.stderr, '', 'KeywordHunter writes nothing on stderr');
  assert.equal(kh.stdout.split('\n').filter((l) => l.startsWith('PAGE:')).length, site.pageUrls.length, 'KeywordHunter requested every page');
  assert.match(kh.stdout, /^NOT_FOUND_KEYWORD:/m);
});

test('--concurrency 1001 and a bad --max-idle-connections: exit 1, one line naming the flag, before any request', async () => {
  const before = site.requests;
  assertCleanError(await crawl(crawlArgs(temp(), ['--concurrency', '1001'])), /^crawler: --concurrency must be at most 1000, got 1001/);
  assertCleanError(await crawl(crawlArgs(temp(), ['--max-idle-connections', 'many'])), /^crawler: --max-idle-connections must be a non-negative whole number, got "many"/);
  assertCleanError(await crawl(crawlArgs(temp(), ['--max-idle-connections', '-1'])), /^crawler: --max-idle-connections/);
  const kh = await runProgram('KeywordHunter', ['--concurrency', '5000', site.hub, 'k']);
  assert.equal(kh.code, 1);
  assert.equal(kh.stdout, '');
  assert.match(kh.stderr, /^KeywordHunter: --concurrency must be at most 1000, got 5000\n/);
  assert.equal(site.requests, before, 'no request');
});

test('--max-idle-connections 0: every page on a connection of its own; 2: the connections are reused', async () => {
  const routes = Object.fromEntries([0, 1, 2, 3].map((p) => [`/p${p}`, { body: `<a href="/p${p + 1}">next</a>` }]));
  const none = await startSite({ ...routes, '/robots.txt': { status: 404 } });
  const two = await startSite({ ...routes, '/robots.txt': { status: 404 } });
  try {
    const r0 = await crawl(['--delay', '0', '--quiet', '--max-idle-connections', '0', `${none.origin}/p0`, temp(), '5']);
    assert.equal(r0.code, 0, r0.stderr);
    // robots.txt, /p0 to /p3, and /p4 (a 404).
    assert.equal(none.requests.length, 6);
    assert.equal(none.connections, 6, 'a connection per request');
    const r2 = await crawl(['--delay', '0', '--quiet', '--max-idle-connections', '2', `${two.origin}/p0`, temp(), '5']);
    assert.equal(r2.code, 0, r2.stderr);
    assert.equal(two.requests.length, 6);
    assert.equal(two.connections, 1, 'one kept-alive connection');
  } finally {
    await Promise.all([none.close(), two.close()]);
  }
});
