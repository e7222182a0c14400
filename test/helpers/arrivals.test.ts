/**
 * The arrival windows of the test servers (arrivals.ts): never later than
 * the request, and a politeness check on them still fails a client that
 * ignores the delay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertStartsApart } from './arrivals.js';
import { startSite } from './site-server.js';

test('each request is noted after it was sent, within its window; back-to-back starts fail a 1 s check, starts 220 ms apart pass a 200 ms one', async (t) => {
  const s = await startSite({ '/': { body: 'ok' } });
  t.after(() => s.close());
  await fetch(`${s.origin}/`).then((r) => r.text()); // fetch's first call loads its code (a stall of this process)
  s.requests.length = 0;
  const sent: number[] = [];
  for (const pause of [0, 0, 220]) {
    await sleep(pause);
    sent.push(performance.now());
    await fetch(`${s.origin}/`).then((r) => r.text());
  }
  assert.equal(s.requests.length, 3);
  for (const [i, r] of s.requests.entries()) {
    assert.ok(r.after <= r.at, 'the window is not empty');
    assert.ok(r.at >= (sent[i] as number), 'noted after it was sent');
  }
  assert.throws(() => assertStartsApart(s.requests.slice(0, 2), 1000, 'site'), /site: #0 and #1 started at most 0\.[0-9]{3} s apart .*, below 1 s/);
  assertStartsApart(s.requests.slice(1), 200, 'site');
});
