/**
 * ./KeywordHunter end to end, the request and persistent connections (the
 * spec's sections 2, 3.2 and 3.8, spec decisions "KeywordHunter": Request).
 * The servers count TCP connections and record which one carried each request.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertOutput, FOUND, kh, LINK, NOT_FOUND, PAGE } from '../helpers/kh-harness.js';
import { NOT_FOUND_ANSWER, ok, startRawSite, type RawRoute, type RawScript, type RawSite } from '../helpers/kh-raw.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';

const servers: Array<{ close(): Promise<void> }> = [];
async function site(routes: Record<string, Route>, host?: string): Promise<SiteServer> {
  const s = await startSite(routes, host);
  servers.push(s);
  return s;
}
async function raw(routes: Record<string, RawRoute>): Promise<RawSite> {
  const s = await startRawSite(routes);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const FIVE = ['/p1.html', '/p2.html', '/p3.html', '/p4.html', '/p5.html'];

function fivePages(extra: Record<string, string> = {}): Record<string, Route> {
  const routes: Record<string, Route> = { '/': { headers: extra, body: page('s', FIVE) } };
  for (const p of FIVE) routes[p] = { headers: extra, body: `${p}\n` };
  return routes;
}
const fiveOut = (S: SiteServer): string[] => [PAGE(S, '/', 200), ...FIVE.map((p) => LINK(S, p, 'follow')), ...FIVE.map((p) => PAGE(S, p, 200)), NOT_FOUND];

describe('KeywordHunter requests and persistent connections', { concurrency: true }, () => {
  test('the request: GET respath HTTP/1.1 with Host and "User-Agent: ee122-KeywordHunter", robots.txt the same way', async () => {
    const S = await raw({ '/a/b.html?x=1&y=2': ok('WIREKEY\n') });
    assertOutput(await kh([`${S.origin}/a/b.html?x=1&y=2#frag`, 'WIREKEY']), [PAGE(S, '/a/b.html?x=1&y=2', 200), FOUND(S, '/a/b.html?x=1&y=2', 'WIREKEY')]);
    const heads = S.requests.map((r) => r.head);
    assert.equal(heads.length, 2);
    for (const [i, target] of ['/robots.txt', '/a/b.html?x=1&y=2'].entries()) {
      const lines = (heads[i] as string).split('\r\n');
      assert.equal(lines[0], `GET ${target} HTTP/1.1`);
      const fields = lines.slice(1).filter((l) => l !== '');
      assert.deepEqual(fields.filter((l) => /^host:/i.test(l)), [`Host: 127.0.0.1:${S.port}`]);
      assert.deepEqual(fields.filter((l) => /^user-agent:/i.test(l)), ['User-Agent: ee122-KeywordHunter']);
      assert.ok(!fields.some((l) => /^(content-length|transfer-encoding):/i.test(l)), 'a GET without a body');
    }
  });

  test('N pages of one host go over one kept-alive TCP connection (robots.txt included)', async () => {
    const S = await site(fivePages());
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), fiveOut(S));
    assert.equal(S.requests.length, 7);
    assert.equal(S.connections, 1, 'one TCP connection');
    assert.deepEqual(new Set(S.requests.map((r) => r.connection)), new Set([1]));
    for (const r of S.requests) assert.notEqual(r.headers.connection, 'close');
  });

  test('two hosts: one connection to each, each reused', async () => {
    const B = await site({ '/b1': { body: 'b1\n' }, '/b2': { body: 'b2\n' } }, '127.0.0.2');
    const A = await site({ '/': { body: page('a', [`http://127.0.0.2:${B.port}/b1`, '/a1', `http://127.0.0.2:${B.port}/b2`]) }, '/a1': { body: 'a1\n' } });
    const b = { host: '127.0.0.2', port: B.port };
    assertOutput(await kh([`${A.origin}/`, 'NoSuchKeyword']), [
      PAGE(A, '/', 200),
      LINK(b, '/b1', 'follow'),
      LINK(A, '/a1', 'follow'),
      LINK(b, '/b2', 'follow'),
      PAGE(b, '/b1', 200),
      PAGE(A, '/a1', 200),
      PAGE(b, '/b2', 200),
      NOT_FOUND,
    ]);
    assert.equal(A.connections, 1);
    assert.equal(B.connections, 1);
  });

  for (const how of ['closes', 'resets'] as const) {
    test(`a kept-alive connection the server ${how} on the next request is retried once on a fresh one`, async () => {
      // Each connection answers its first request only: the second one is dropped unanswered.
      const drop = (answerText: string): RawScript => (conn, _head, nth) => {
        if (nth === 1) {
          conn.socket.write(answerText);
          return 'keep';
        }
        if (how === 'resets') conn.socket.resetAndDestroy();
        else conn.socket.destroy();
        return 'close';
      };
      const S = await raw({ '/robots.txt': drop(NOT_FOUND_ANSWER), '/': drop(ok(page('s', ['/a']))), '/a': drop(ok('RETRYKEY\n')) });
      assertOutput(await kh([`${S.origin}/`, 'RETRYKEY']), [PAGE(S, '/', 200), LINK(S, '/a', 'follow'), PAGE(S, '/a', 200), FOUND(S, '/a', 'RETRYKEY')]);
      assert.deepEqual(
        S.requests.map((r) => `${r.connection}:${r.path}`),
        ['0:/robots.txt', '0:/', '1:/', '1:/a', '2:/a'],
        'each dropped request repeated once, on a new connection',
      );
    });
  }

  test('the retry happens once: when the fresh connection fails too, the page gets status=0', async () => {
    const S = await raw({
      '/': (conn) => {
        conn.socket.destroy();
        return 'close';
      },
    });
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), [PAGE(S, '/', 0), NOT_FOUND]);
    assert.deepEqual(
      S.requests.map((r) => `${r.connection}:${r.path}`),
      ['0:/robots.txt', '0:/', '1:/'],
      'the kept-alive attempt, one retry, no third',
    );
  });

  test('--no-keep-alive sends "Connection: close" and uses one connection per request', async () => {
    const S = await site(fivePages());
    assertOutput(await kh(['--no-keep-alive', `${S.origin}/`, 'NoSuchKeyword']), fiveOut(S));
    assert.equal(S.requests.length, 7);
    for (const r of S.requests) assert.equal(r.headers.connection, 'close', `${r.path}: Connection: close`);
    assert.equal(S.connections, 7, 'one TCP connection per request');
    assert.equal(new Set(S.requests.map((r) => r.connection)).size, 7);
  });

  test('a server answering "Connection: close" gets a new connection for each request', async () => {
    const S = await site(fivePages({ connection: 'close' }));
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), fiveOut(S));
    assert.equal(S.connections, S.requests.length - 1, 'only robots.txt (a 404 kept alive) shared its connection');
  });
});
