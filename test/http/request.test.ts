/** RFC 9112 §3: the request line and headers are built as pure bytes, with nothing injectable. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRequest, hostHeader } from '../../src/http/request.js';
import { parseHttpUrl, resolveHttpUrl } from '../../src/url/http-url.js';
import { isCrawlerError } from '../../src/errors.js';

test('RFC 9112 §3: GET request line, Host, User-Agent, Connection', () => {
  const bytes = buildRequest({ url: parseHttpUrl('http://h:8080/a/b.html?x=1'), userAgent: 'ee122-KeywordHunter', keepAlive: true });
  const text = bytes.toString('latin1');
  assert.ok(text.startsWith('GET /a/b.html?x=1 HTTP/1.1\r\nHost: h:8080\r\nUser-Agent: ee122-KeywordHunter\r\n'), text);
  assert.ok(text.includes('\r\nConnection: keep-alive\r\n'));
  assert.ok(text.endsWith('\r\n\r\n'));
  assert.equal(text.split('\r\n\r\n').length, 2, 'exactly one end of headers');
});

test('Connection: close when keep-alive is off', () => {
  const text = buildRequest({ url: parseHttpUrl('http://h/'), userAgent: 'x', keepAlive: false }).toString('latin1');
  assert.match(text, /\r\nConnection: close\r\n/);
});

test('RFC 9112 §3.2: Host omits the default port and carries punycode for IDN hosts', () => {
  assert.equal(hostHeader(parseHttpUrl('http://h:80/')), 'h');
  assert.equal(hostHeader(parseHttpUrl('https://h:443/')), 'h');
  assert.equal(hostHeader(parseHttpUrl('https://h:8443/')), 'h:8443');
  assert.equal(hostHeader(parseHttpUrl('http://bücher.example/')), 'xn--bcher-kva.example');
  assert.equal(hostHeader(parseHttpUrl('http://[::1]:81/')), '[::1]:81');
});

test('a link with CR LF and a fake header cannot inject a header', () => {
  const base = parseHttpUrl('http://h/');
  // The URL layer already removes CR/LF (as browsers do); the request layer encodes whatever remains.
  const url = resolveHttpUrl('/x HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET /y', base);
  const text = buildRequest({ url, userAgent: 'ua', keepAlive: true }).toString('latin1');
  const lines = text.split('\r\n');
  assert.match(lines[0] as string, /^GET \S+ HTTP\/1\.1$/);
  assert.ok(!lines.some((l) => l.startsWith('X-Injected')));
});

test('header values with CR, LF or NUL are refused', () => {
  assert.throws(
    () => buildRequest({ url: parseHttpUrl('http://h/'), userAgent: 'a\r\nX: y', keepAlive: true }),
    (e: unknown) => isCrawlerError(e, 'ERR_INVALID_OPTION'),
  );
  assert.throws(
    () => buildRequest({ url: parseHttpUrl('http://h/'), userAgent: 'a', keepAlive: true, headers: [['Bad Name', 'v']] }),
    (e: unknown) => isCrawlerError(e, 'ERR_INVALID_OPTION'),
  );
});

test('the request is the same bytes for the same input (pure)', () => {
  const spec = { url: parseHttpUrl('http://h/p'), userAgent: 'u', keepAlive: true } as const;
  assert.deepEqual(buildRequest(spec), buildRequest(spec));
});
