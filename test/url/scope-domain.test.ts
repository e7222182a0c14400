/**
 * `--internal-domain DOMAIN` (src/url/domain-scope.ts): a domain and its
 * subdomains, label by label, case-insensitive, IDN compared as punycode,
 * any scheme and port; an IP address covers itself only; bad values are
 * refused with a message that says what is wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isCrawlerError } from '../../src/errors.js';
import { inDomains, parseScopeDomain } from '../../src/url/domain-scope.js';
import { parseHttpUrl } from '../../src/url/http-url.js';

const covers = (domains: string[], url: string): boolean => inDomains(domains.map(parseScopeDomain), parseHttpUrl(url));

test('a domain covers itself and every subdomain, label by label: never a name that only ends in the same letters', () => {
  for (const url of ['http://example.org/', 'http://a.example.org/x', 'http://a.b.c.example.org/', 'http://www.example.org./']) assert.equal(covers(['example.org'], url), true, url);
  for (const url of ['http://badexample.org/', 'http://example.org.evil.test/', 'http://example.com/', 'http://org/', 'http://xexample.org/']) assert.equal(covers(['example.org'], url), false, url);
});

test('any scheme and any port: a domain names hosts, not servers', () => {
  for (const url of ['https://a.example.org/', 'http://a.example.org:8080/', 'https://example.org:8443/p?q']) assert.equal(covers(['example.org'], url), true, url);
});

test('case does not matter, on either side; a final dot on either side is ignored', () => {
  assert.equal(covers(['Example.ORG'], 'http://WWW.example.org/'), true);
  assert.equal(covers(['example.org.'], 'http://www.EXAMPLE.org/'), true);
  assert.equal(parseScopeDomain('Example.ORG.').name, 'example.org');
});

test('IDN: the domain and the hosts are compared in their ASCII (punycode) form', () => {
  const d = parseScopeDomain('Bücher.example');
  assert.equal(d.name, 'xn--bcher-kva.example');
  assert.equal(covers(['bücher.example'], 'http://www.BÜCHER.example/'), true);
  assert.equal(covers(['xn--bcher-kva.example'], 'http://shop.bücher.example/'), true);
  assert.equal(covers(['bücher.example'], 'http://bucher.example/'), false);
});

test('localhost and its subdomains (RFC 6761 loopback names)', () => {
  assert.equal(covers(['localhost'], 'http://localhost:8080/'), true);
  assert.equal(covers(['localhost'], 'http://a.localhost:8080/'), true);
  assert.equal(covers(['localhost'], 'http://127.0.0.1:8080/'), false, 'an address is not a name under localhost');
});

test('an IP address covers that address only; a host that is an address is covered by nothing else', () => {
  assert.equal(parseScopeDomain('127.0.0.1').address, true);
  assert.equal(covers(['127.0.0.1'], 'http://127.0.0.1:9/'), true);
  assert.equal(covers(['127.0.0.1'], 'https://127.0.0.1/'), true);
  assert.equal(covers(['127.0.0.1'], 'http://127.0.0.2/'), false);
  assert.equal(covers(['127.0.0.1'], 'http://1.127.0.0.1.example/'), false);
  // An address's last labels are no domain of it, even a name-looking one such as "0.1".
  assert.throws(() => parseScopeDomain('0.1'), /last label is all digits/);
  assert.equal(covers(['example.org'], 'http://127.1/'), false);
  assert.equal(covers(['::1'], 'http://[::1]:8080/'), true);
  assert.equal(covers(['[::1]'], 'http://[::1]/'), true);
  assert.equal(covers(['::1'], 'http://[::2]/'), false);
});

test('several domains: a host under any of them is covered', () => {
  assert.equal(covers(['a.test', 'b.test'], 'http://x.b.test/'), true);
  assert.equal(covers(['a.test', 'b.test'], 'http://c.test/'), false);
});

test('bad values are refused, the message quoting the value and saying what is wrong', () => {
  const bad: Array<[string, RegExp]> = [
    ['', /"": it is empty/],
    ['http://example.org', /not a URL/],
    ['example.org/path', /not a URL/],
    ['example.org:8080', /every port.*without ":PORT"/],
    ['*.example.org', /without "\*\.": example\.org covers all its subdomains/],
    ['exa mple.org', /no spaces/],
    [' example.org', /no spaces/],
    ['example.org\n', /no spaces or control/],
    ['a..b', /not a domain name/],
    ['.example.org', /not a domain name/],
    ['-a.example', /not a domain name/],
    ['ex!ample.org', /not a domain name/],
    ['user@example.org', /not a domain name/],
    [`${'a'.repeat(64)}.example`, /not a domain name/],
    ['123', /all digits/],
  ];
  for (const [text, why] of bad) {
    assert.throws(
      () => parseScopeDomain(text),
      (err: unknown) => isCrawlerError(err, 'ERR_INVALID_OPTION') && err.message.startsWith(`invalid --internal-domain ${JSON.stringify(text)}: `) && why.test(err.message) && !err.message.includes('\n'),
      JSON.stringify(text),
    );
  }
});
