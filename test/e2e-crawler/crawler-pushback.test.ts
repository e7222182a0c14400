/**
 * Spec decision "When the server pushes back", for crawler: a page answered
 * 429, 500, 502, 503 or 504 (or lost to a timeout or a reset) is tried again
 * later in the crawl, up to --retries times; each consecutive failure doubles
 * the host's interval (at most 60 s) and a success restores it; a Retry-After
 * pauses the host. Until its last try a page prints nothing on stdout.
 * Gaps are measured at the server, as request arrivals.
 */
// run-tests: long (11 s: Retry-After pauses)
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { longestGap, shortestGap, type Arrival } from '../helpers/arrivals.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { cs50Line } from '../helpers/cs50-log.js';
import { answer, ok, startRawSite, type RawRoute, type RawSite } from '../helpers/kh-raw.js';
import { pageList } from '../helpers/page-files.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('crawler-pushback-');
const sites: RawSite[] = [];
after(async () => {
  await Promise.all(sites.map((s) => s.close()));
});

const HTML = 'Content-Type: text/html\r\n';

/** Answers `failures` in turn, then `last` for ever. */
function sequence(failures: string[], last: string): RawRoute {
  let n = 0;
  return (conn) => {
    conn.socket.write(n < failures.length ? (failures[n++] as string) : last);
    return 'keep';
  };
}

async function site(routes: Record<string, RawRoute>): Promise<RawSite> {
  const s = await startRawSite({ '/robots.txt': answer(404), ...routes });
  sites.push(s);
  return s;
}

test('503 three times, then 200: retried with the host\'s interval doubling at the server (0.4, 0.8, 1.6 s), saved once, logged as if it had succeeded at once; a success restores the interval', async () => {
  const s = await site({
    '/': ok('<a href="/flaky.html">f</a>', HTML),
    '/flaky.html': sequence([answer(503), answer(503), answer(503)], ok('<a href="/after.html">a</a>', HTML)),
    '/after.html': ok('<p>after</p>', HTML),
  });
  const dir = temp();
  const r = await crawl(['--delay', '0.2', '--retries', '3', `${s.origin}/`, dir, '2']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(s.paths(), ['/robots.txt', '/', '/flaky.html', '/flaky.html', '/flaky.html', '/flaky.html', '/after.html']);
  // The interval after each request: 0.2 s, doubled per failure in a row, back to 0.2 s after the success.
  const need = [200, 200, 400, 800, 1600, 200];
  // Measured at the server as arrival windows: a gap fails only when it was certainly below the interval.
  const q = s.requests;
  need.forEach((ms, i) => {
    const gap = longestGap(q[i] as Arrival, q[i + 1] as Arrival);
    assert.ok(gap >= ms, `${s.paths()[i]} -> ${s.paths()[i + 1]}: at most ${gap.toFixed(1)} ms, need ${ms} ms`);
  });
  const last = shortestGap(q[5] as Arrival, q[6] as Arrival);
  assert.ok(last < 1600, `the success restored the interval: ${last.toFixed(0)} ms`);
  assert.deepEqual(
    r.stdout.split('\n').filter((l) => /Fetched|Failed/.test(l)),
    [cs50Line(0, 'Fetched', `${s.origin}/`), cs50Line(1, 'Fetched', `${s.origin}/flaky.html`), cs50Line(2, 'Fetched', `${s.origin}/after.html`)],
    'no Failed line for the tries that failed',
  );
  assert.deepEqual(pageList(dir), [`1 ${s.origin}/ 0`, `2 ${s.origin}/flaky.html 1`, `3 ${s.origin}/after.html 2`]);
});

test('out of tries: Failed with the last reason, after 1 + --retries requests', async () => {
  const s = await site({ '/': ok('<a href="/down.html">d</a>', HTML), '/down.html': answer(503) });
  const r = await crawl(['--delay', '0', '--retries', '2', `${s.origin}/`, temp(), '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(s.requests.filter((q) => q.path === '/down.html').length, 3);
  assert.deepEqual(r.stdout.split('\n').filter((l) => /Failed/.test(l)), [cs50Line(1, 'Failed', `${s.origin}/down.html`, '(HTTP 503)')]);
});

test('429 with Retry-After: 2: no request to that host for 2 s, then the page is fetched again and saved', async () => {
  const s = await site({
    '/': ok('<a href="/busy.html">b</a>', HTML),
    '/busy.html': sequence([answer(429, '', 'Retry-After: 2\r\n')], ok('<p>ok now</p>', HTML)),
  });
  const dir = temp();
  const r = await crawl(['--delay', '0', `${s.origin}/`, dir, '1']);
  assert.equal(r.code, 0, r.stderr);
  const busy = s.requests.findIndex((q) => q.path === '/busy.html');
  const next = s.requests[busy + 1];
  assert.ok(next !== undefined, 'the page was asked again');
  const gap = longestGap(s.requests[busy] as Arrival, next);
  assert.ok(gap >= 2000, `the next request to the host came ${gap.toFixed(0)} ms after the 429`);
  assert.deepEqual(pageList(dir), [`1 ${s.origin}/ 0`, `2 ${s.origin}/busy.html 1`]);
  assert.match(r.stderr, /HTTP 429 with Retry-After: 2/);
});

test('a Retry-After above --max-retry-after: no wait, no retry; the page fails with the server\'s value, and so do the host\'s waiting pages, unrequested', async () => {
  const s = await site({ '/': ok('<a href="/busy.html">b</a> <a href="/later.html">l</a>', HTML), '/busy.html': answer(429, '', 'Retry-After: 3600\r\n'), '/later.html': ok('later', HTML) });
  const t0 = performance.now();
  const r = await crawl(['--delay', '0', '--max-retry-after', '60', `${s.origin}/`, temp(), '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(performance.now() - t0 < 20_000, 'it did not wait');
  assert.equal(s.requests.filter((q) => q.path === '/busy.html').length, 1);
  assert.equal(s.requests.filter((q) => q.path === '/later.html').length, 0, 'the host was asked nothing more');
  assert.deepEqual(r.stdout.split('\n').filter((l) => /Failed/.test(l)), [
    cs50Line(1, 'Failed', `${s.origin}/busy.html`, '(HTTP 429, Retry-After: 3600, beyond --max-retry-after 60 s)'),
    cs50Line(1, 'Failed', `${s.origin}/later.html`, '(not requested: the host answered HTTP 429 with Retry-After: 3600, beyond --max-retry-after 60 s)'),
  ]);
});

test('another host is not slowed while one is paused (--concurrency 2, two --internal hosts)', async () => {
  const b = await startRawSite({ '/robots.txt': answer(404), ...Object.fromEntries(['/1', '/2', '/3', '/4', '/5', '/6'].map((p) => [p, ok(`<p>${p}</p>`, HTML)])) }, '127.0.0.2');
  sites.push(b);
  const links = ['/1', '/2', '/3', '/4', '/5', '/6'].map((p) => `<a href="${b.origin}${p}">x</a>`).join(' ');
  const a = await site({
    '/': ok(`<a href="/busy.html">b</a> ${links}`, HTML),
    '/busy.html': sequence([answer(429, '', 'Retry-After: 2\r\n')], ok('<p>ok now</p>', HTML)),
  });
  const dir = temp();
  const r = await crawl(['--delay', '0.1', '--concurrency', '2', '--internal', a.origin, '--internal', b.origin, `${a.origin}/`, dir, '1']);
  assert.equal(r.code, 0, r.stderr);
  const busy = a.requests.findIndex((q) => q.path === '/busy.html');
  const paused = a.requests[busy] as Arrival;
  const next = a.requests[busy + 1] as Arrival;
  assert.ok(longestGap(paused, next) >= 2000, `host A was asked again ${longestGap(paused, next).toFixed(0)} ms after its 429`);
  // Host B went on at its own interval while A was paused.
  const during = b.requests.filter((q) => q.path !== '/robots.txt' && q.at > paused.at && q.at < next.after);
  assert.ok(during.length >= 4, `host B got ${during.length} page requests during host A's 2 s pause`);
  assert.equal(pageList(dir).length, 8);
});
