/**
 * ./crawler against a hostile server (test/helpers/fault-server.ts). A start
 * page links to each faulty URL and, right after it, to a good page. The
 * faulty page gets a `Failed: URL (reason)` line naming what went wrong; the
 * crawl goes on and saves the good page after it; the run ends in bounded
 * time with exit 0. 1xx interim responses give way to the final one;
 * redirect chains, loops and crawler traps are bounded by the caps; huge
 * bodies are refused at the cap without being buffered (peak RSS measured
 * with GNU time, the bytes the server managed to push counted).
 *
 * Faults that need the same flags share one crawl (each fault still has its
 * own test, reading that crawl's log and page files): one crawl through
 * fourteen faults also checks that no fault leaves state that breaks the
 * pages after it. The crawls run concurrently, in `before`.
 */
// run-tests: serial (the crawls run with --idle-timeout 0.5: the test's own servers must send each next byte within 500 ms, an upper bound that a stall behind other test files' CPU broke once at a load of 13)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLog, type LogLine } from '../helpers/cs50-log.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { BINARY_HTML, FAULT_FLAGS, FAULT_MS, FAULT_RSS_BOUND_KIB, FAULT_WALL_MS, HUGE, INTERIM_FINAL, LATIN1_HTML, SHORT_BODY } from '../helpers/http-faults.js';
import { readPages } from '../helpers/page-files.js';
import { page } from '../helpers/site-server.js';
import { runMeasured, type MeasuredRun } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const FLAGS = ['--delay', '0', ...FAULT_FLAGS];
const WALL_MS = FAULT_WALL_MS;
const RSS_BOUND_KIB = FAULT_RSS_BOUND_KIB;

interface Crawled {
  r: MeasuredRun;
  log: LogLine[];
  dir: string;
}

const { temp } = useTempDirs('hostile-crawler-');
let srv: FaultServer;

async function crawl(seed: string, depth: number, flags: string[]): Promise<Crawled> {
  const dir = temp();
  // One try per page: these tests are about each fault's own failure; retries and back-off are crawler-pushback's.
  const r = await runMeasured('crawler', ['--retries', '0', ...flags, seed, dir, String(depth)], { timeoutMs: 45_000 });
  return { r, log: r.signal === null ? parseLog(r.stdout) : [], dir };
}

/** A start page linking to each of `links`, each followed by a good page of its own. */
function scene(name: string, links: string[]): { seed: string; good: (link: string) => string } {
  const goodOf = (link: string): string => `/good/${name}${link}`;
  srv.page(`/start/${name}`, page(`start ${name}`, links.flatMap((l) => [l, goodOf(l)])));
  for (const l of links) srv.page(goodOf(l), goodBody(goodOf(l)));
  return { seed: srv.url(`/start/${name}`), good: (link) => srv.url(goodOf(link)) };
}
const goodBody = (target: string): string => page(`good page ${target}`);

function assertRanWell(c: Crawled): void {
  assert.equal(c.r.signal, null, `not killed by the test's timeout (stderr: ${c.r.stderr})`);
  assert.equal(c.r.code, 0, `exit 0 (stderr: ${c.r.stderr})`);
  assert.ok(c.r.wallMs < WALL_MS, `finished in ${Math.round(c.r.wallMs)} ms`);
  assert.doesNotMatch(c.r.stderr, /internal error|\n\s+at /, 'no internal error or stack trace');
}

function indexOf(c: Crawled, word: string, url: string): number {
  return c.log.findIndex((l) => l.word === word && l.url === url);
}

/** `url` was fetched and saved with exactly `body`; returns its log position. */
function assertSaved(c: Crawled, url: string, body: string | Buffer): number {
  const i = indexOf(c, 'Fetched', url);
  assert.ok(i !== -1, `Fetched: ${url}\n${c.r.stdout}`);
  const saved = readPages(c.dir).filter((p) => p.url === url);
  assert.equal(saved.length, 1, `one page file for ${url}`);
  assert.deepEqual(saved[0]?.body, Buffer.from(body), `the body of ${url} is saved byte for byte`);
  return i;
}

/** The good page that follows `link` on the start page was saved, after `from` in the log. */
function assertGoodAfter(c: Crawled, goodUrl: string, from: number): void {
  const u = new URL(goodUrl);
  const i = assertSaved(c, goodUrl, goodBody(u.pathname + u.search));
  assert.ok(i > from, 'the good page comes after the faulty one: the crawl went on');
}

/** When the server received the first request for `target`. */
function arrival(target: string): number {
  const r = srv.requests.find((q) => q.target === target);
  assert.ok(r !== undefined, `a request for ${target}`);
  return r.at;
}

function requestsFor(target: string): number {
  return srv.requests.filter((r) => r.target === target).length;
}

interface FailCase {
  fault: string;
  /** The reason printed after the URL must match. */
  reason: RegExp;
  /** Streams up to 100 MiB: the server must not get far. */
  huge?: boolean;
}

const FAIL_CASES: FailCase[] = [
  { fault: 'reset-before', reason: /ECONNRESET|reset|closed/i },
  { fault: 'reset-in-headers', reason: /ECONNRESET|reset|closed/i },
  { fault: 'reset-after-headers', reason: /ECONNRESET|reset|closed/i },
  { fault: 'silent', reason: /idle timeout/ },
  { fault: 'drip', reason: /idle timeout/ },
  { fault: 'drip-fast', reason: /response timeout/ },
  { fault: 'length-over', reason: /10 of 100 bytes/ },
  { fault: 'bad-chunk', reason: /chunk size/i },
  { fault: 'header-flood', reason: /header[^)]*8192 bytes/i, huge: true },
  { fault: 'body-length-huge', reason: /Content-Length 104857600[^)]*1048576 bytes/, huge: true },
  { fault: 'body-chunked-huge', reason: /chunked body[^)]*1048576 bytes/, huge: true },
  { fault: 'body-close-huge', reason: /body[^)]*1048576 bytes/, huge: true },
  { fault: 'garbage', reason: /status line|not an HTTP/i },
  { fault: 'binary', reason: /not HTML: application\/octet-stream/ },
];

const runs: Record<string, Promise<Crawled>> = {};
let refuseServer: FaultServer;

before(async () => {
  srv = await startFaultServer();
  refuseServer = await startFaultServer('127.0.0.1', { refusable: true });
  const faults = scene('faults', FAIL_CASES.map((c) => `/f/${c.fault}`));
  runs['faults'] = crawl(faults.seed, 1, FLAGS);
  const dflt = scene('defaults', ['/f/body-chunked-huge/default', '/f/body-close-huge/default', '/f/drip/default']);
  runs['defaults'] = crawl(dflt.seed, 1, ['--delay', '0', '--idle-timeout', '0.5', '--response-timeout', '2']);
  for (const p of ['/good/after-interim', '/good/binary-html', '/good/latin1']) srv.page(p, page(p));
  const odd = scene('odd', ['/f/interim', '/f/relative-redirect/from', '/f/binary-html', '/f/latin1', '/f/length-under']);
  runs['odd'] = crawl(odd.seed, 2, FLAGS);
  // --delay 0.3: the stray bytes (50 ms after the response) reach the client while the connection is idle.
  const stray = scene('stray', ['/f/length-under-late', '/f/length-under-split']);
  runs['stray'] = crawl(stray.seed, 1, [...FLAGS, '--delay', '0.3']);
  const redirects = scene('redirects', ['/f/redirect-chain/0', '/f/loop-a', '/f/to-ftp']);
  runs['redirects'] = crawl(redirects.seed, 1, FLAGS);
  const traps = scene('traps', ['/trap/a/', '/long/']);
  runs['traps'] = crawl(traps.seed, 10, [...FLAGS, '--max-path-depth', '5', '--max-url-length', '400']);
  const calendar = scene('calendar', ['/calendar?page=1']);
  runs['calendar'] = crawl(calendar.seed, 10, [...FLAGS, '--max-pages', '5']);
  // Its own server: the fault stops that server listening for a moment.
  refuseServer.page('/start', page('start', ['/f/refuse-after-reset', '/good']));
  refuseServer.page('/good', goodBody('/good'));
  // The fault stops the server listening for 1 s and resets the kept-alive connection; the client's
  // re-send on a fresh connection is a new request start, so it waits its turn (--delay 0.7) and
  // is refused, the server still not listening. The good page is requested 0.7 s after that, when
  // the server listens again.
  runs['refuse'] = crawl(refuseServer.url('/start'), 1, [...FLAGS, '--delay', '0.7']);
  // Settle every run here, so that a failure shows in its own tests.
  await Promise.allSettled(Object.values(runs));
  for (const [name, run] of Object.entries(runs)) {
    const c = await run.catch(() => undefined);
    if (c !== undefined) process.stderr.write(`# crawl "${name}": ${Math.round(c.r.wallMs)} ms, peak RSS ${c.r.peakRssKiB ?? '?'} KiB\n`);
  }
});
after(async () => {
  await srv.close();
  await refuseServer.close();
});

describe('crawler: each failing page gets a Failed line naming the reason, and the crawl goes on', () => {
  test('the crawl through every fault ends in bounded time with exit 0 and bounded memory', async (t) => {
    const c = await runs['faults']!;
    assertRanWell(c);
    if (c.r.peakRssKiB === undefined) t.diagnostic('/usr/bin/time not available: peak RSS not measured');
    else assert.ok(c.r.peakRssKiB < RSS_BOUND_KIB, `peak RSS ${c.r.peakRssKiB} KiB`);
  });
  for (const f of FAIL_CASES) {
    test(`${f.fault}: Failed line matching ${f.reason}, the next page saved`, async () => {
      const c = await runs['faults']!;
      const url = srv.url(`/f/${f.fault}`);
      const i = indexOf(c, 'Failed', url);
      assert.ok(i !== -1, `a Failed line for ${url}\n${c.r.stdout}`);
      assert.match(c.log[i]?.reason ?? '', f.reason);
      assert.ok(!readPages(c.dir).some((p) => p.url === url), 'no page file for the failed page');
      assertGoodAfter(c, srv.url(`/good/faults/f/${f.fault}`), i);
      // The stale-connection retry may send the request once more; never more.
      const tries = requestsFor(`/f/${f.fault}`);
      assert.ok(tries >= 1 && tries <= 2, `${tries} requests for the faulty page`);
      const held = arrival(`/good/faults/f/${f.fault}`) - arrival(`/f/${f.fault}`);
      assert.ok(held > 0 && held < FAULT_MS, `the fault held the crawl ${Math.round(held)} ms`);
      if (f.huge === true) {
        const streamed = srv.streamed.get(`/f/${f.fault}`) ?? 0;
        assert.ok(streamed < 32 * 1024 * 1024, `the client stopped reading at the cap (the server wrote ${streamed} of ${HUGE} bytes)`);
      }
    });
  }
});

describe('crawler: memory stays bounded with the default caps (10 MiB body)', () => {
  test('100 MiB chunked and close-delimited bodies and a drip: each fails, peak RSS under 150 MB', async (t) => {
    const c = await runs['defaults']!;
    assertRanWell(c);
    for (const target of ['/f/body-chunked-huge/default', '/f/body-close-huge/default', '/f/drip/default']) {
      const i = indexOf(c, 'Failed', srv.url(target));
      assert.ok(i !== -1, `a Failed line for ${target}\n${c.r.stdout}`);
      assertGoodAfter(c, srv.url(`/good/defaults${target}`), i);
    }
    for (const target of ['/f/body-chunked-huge/default', '/f/body-close-huge/default']) {
      const streamed = srv.streamed.get(target) ?? 0;
      assert.ok(streamed < 48 * 1024 * 1024, `${target} not read to the end: the server wrote ${streamed} of ${HUGE} bytes`);
    }
    if (c.r.peakRssKiB === undefined) t.diagnostic('/usr/bin/time not available: peak RSS not measured');
    else {
      t.diagnostic(`peak RSS ${Math.round(c.r.peakRssKiB / 1024)} MB`);
      assert.ok(c.r.peakRssKiB < RSS_BOUND_KIB, `peak RSS ${c.r.peakRssKiB} KiB`);
    }
  });
});

describe('crawler: responses that are odd but usable', () => {
  test('the crawl ends with exit 0', async () => assertRanWell(await runs['odd']!));

  test('100 Continue and 103 Early Hints before the final 200: the final response is saved and its links followed', async () => {
    const c = await runs['odd']!;
    const i = assertSaved(c, srv.url('/f/interim'), INTERIM_FINAL);
    assert.ok(indexOf(c, 'Fetched', srv.url('/good/after-interim')) > i, "the final body's link was followed");
    assertGoodAfter(c, srv.url('/good/odd/f/interim'), i);
  });

  test('relative Location: resolved against the redirecting URL, the page saved under its final URL only', async () => {
    const c = await runs['odd']!;
    const target = srv.url('/f/relative-redirect/target');
    const i = indexOf(c, 'Fetched', target);
    assert.ok(i !== -1, c.r.stdout);
    assert.ok(!readPages(c.dir).some((p) => p.url === srv.url('/f/relative-redirect/from')), 'not saved under the redirecting URL');
    assert.equal(readPages(c.dir).filter((p) => p.url === target).length, 1, 'saved under the final URL');
    assertGoodAfter(c, srv.url('/good/odd/f/relative-redirect/from'), i);
  });

  test('text/html holding every byte value and invalid UTF-8: saved byte for byte, the crawl goes on', async () => {
    const c = await runs['odd']!;
    const i = assertSaved(c, srv.url('/f/binary-html'), BINARY_HTML);
    assertGoodAfter(c, srv.url('/good/odd/f/binary-html'), i);
    assert.ok(indexOf(c, 'Fetched', srv.url('/good/binary-html')) > i, 'the link among the binary bytes was followed');
  });

  test('a latin1 page (not UTF-8): saved byte for byte, the crawl goes on', async () => {
    const c = await runs['odd']!;
    const i = assertSaved(c, srv.url('/f/latin1'), LATIN1_HTML);
    assertGoodAfter(c, srv.url('/good/odd/f/latin1'), i);
    assert.ok(indexOf(c, 'Fetched', srv.url('/good/latin1')) > i, 'the link of the latin1 page was followed');
  });

  test('Content-Length shorter than the body, the rest a smuggled response in the same packet: only the framed body is kept', async () => {
    const c = await runs['odd']!;
    const i = assertSaved(c, srv.url('/f/length-under'), SHORT_BODY);
    assertGoodAfter(c, srv.url('/good/odd/f/length-under'), i);
    assert.equal(requestsFor('/smuggled'), 0, 'the smuggled link was never seen');
  });
});

describe('crawler: bytes arriving on an idle kept-alive connection retire it', () => {
  test('the crawl ends with exit 0', async () => assertRanWell(await runs['stray']!));
  for (const fault of ['length-under-late', 'length-under-split']) {
    test(`${fault}: the framed body is kept, the next page comes over a fresh connection, undamaged`, async () => {
      const c = await runs['stray']!;
      const i = assertSaved(c, srv.url(`/f/${fault}`), SHORT_BODY);
      assertGoodAfter(c, srv.url(`/good/stray/f/${fault}`), i);
      assert.equal(requestsFor('/smuggled'), 0, 'the smuggled link was never seen');
      const faultReq = srv.requests.find((r) => r.target === `/f/${fault}`);
      const goodReq = srv.requests.find((r) => r.target === `/good/stray/f/${fault}`);
      assert.notEqual(goodReq?.conn, faultReq?.conn, 'the next request went over a fresh connection');
    });
  }
});

describe('crawler: redirects are bounded', () => {
  test('the crawl ends with exit 0', async () => assertRanWell(await runs['redirects']!));

  test('a redirect chain longer than --max-redirects 3: Failed naming the limit, 4 requests, the crawl goes on', async () => {
    const c = await runs['redirects']!;
    const failed = c.log.filter((l) => l.word === 'Failed' && l.url.includes('/f/redirect-chain/'));
    assert.ok(failed.length >= 1, c.r.stdout);
    assert.ok(failed.every((l) => /more than 3 redirects/.test(l.reason ?? '')), JSON.stringify(failed));
    assert.equal(srv.hits('/f/redirect-chain/'), 4, 'the first request and 3 redirect hops');
    assertGoodAfter(c, srv.url('/good/redirects/f/redirect-chain/0'), c.log.indexOf(failed[0]!));
  });

  test('a redirect loop (a -> b -> a): Failed "already seen", each URL requested once', async () => {
    const c = await runs['redirects']!;
    const i = indexOf(c, 'Failed', srv.url('/f/loop-b'));
    assert.ok(i !== -1, c.r.stdout);
    assert.match(c.log[i]?.reason ?? '', /redirects to http:\/\/127\.0\.0\.1:\d+\/f\/loop-a: already seen/);
    assert.equal(requestsFor('/f/loop-a'), 1);
    assert.equal(requestsFor('/f/loop-b'), 1);
    assertGoodAfter(c, srv.url('/good/redirects/f/loop-a'), i);
  });

  test('a redirect to ftp: Failed naming the scheme, the crawl goes on', async () => {
    const c = await runs['redirects']!;
    const i = indexOf(c, 'Failed', srv.url('/f/to-ftp'));
    assert.ok(i !== -1, c.r.stdout);
    assert.match(c.log[i]?.reason ?? '', /ftp:\/\/127\.0\.0\.1\/pub\/file\.html.*scheme/);
    assertGoodAfter(c, srv.url('/good/redirects/f/to-ftp'), i);
  });
});

describe('crawler: crawler traps are bounded', () => {
  test('the crawls end with exit 0', async () => {
    assertRanWell(await runs['traps']!);
    assertRanWell(await runs['calendar']!);
  });

  test('/trap/a/a/a/... without end: bounded by --max-path-depth 5; the too-deep link is Found then IgnExtrn', async () => {
    const c = await runs['traps']!;
    const fetched = c.log.filter((l) => l.word === 'Fetched' && l.url.startsWith(srv.url('/trap/')));
    assert.deepEqual(fetched.map((l) => new URL(l.url).pathname), ['/trap/a/', '/trap/a/a/', '/trap/a/a/a/']);
    const deepest = indexOf(c, 'Scanning', srv.url('/trap/a/a/a/'));
    const found = c.log.slice(deepest + 1).find((l) => l.word === 'Found');
    const next = c.log[c.log.indexOf(found!) + 1];
    assert.equal(next?.word, 'IgnExtrn', `the link with 6 segments is skipped\n${c.r.stdout}`);
    assert.equal(srv.hits('/trap/'), 3, 'the server saw 3 trap requests');
    assertGoodAfter(c, srv.url('/good/traps/trap/a/'), indexOf(c, 'Fetched', srv.url('/trap/a/')));
  });

  test('a URL that grows 100 characters a level: bounded by --max-url-length 400', async () => {
    const c = await runs['traps']!;
    const fetched = c.log.filter((l) => l.word === 'Fetched' && l.url.startsWith(srv.url('/long/')));
    assert.ok(fetched.length >= 2 && fetched.every((l) => l.url.length <= 400), fetched.map((l) => l.url.length).join());
    const long = srv.requests.filter((r) => r.target.startsWith('/long/'));
    assert.ok(long.length <= 4 && long.every((r) => r.target.length <= 400), `${long.length} requests`);
    assertGoodAfter(c, srv.url('/good/traps/long/'), indexOf(c, 'Fetched', srv.url('/long/')));
  });

  test('?page=N without end: --max-pages 5 stops the crawl after 5 responses', async () => {
    const c = await runs['calendar']!;
    const seen = srv.requests.filter((r) => r.target.startsWith('/calendar') || r.target.includes('/calendar/') || r.target.endsWith('/calendar'));
    assert.ok(seen.length <= 5, `the server saw ${seen.length} page requests: ${seen.map((r) => r.target).join(' ')}`);
    assert.equal(readPages(c.dir).length, 5, '5 pages saved');
    assertGoodAfter(c, srv.url('/good/calendar/calendar?page=1'), indexOf(c, 'Fetched', srv.url('/calendar?page=1')));
  });
});

test('crawler: connection refused (on the retry after a reset): Failed saying so, the next page saved', async () => {
  const c = await runs['refuse']!;
  assertRanWell(c);
  const url = refuseServer.url('/f/refuse-after-reset');
  const i = indexOf(c, 'Failed', url);
  assert.ok(i !== -1, c.r.stdout);
  assert.match(c.log[i]?.reason ?? '', /^\(cannot connect to 127\.0\.0\.1:\d+: connection refused\)$/);
  const good = indexOf(c, 'Fetched', refuseServer.url('/good'));
  assert.ok(good > i, `the good page after it was fetched\n${c.r.stdout}`);
});
