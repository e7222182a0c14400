/**
 * Spec decision "When the server pushes back", for KeywordHunter: any
 * non-200 keeps its PAGE line and is not retried (the program's spec), but a
 * 429 or 503 with Retry-After still pauses the host: its next request starts
 * no sooner than the server asked, measured at the server.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { longestGap, type Arrival } from '../helpers/arrivals.js';
import { assertOutput, kh, LINK, PAGE } from '../helpers/kh-harness.js';
import { answer, ok, startRawSite, type RawSite } from '../helpers/kh-raw.js';

const sites: RawSite[] = [];
after(async () => {
  await Promise.all(sites.map((s) => s.close()));
});

test('429 with Retry-After: 2: status=429 and no retry, the next request to that host at least 2 s later; stderr notes the pause', async () => {
  const site = await startRawSite({
    '/index.html': ok('<a href="/busy.html">busy</a>\n<a href="/after.html">after</a>\n'),
    '/busy.html': answer(429, '', 'Retry-After: 2\r\n'),
    '/after.html': ok('nothing here\n'),
  });
  sites.push(site);
  const w = { host: '127.0.0.1', port: site.port };
  const r = await kh([`${site.origin}/index.html`, 'NO-SUCH-KEYWORD'], { timeoutMs: 30_000 });
  assertOutput(r, [
    PAGE(w, '/index.html', 200),
    LINK(w, '/busy.html', 'follow'),
    LINK(w, '/after.html', 'follow'),
    PAGE(w, '/busy.html', 429),
    PAGE(w, '/after.html', 200),
    'NOT_FOUND_KEYWORD:',
  ]);
  assert.deepEqual(site.paths(), ['/robots.txt', '/index.html', '/busy.html', '/after.html'], 'the 429 page is not asked again');
  const arrival = (p: string): Arrival => site.requests.find((q) => q.path === p) as Arrival;
  const gap = longestGap(arrival('/busy.html'), arrival('/after.html'));
  assert.ok(gap >= 2000, `the next request came ${gap.toFixed(0)} ms after the 429 (Retry-After: 2)`);
  assert.match(r.stderr, /busy\.html: HTTP 429 with Retry-After: 2: no request to this host for 2\.0 s/);
});
