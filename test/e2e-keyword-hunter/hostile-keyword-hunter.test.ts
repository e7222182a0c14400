/**
 * ./KeywordHunter against a hostile server (test/helpers/fault-server.ts).
 * A start page links to each faulty URL and, right after it, to a good
 * page. The faulty page gets its `PAGE:` line with status 0 (no usable
 * response: refused, reset, timeout, cap exceeded, garbage) or the HTTP
 * status it had, and a note on stderr naming the reason; the search goes on
 * and fetches the good page after it (status 200, saved in OutputDir); the
 * run ends in bounded time with exit 0 and NOT_FOUND_KEYWORD. 1xx interim
 * responses give way to the final one; redirect chains, loops and crawler
 * traps are bounded; huge bodies are refused at the cap without being
 * buffered (peak RSS measured with GNU time).
 *
 * Faults that need the same flags share one run; each fault has its own
 * test. The runs go concurrently, in `before`.
 */
// run-tests: serial (the searches run with --idle-timeout 0.5: the test's own servers must send each next byte within 500 ms, an upper bound that a stall behind other test files' CPU could break)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import {
  BINARY_HTML, FAULT_FLAGS, FAULT_MS, FAULT_RSS_BOUND_KIB, FAULT_WALL_MS, HUGE, INTERIM_FINAL, LATIN1_HTML, RANDOM_BYTES, SHORT_BODY,
} from '../helpers/http-faults.js';
import { khLinks, khPages } from '../helpers/kh-harness.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page } from '../helpers/site-server.js';
import { runMeasured, type MeasuredRun } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const FLAGS = [...FAULT_FLAGS];
const WALL_MS = FAULT_WALL_MS;
const RSS_BOUND_KIB = FAULT_RSS_BOUND_KIB;
const KEYWORD = 'NO-PAGE-HOLDS-THIS-KEYWORD';

interface Hunted {
  r: MeasuredRun;
  pages: ReturnType<typeof khPages>;
  out: string;
}

const { temp } = useTempDirs('hostile-kh-');
let srv: FaultServer;

async function hunt(start: string, flags: string[]): Promise<Hunted> {
  const out = temp();
  const r = await runMeasured('KeywordHunter', [...flags, start, KEYWORD, out], { timeoutMs: 45_000 });
  return { r, pages: khPages(r.stdout), out };
}

function scene(name: string, links: string[]): string {
  const goodOf = (link: string): string => `/good/${name}${link.startsWith('/') ? link : '/' + encodeURIComponent(link)}`;
  srv.page(`/start/${name}`, page(`start ${name}`, links.flatMap((l) => [l, goodOf(l)])));
  for (const l of links) srv.page(goodOf(l), goodBody(goodOf(l)));
  return srv.url(`/start/${name}`);
}
const goodBody = (target: string): string => page(`good page ${target}`);

function assertRanWell(h: Hunted): void {
  assert.equal(h.r.signal, null, `not killed by the test's timeout (stderr: ${h.r.stderr})`);
  assert.equal(h.r.code, 0, `exit 0 (stderr: ${h.r.stderr})`);
  assert.ok(h.r.wallMs < WALL_MS, `finished in ${Math.round(h.r.wallMs)} ms`);
  assert.ok(h.r.stdout.endsWith('NOT_FOUND_KEYWORD:\n'), `ends with NOT_FOUND_KEYWORD:\n${h.r.stdout}`);
  assert.doesNotMatch(h.r.stderr, /internal error|\n\s+at /, 'no internal error or stack trace');
}

/** Index of the PAGE line for `respath` (on the fault server unless `port`). */
function pageIndex(h: Hunted, respath: string, port = srv.port): number {
  return h.pages.findIndex((p) => p.respath === respath && p.port === port);
}

/** The files of OutputDir, by content. */
function savedBodies(h: Hunted): Buffer[] {
  return readdirSync(h.out).map((n) => readFileSync(join(h.out, n)));
}

function assertSavedBody(h: Hunted, body: string | Buffer): void {
  const want = Buffer.from(body);
  assert.ok(savedBodies(h).some((b) => b.equals(want)), `OutputDir holds the body byte for byte: ${want.subarray(0, 60).toString('latin1')}...`);
}

/** The good page after the fault: PAGE status=200 after `from`, saved. */
function assertGoodAfter(h: Hunted, respath: string, from: number): void {
  const i = pageIndex(h, respath);
  assert.ok(i > from, `PAGE for ${respath} after the faulty one\n${h.r.stdout}`);
  assert.equal(h.pages[i]?.status, 200);
  assertSavedBody(h, goodBody(respath));
}

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
  reason: RegExp;
  huge?: boolean;
  /** The status printed: 0 when no status line and headers arrived, else the response's (its body failed). */
  status?: number;
}

const FAIL_CASES: FailCase[] = [
  { fault: 'reset-before', reason: /ECONNRESET|reset|closed/i },
  { fault: 'reset-in-headers', reason: /ECONNRESET|reset|closed/i },
  { fault: 'reset-after-headers', status: 200, reason: /ECONNRESET|reset|closed/i },
  { fault: 'silent', reason: /idle timeout/ },
  { fault: 'drip', reason: /idle timeout/ },
  { fault: 'drip-fast', status: 200, reason: /response timeout/ },
  { fault: 'length-over', status: 200, reason: /10 of 100 bytes/ },
  { fault: 'bad-chunk', status: 200, reason: /chunk size/i },
  { fault: 'header-flood', reason: /header[^\n]*8192 bytes/i, huge: true },
  { fault: 'body-length-huge', reason: /Content-Length 104857600[^\n]*1048576 bytes/, huge: true },
  { fault: 'body-chunked-huge', status: 200, reason: /chunked body[^\n]*1048576 bytes/, huge: true },
  { fault: 'body-close-huge', status: 200, reason: /body[^\n]*1048576 bytes/, huge: true },
  { fault: 'garbage', reason: /status line|not an HTTP/i },
];

const runs: Record<string, Promise<Hunted>> = {};
let refused: number;
let refusedUrl: string;

before(async () => {
  srv = await startFaultServer();
  refused = await refusedPort();
  refusedUrl = `http://127.0.0.1:${refused}/refused.html`;
  runs['faults'] = hunt(scene('faults', [...FAIL_CASES.map((c) => `/f/${c.fault}`), refusedUrl]), FLAGS);
  runs['defaults'] = hunt(scene('defaults', ['/f/body-chunked-huge/default', '/f/body-close-huge/default', '/f/drip/default']), [
    '--idle-timeout', '0.5', '--response-timeout', '2',
  ]);
  for (const p of ['/good/after-interim', '/good/binary-html', '/good/latin1']) srv.page(p, page(p));
  runs['odd'] = hunt(scene('odd', ['/f/interim', '/f/relative-redirect/from', '/f/binary', '/f/binary-html', '/f/latin1', '/f/length-under']), FLAGS);
  runs['stray'] = hunt(scene('stray', ['/f/length-under-late', '/f/length-under-split']), [...FLAGS, '--delay', '0.3']);
  runs['redirects'] = hunt(scene('redirects', ['/f/redirect-chain/0', '/f/loop-a', '/f/to-ftp']), FLAGS);
  runs['traps'] = hunt(scene('traps', ['/trap/a/', '/long/']), [...FLAGS, '--max-path-depth', '5', '--max-url-length', '300']);
  runs['calendar'] = hunt(scene('calendar', ['/calendar?page=1']), FLAGS);
  await Promise.allSettled(Object.values(runs));
  for (const [name, run] of Object.entries(runs)) {
    const h = await run.catch(() => undefined);
    if (h !== undefined) process.stderr.write(`# KeywordHunter run "${name}": ${Math.round(h.r.wallMs)} ms, peak RSS ${h.r.peakRssKiB ?? '?'} KiB\n`);
  }
});
after(async () => {
  await srv.close();
});

describe('KeywordHunter: a page that fails prints its status (0 when no status line arrived) and a note, and the search goes on', () => {
  test('the run through every fault ends in bounded time with exit 0, NOT_FOUND_KEYWORD and bounded memory', async (t) => {
    const h = await runs['faults']!;
    assertRanWell(h);
    if (h.r.peakRssKiB === undefined) t.diagnostic('/usr/bin/time not available: peak RSS not measured');
    else assert.ok(h.r.peakRssKiB < RSS_BOUND_KIB, `peak RSS ${h.r.peakRssKiB} KiB`);
  });
  for (const f of FAIL_CASES) {
    test(`${f.fault}: PAGE status=${f.status ?? 0}, a note matching ${f.reason}, the next page fetched and saved`, async () => {
      const h = await runs['faults']!;
      const i = pageIndex(h, `/f/${f.fault}`);
      assert.ok(i !== -1, `a PAGE line for /f/${f.fault}\n${h.r.stdout}`);
      assert.equal(h.pages[i]?.status, f.status ?? 0, f.status === undefined ? 'status 0: no status line arrived' : 'the status line arrived, the body failed');
      const note = h.r.stderr.split('\n').find((l) => l.includes(srv.url(`/f/${f.fault}`)));
      assert.ok(note !== undefined, `a note on stderr names the URL\n${h.r.stderr}`);
      assert.match(note, f.reason);
      assertGoodAfter(h, `/good/faults/f/${f.fault}`, i);
      const tries = requestsFor(`/f/${f.fault}`);
      assert.ok(tries >= 1 && tries <= 2, `${tries} requests for the faulty page`);
      const held = arrival(`/good/faults/f/${f.fault}`) - arrival(`/f/${f.fault}`);
      assert.ok(held > 0 && held < FAULT_MS, `the fault held the search ${Math.round(held)} ms`);
      if (f.huge === true) {
        const streamed = srv.streamed.get(`/f/${f.fault}`) ?? 0;
        assert.ok(streamed < 32 * 1024 * 1024, `the client stopped reading at the cap (the server wrote ${streamed} of ${HUGE} bytes)`);
      }
    });
  }
  test('connection refused (a closed port): PAGE status=0, a note saying so, the next page fetched', async () => {
    const h = await runs['faults']!;
    const i = pageIndex(h, '/refused.html', refused);
    assert.ok(i !== -1, h.r.stdout);
    assert.equal(h.pages[i]?.status, 0);
    assert.match(h.r.stderr, new RegExp(`${refusedUrl.replace(/[.]/g, '\\.')}: cannot connect to 127\\.0\\.0\\.1:\\d+: connection refused\n`));
    assertGoodAfter(h, `/good/faults/${encodeURIComponent(refusedUrl)}`, i);
  });
});

describe('KeywordHunter: memory stays bounded with the default caps (10 MiB body)', () => {
  test('100 MiB chunked and close-delimited bodies (status 200, body over the cap) and a drip (status 0): peak RSS under 150 MB', async (t) => {
    const h = await runs['defaults']!;
    assertRanWell(h);
    for (const [target, status] of [['/f/body-chunked-huge/default', 200], ['/f/body-close-huge/default', 200], ['/f/drip/default', 0]] as const) {
      const i = pageIndex(h, target);
      assert.equal(h.pages[i]?.status, status, `${target}: status ${status}\n${h.r.stdout}`);
      assertGoodAfter(h, `/good/defaults${target}`, i);
    }
    for (const target of ['/f/body-chunked-huge/default', '/f/body-close-huge/default']) {
      const streamed = srv.streamed.get(target) ?? 0;
      assert.ok(streamed < 48 * 1024 * 1024, `${target} not read to the end: the server wrote ${streamed} of ${HUGE} bytes`);
    }
    if (h.r.peakRssKiB === undefined) t.diagnostic('/usr/bin/time not available: peak RSS not measured');
    else {
      t.diagnostic(`peak RSS ${Math.round(h.r.peakRssKiB / 1024)} MB`);
      assert.ok(h.r.peakRssKiB < RSS_BOUND_KIB, `peak RSS ${h.r.peakRssKiB} KiB`);
    }
  });
});

describe('KeywordHunter: responses that are odd but usable', () => {
  test('the run ends with exit 0', async () => assertRanWell(await runs['odd']!));

  test('100 Continue and 103 Early Hints before the final 200: one PAGE line with status=200, the final body saved and its links followed', async () => {
    const h = await runs['odd']!;
    const lines = h.pages.filter((p) => p.respath === '/f/interim');
    assert.deepEqual(lines.map((p) => p.status), [200], `one PAGE line, the final status\n${h.r.stdout}\n${h.r.stderr}`);
    assertSavedBody(h, INTERIM_FINAL);
    assert.ok(pageIndex(h, '/good/after-interim') > pageIndex(h, '/f/interim'), "the final body's link was followed");
    assertGoodAfter(h, '/good/odd/f/interim', pageIndex(h, '/f/interim'));
  });

  test('relative Location: PAGE 302, a LINK to the resolved target, then its PAGE 200', async () => {
    const h = await runs['odd']!;
    const i = pageIndex(h, '/f/relative-redirect/from');
    assert.equal(h.pages[i]?.status, 302);
    assert.ok(khLinks(h.r.stdout).some((l) => l.respath === '/f/relative-redirect/target' && l.action === 'follow'), h.r.stdout);
    assert.equal(h.pages[i + 1]?.respath, '/f/relative-redirect/target', 'the target is fetched next');
    assert.equal(h.pages[i + 1]?.status, 200);
    assertGoodAfter(h, '/good/odd/f/relative-redirect/from', i + 1);
  });

  test('application/octet-stream with NUL bytes: status=200, saved byte for byte, the search goes on', async () => {
    const h = await runs['odd']!;
    const i = pageIndex(h, '/f/binary');
    assert.equal(h.pages[i]?.status, 200);
    assertSavedBody(h, RANDOM_BYTES);
    assertGoodAfter(h, '/good/odd/f/binary', i);
  });

  test('every byte value and invalid UTF-8 in text/html: saved byte for byte, its link followed', async () => {
    const h = await runs['odd']!;
    const i = pageIndex(h, '/f/binary-html');
    assert.equal(h.pages[i]?.status, 200);
    assertSavedBody(h, BINARY_HTML);
    assert.ok(pageIndex(h, '/good/binary-html') > i, 'the link among the binary bytes was followed');
    assertGoodAfter(h, '/good/odd/f/binary-html', i);
  });

  test('a latin1 page (not UTF-8): saved byte for byte, its link followed', async () => {
    const h = await runs['odd']!;
    const i = pageIndex(h, '/f/latin1');
    assertSavedBody(h, LATIN1_HTML);
    assert.ok(pageIndex(h, '/good/latin1') > i, 'the link was followed');
    assertGoodAfter(h, '/good/odd/f/latin1', i);
  });

  test('Content-Length shorter than the body, a smuggled response after it: only the framed body is kept', async () => {
    const h = await runs['odd']!;
    const i = pageIndex(h, '/f/length-under');
    assert.equal(h.pages[i]?.status, 200);
    assertSavedBody(h, SHORT_BODY);
    assert.ok(!h.r.stdout.includes('/smuggled'), 'no LINK or PAGE for the smuggled link');
    assertGoodAfter(h, '/good/odd/f/length-under', i);
  });
});

describe('KeywordHunter: bytes arriving on an idle kept-alive connection retire it', () => {
  test('the run ends with exit 0', async () => assertRanWell(await runs['stray']!));
  for (const fault of ['length-under-late', 'length-under-split']) {
    test(`${fault}: the framed body is kept, the next page comes over a fresh connection, undamaged`, async () => {
      const h = await runs['stray']!;
      const i = pageIndex(h, `/f/${fault}`);
      assert.equal(h.pages[i]?.status, 200);
      assert.ok(!h.r.stdout.includes('/smuggled'), 'nothing smuggled was read');
      assertGoodAfter(h, `/good/stray/f/${fault}`, i);
      const faultReq = srv.requests.find((r) => r.target === `/f/${fault}`);
      const goodReq = srv.requests.find((r) => r.target === `/good/stray/f/${fault}`);
      assert.notEqual(goodReq?.conn, faultReq?.conn, 'the next request went over a fresh connection');
    });
  }
});

describe('KeywordHunter: redirects are bounded', () => {
  test('the run ends with exit 0', async () => assertRanWell(await runs['redirects']!));

  test('a redirect chain longer than --max-redirects 3: four PAGE lines with 302, a note naming the limit, the search goes on', async () => {
    const h = await runs['redirects']!;
    const chain = h.pages.filter((p) => p.respath.startsWith('/f/redirect-chain/'));
    assert.deepEqual(chain.map((p) => `${p.respath} ${p.status}`), [0, 1, 2, 3].map((n) => `/f/redirect-chain/${n} 302`));
    assert.match(h.r.stderr, /more than 3 redirects/);
    assert.equal(srv.hits('/f/redirect-chain/'), 4);
    assertGoodAfter(h, '/good/redirects/f/redirect-chain/0', pageIndex(h, '/f/redirect-chain/3'));
  });

  test('a redirect loop (a -> b -> a): the way back is LINK ... action=already_seen_ignore, each URL requested once', async () => {
    const h = await runs['redirects']!;
    assert.ok(khLinks(h.r.stdout).some((l) => l.respath === '/f/loop-a' && l.action === 'already_seen_ignore'), h.r.stdout);
    assert.equal(requestsFor('/f/loop-a'), 1);
    assert.equal(requestsFor('/f/loop-b'), 1);
    assertGoodAfter(h, '/good/redirects/f/loop-a', pageIndex(h, '/f/loop-b'));
  });

  test('a redirect to ftp: PAGE 301, no LINK line for it, a note naming it, the search goes on', async () => {
    const h = await runs['redirects']!;
    const i = pageIndex(h, '/f/to-ftp');
    assert.equal(h.pages[i]?.status, 301);
    assert.ok(!h.r.stdout.includes('/pub/file.html'), 'no LINK line for the ftp: URL');
    assert.match(h.r.stderr, /ftp:\/\/127\.0\.0\.1\/pub\/file\.html/);
    assertGoodAfter(h, '/good/redirects/f/to-ftp', i);
  });
});

describe('KeywordHunter: crawler traps are bounded', () => {
  test('the runs end with exit 0', async () => {
    assertRanWell(await runs['traps']!);
    assertRanWell(await runs['calendar']!);
  });

  test('/trap/a/a/a/... without end: bounded by --max-path-depth 5 (before the depth limit of 5 would stop it)', async () => {
    const h = await runs['traps']!;
    assert.deepEqual(h.pages.filter((p) => p.respath.startsWith('/trap/')).map((p) => p.respath), ['/trap/a/', '/trap/a/a/', '/trap/a/a/a/']);
    assert.match(h.r.stderr, /skipping link "a\/": .*segments/);
    assert.equal(srv.hits('/trap/'), 3);
    assertGoodAfter(h, '/good/traps/trap/a/', pageIndex(h, '/trap/a/'));
  });

  test('a URL that grows 100 characters a level: bounded by --max-url-length 300', async () => {
    const h = await runs['traps']!;
    const long = h.pages.filter((p) => p.respath.startsWith('/long/'));
    assert.deepEqual(long.map((p) => p.respath.length), [6, 106, 206]);
    assert.equal(srv.hits('/long/'), 3);
    assert.match(h.r.stderr, /skipping link "x+\/": URL longer than 300/);
    assertGoodAfter(h, '/good/traps/long/', pageIndex(h, '/long/'));
  });

  test('?page=N without end: bounded by the depth limit (StartURL depth 1, the last at depth 5)', async () => {
    const h = await runs['calendar']!;
    assert.deepEqual(h.pages.filter((p) => p.respath.startsWith('/calendar')).map((p) => p.respath), [1, 2, 3, 4].map((n) => `/calendar?page=${n}`));
    assert.equal(srv.hits('/calendar'), 4);
    assertGoodAfter(h, '/good/calendar/calendar?page=1', pageIndex(h, '/calendar?page=1'));
  });
});
