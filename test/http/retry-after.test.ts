/** RFC 9110 §10.2.3 Retry-After: delta-seconds, or an HTTP-date in its three forms (§5.6.7), read against the response's Date. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHttpDate, responseRetryAfter, retryAfterMs } from '../../src/http/retry-after.js';

const AT = Date.UTC(1994, 10, 6, 8, 49, 37);

test('§5.6.7: the three forms of an HTTP-date name the same instant', () => {
  assert.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), AT, 'IMF-fixdate');
  assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), AT, 'RFC 850');
  assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), AT, 'asctime');
  assert.equal(parseHttpDate('sun, 06 nov 1994 08:49:37 gmt'), AT, 'names are case-insensitive');
});

test('what is no HTTP-date is undefined', () => {
  for (const v of ['', 'tomorrow', 'Sun, 31 Feb 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 25:00:00 GMT', 'Sun, 06 Foo 1994 08:49:37 GMT', '1994-11-06T08:49:37Z', 'Sun, 06 Nov 1994 08:49:37 CET']) {
    assert.equal(parseHttpDate(v), undefined, v);
  }
});

test('delta-seconds: that many seconds', () => {
  assert.equal(retryAfterMs('2', undefined, AT), 2000);
  assert.equal(retryAfterMs(' 120 ', undefined, AT), 120_000);
  assert.equal(retryAfterMs('0', undefined, AT), 0);
  assert.equal(retryAfterMs('-1', undefined, AT), undefined, 'no sign');
  assert.equal(retryAfterMs('1.5', undefined, AT), undefined, 'no fraction');
});

test('an HTTP-date is read against the response\'s Date when it has one, else against our clock', () => {
  const in90s = 'Sun, 06 Nov 1994 08:51:07 GMT';
  assert.equal(retryAfterMs(in90s, 'Sun, 06 Nov 1994 08:49:37 GMT', AT), 90_000);
  assert.equal(retryAfterMs(in90s, undefined, AT), 90_000);
  // A server whose clock runs one hour ahead of ours: its Date and its Retry-After are both an hour ahead.
  const hourAhead = (iso: string): string => new Date(Date.parse(iso) + 3_600_000).toUTCString();
  assert.equal(retryAfterMs(hourAhead('1994-11-06T08:49:39Z'), hourAhead('1994-11-06T08:49:37Z'), AT), 2000);
  for (const form of ['Sunday, 06-Nov-94 08:51:07 GMT', 'Sun Nov  6 08:51:07 1994']) assert.equal(retryAfterMs(form, 'Sun, 06 Nov 1994 08:49:37 GMT', AT), 90_000, form);
});

test('a date in the past means no pause; a value that is neither form is undefined', () => {
  assert.equal(retryAfterMs('Sun, 06 Nov 1994 08:49:00 GMT', 'Sun, 06 Nov 1994 08:49:37 GMT', AT), 0);
  assert.equal(retryAfterMs('soon', undefined, AT), undefined);
});

test('a response\'s Retry-After counts on 429 and 503 only, read against its Date', () => {
  const headers: Array<[string, string]> = [['Date', 'Sun, 06 Nov 1994 08:49:37 GMT'], ['Retry-After', 'Sun, 06 Nov 1994 08:49:47 GMT']];
  assert.deepEqual(responseRetryAfter({ status: 429, headers }, 0), { value: 'Sun, 06 Nov 1994 08:49:47 GMT', ms: 10_000 });
  assert.deepEqual(responseRetryAfter({ status: 503, headers: [['retry-after', 'soon']] }, 0), { value: 'soon', ms: undefined });
  for (const status of [200, 301, 500, 502, 504]) assert.equal(responseRetryAfter({ status, headers }, 0), undefined, String(status));
  assert.equal(responseRetryAfter({ status: 429, headers: [] }, 0), undefined, 'none sent');
});
