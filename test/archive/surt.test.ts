/**
 * SURT keys: pywb's examples, and the key ReplayWeb.page computes for a
 * lookup (warcio's getSurt, which wabac.js calls) for every URL, since a key
 * that differs from it is a page that cannot be found in replay.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getSurt } from 'warcio';
import { surt } from '../../src/archive/surt.js';

const CASES: [string, string][] = [
  // pywb's canonicalize() doctests
  ['http://example.com/path/file.html', 'com,example)/path/file.html'],
  ['http://example.com/path/?a=b', 'com,example)/path/?a=b'],
  // the host reversed, www dropped, lower-cased, default port dropped, query parts sorted, fragment dropped
  ['http://www.example.com:8080/path?b=2&a=1#frag', 'com,example:8080)/path?a=1&b=2'],
  ['https://www2.Example.COM/A/B.html', 'com,example)/a/b.html'],
  ['https://example.com:443/', 'com,example)/'],
  ['http://example.com', 'com,example)/'],
  ['http://example.com/?', 'com,example)/'],
  ['http://wwwexample.com/', 'com,wwwexample)/'],
  // an IPv4 address is reversed too (pywb's surt: reverse_ipaddr defaults to true)
  ['http://127.0.0.1:8080/index.html', '1,0,0,127:8080)/index.html'],
  ['http://[::1]:8080/x', '[::1]:8080)/x'],
  // WHATWG parsing: spaces and non-ASCII percent-encoded, IDN to punycode, dot segments resolved
  ['http://example.com/a b/../c', 'com,example)/c'],
  // lower-casing comes first, so the escapes that parsing adds stay upper-case, as in ReplayWeb.page
  ['http://bücher.example/ü?x=ü', 'example,xn--bcher-kva)/%C3%BC?x=%C3%BC'],
  ['http://example.com/p?c=3&a=1&b=2&a=0', 'com,example)/p?a=0&a=1&b=2&c=3'],
  // not http(s): its own key
  ['urn:uuid:1234', 'urn:uuid:1234'],
  ['dns:example.com', 'dns:example.com'],
];

test('SURT keys: pywb examples and the rules of ReplayWeb.page lookups', () => {
  for (const [url, key] of CASES) assert.equal(surt(url), key, url);
});

test('SURT keys equal the key ReplayWeb.page computes (warcio getSurt) for every case', () => {
  const more = ['HTTP://WWW.EXAMPLE.COM/', 'http://www.example.com/index.html?', 'https://a.b.c.example.org:8443/x/y?z', 'http://example.com/%7Efoo'];
  for (const url of [...CASES.map(([u]) => u), ...more]) assert.equal(surt(url), getSurt(url), url);
});
