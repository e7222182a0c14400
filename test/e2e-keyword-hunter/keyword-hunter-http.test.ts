/**
 * ./KeywordHunter end to end against raw servers that write literal bytes
 * (the spec's sections 3.1, 3.6, 3.7, 4 "status code", spec decisions
 * "KeywordHunter": Response, Per page): body framing (chunked with trailers,
 * Content-Length, until close), folded headers, HTTP/1.0, non-200 statuses,
 * redirects, and status=0 when no status line arrives.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertOutput, FOUND, kh, LINK, NOT_FOUND, PAGE } from '../helpers/kh-harness.js';
import { answer, ok, redirect, startRawSite, type RawRoute, type RawSite } from '../helpers/kh-raw.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('kh-e2e-');

const servers: Array<{ close(): Promise<void> }> = [];
async function raw(routes: Record<string, RawRoute>, host?: string): Promise<RawSite> {
  const s = await startRawSite(routes, host);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const saved = (dir: string, name: string): string => readFileSync(join(dir, name), 'latin1');

describe('KeywordHunter HTTP responses', { concurrency: true }, () => {
  test('chunked body: the keyword split across chunks and TCP writes is found; extensions and trailers allowed; framing not saved', async () => {
    const S = await raw({
      '/c.html': {
        data: ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n', '6;ext=1\r\nline1\n\r\n3\r\nSPL\r\n', '9\r\nIT-KEY x\n\r\n', 'A\r\n tail end\n\r\n', '0\r\nX-Trailer: TRAILKEY\r\n\r\n'],
        gapMs: 40,
      },
    });
    const dir = tempDir();
    assertOutput(await kh([`${S.origin}/c.html`, 'SPLIT-KEY', dir]), [PAGE(S, '/c.html', 200), FOUND(S, '/c.html', 'SPLIT-KEY x')]);
    assert.equal(saved(dir, 'c.html'), 'line1\nSPLIT-KEY x\n tail end\n');
    assertOutput(await kh([`${S.origin}/c.html`, 'TRAILKEY']), [PAGE(S, '/c.html', 200), NOT_FOUND]);
  });

  test('Content-Length: the body is exactly that many bytes, read across several TCP writes; bytes after it are not the page', async () => {
    const body = 'first\n<p>LENGTH-KEY</p>\n';
    const S = await raw({
      '/l.html': { data: [`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 9)}`, body.slice(9, 15), body.slice(15)], gapMs: 40 },
      '/extra.html': 'HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nshort\nEXTRAKEY\n',
    });
    const dir = tempDir();
    assertOutput(await kh([`${S.origin}/l.html`, 'LENGTH-KEY', dir]), [PAGE(S, '/l.html', 200), FOUND(S, '/l.html', '<p>LENGTH-KEY</p>')]);
    assert.equal(saved(dir, 'l.html'), body);
    assertOutput(await kh([`${S.origin}/extra.html`, 'EXTRAKEY', dir]), [PAGE(S, '/extra.html', 200), NOT_FOUND]);
    assert.equal(saved(dir, 'extra.html'), 'short\n');
  });

  test('no length: the body is read until the server closes (HTTP/1.1 with Connection: close, and HTTP/1.0)', async () => {
    const S = await raw({
      '/close11': { data: ['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nbit one\n', 'bit two\n', 'the CLOSEKEY at the end'], gapMs: 60, close: true },
      '/close10': { data: ['HTTP/1.0 200 OK\r\n\r\nold server\n', 'still CLOSEKEY\n'], gapMs: 60, close: true },
    });
    assertOutput(await kh([`${S.origin}/close11`, 'CLOSEKEY']), [PAGE(S, '/close11', 200), FOUND(S, '/close11', 'the CLOSEKEY at the end')]);
    assertOutput(await kh([`${S.origin}/close10`, 'CLOSEKEY']), [PAGE(S, '/close10', 200), FOUND(S, '/close10', 'still CLOSEKEY')]);
  });

  test('HTTP/1.0 answers with a Content-Length work, and their connection is not reused', async () => {
    const one = (body: string): string => `HTTP/1.0 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const S = await raw({ '/robots.txt': 'HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n', '/': one(page('s', ['/a', '/b'])), '/a': one('a\n'), '/b': one('b V10KEY\n') });
    assertOutput(await kh([`${S.origin}/`, 'V10KEY']), [PAGE(S, '/', 200), LINK(S, '/a', 'follow'), LINK(S, '/b', 'follow'), PAGE(S, '/a', 200), PAGE(S, '/b', 200), FOUND(S, '/b', 'b V10KEY')]);
    assert.deepEqual(S.requests.map((r) => r.nth), [1, 1, 1, 1], 'each request on a fresh connection');
  });

  test('folded header lines are joined: a folded Transfer-Encoding and Location still frame and redirect', async () => {
    const S = await raw({
      '/te.html': 'HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\nTransfer-Encoding:\r\n chunked\r\n\r\n6\r\nFOLDK\n\r\n0\r\n\r\n',
      '/loc.html': 'HTTP/1.1 301 Moved\r\nLocation:\r\n /te.html\r\nContent-Length: 0\r\n\r\n',
    });
    const dir = tempDir();
    assertOutput(await kh([`${S.origin}/loc.html`, 'FOLDK', dir]), [PAGE(S, '/loc.html', 301), LINK(S, '/te.html', 'follow'), PAGE(S, '/te.html', 200), FOUND(S, '/te.html', 'FOLDK')]);
    assert.equal(saved(dir, 'te.html'), 'FOLDK\n', 'chunked framing removed: the folded Transfer-Encoding was read');
  });

  test(
    'folded header lines are joined: a folded Content-Length ("Content-Length:" then " 6") frames the body',
    async () => {
      const S = await raw({ '/cl.html': { data: 'HTTP/1.1 200 OK\r\nX-Long: part one\r\n\tpart two\r\nContent-Length:\r\n 6\r\n\r\nFOLDK\nEXTRA', close: true } });
      const dir = tempDir();
      assertOutput(await kh([`${S.origin}/cl.html`, 'EXTRA', dir]), [PAGE(S, '/cl.html', 200), NOT_FOUND]);
      assert.equal(saved(dir, 'cl.html'), 'FOLDK\n', 'the folded Content-Length framed the body');
    },
  );

  test('interim 1xx responses are skipped and bare-LF line ends accepted', async () => {
    const S = await raw({
      '/': 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x.css>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nINTERIM!\n',
      '/lf': 'HTTP/1.1 200 OK\nContent-Length: 8\n\nLF-ONLY\n',
    });
    assertOutput(await kh([`${S.origin}/`, 'INTERIM']), [PAGE(S, '/', 200), FOUND(S, '/', 'INTERIM!')]);
    assertOutput(await kh([`${S.origin}/lf`, 'LF-ONLY']), [PAGE(S, '/lf', 200), FOUND(S, '/lf', 'LF-ONLY')]);
  });

  test('only 200 is a success: 404, 500 and 203 print their status; their bodies are not searched, their links not followed, nothing saved', async () => {
    const S = await raw({
      '/': ok(page('start', ['/nf.html', '/err.html', '/203.html'])),
      '/nf.html': answer(404, 'ERRKEY <a href="/from404.html">x</a>\n'),
      '/err.html': answer(500, 'ERRKEY <a href="/from500.html">x</a>\n'),
      '/203.html': answer(203, 'ERRKEY <a href="/from203.html">x</a>\n'),
    });
    const dir = tempDir();
    assertOutput(await kh([`${S.origin}/`, 'ERRKEY', dir]), [
      PAGE(S, '/', 200),
      LINK(S, '/nf.html', 'follow'),
      LINK(S, '/err.html', 'follow'),
      LINK(S, '/203.html', 'follow'),
      PAGE(S, '/nf.html', 404),
      PAGE(S, '/err.html', 500),
      PAGE(S, '/203.html', 203),
      NOT_FOUND,
    ]);
    assert.deepEqual(readdirSync(dir), ['index.html'], 'only the 200 page (path "/") is saved');
  });
});

describe('KeywordHunter redirects', { concurrency: true }, () => {
  test('301, 302, 303, 307, 308: the PAGE line, a LINK line for the Location, fetched next (absolute, relative and other-host Locations)', async () => {
    const other = await raw({ '/elsewhere.html': ok('moved away\n') }, '127.0.0.2');
    const o = { host: '127.0.0.2', port: other.port };
    const routes: Record<string, RawRoute> = {
      '/': ok(page('start', ['/r/301', '/r/302', '/r/303', '/r/307', '/r/308', '/after.html'])),
      '/r/302': redirect(302, 't/302.html'),
      '/r/303': redirect(303, '/r/t/303.html?from=303'),
      '/r/307': redirect(307, `http://127.0.0.2:${other.port}/elsewhere.html`),
      '/r/308': redirect(308, '../after.html'),
      '/r/t/301.html': ok('t301\n'),
      '/r/t/302.html': ok('t302\n'),
      '/r/t/303.html?from=303': ok('t303\n'),
      '/after.html': ok('after REDIRKEY\n'),
    };
    const S = await raw(routes);
    routes['/r/301'] = redirect(301, `${S.origin}/r/t/301.html`); // a full URL: the port is known only now
    assertOutput(await kh([`${S.origin}/`, 'REDIRKEY']), [
      PAGE(S, '/', 200),
      ...['/r/301', '/r/302', '/r/303', '/r/307', '/r/308', '/after.html'].map((p) => LINK(S, p, 'follow')),
      PAGE(S, '/r/301', 301),
      LINK(S, '/r/t/301.html', 'follow'),
      PAGE(S, '/r/t/301.html', 200),
      PAGE(S, '/r/302', 302),
      LINK(S, '/r/t/302.html', 'follow'),
      PAGE(S, '/r/t/302.html', 200),
      PAGE(S, '/r/303', 303),
      LINK(S, '/r/t/303.html?from=303', 'follow'),
      PAGE(S, '/r/t/303.html?from=303', 200),
      PAGE(S, '/r/307', 307),
      LINK(o, '/elsewhere.html', 'follow'),
      PAGE(o, '/elsewhere.html', 200),
      PAGE(S, '/r/308', 308),
      LINK(S, '/after.html', 'already_seen_ignore'),
      PAGE(S, '/after.html', 200),
      FOUND(S, '/after.html', 'after REDIRKEY'),
    ]);
  });

  test('at most 5 hops: the sixth redirect is neither printed as a LINK nor requested', async () => {
    const routes: Record<string, RawRoute> = {};
    for (let i = 0; i <= 7; i++) routes[`/h${i}`] = redirect(302, `/h${i + 1}`);
    const S = await raw(routes);
    const lines = [];
    for (let i = 0; i <= 5; i++) {
      lines.push(PAGE(S, `/h${i}`, 302));
      if (i < 5) lines.push(LINK(S, `/h${i + 1}`, 'follow'));
    }
    const r = await kh([`${S.origin}/h0`, 'NoSuchKeyword']);
    assertOutput(r, [...lines, NOT_FOUND]);
    assert.deepEqual(S.paths(), ['/robots.txt', '/h0', '/h1', '/h2', '/h3', '/h4', '/h5']);
    assert.match(r.stderr, /redirect/i);
    assert.equal(r.stderr.match(/more than 5 redirects/g)?.length, 1, `one note for the chain, not two: ${r.stderr}`);
  });

  test('redirect loops end: a Location already seen is already_seen_ignore (also a redirect to itself)', async () => {
    const S = await raw({ '/la': redirect(302, '/lb'), '/lb': redirect(301, '/la'), '/self': redirect(307, '/self'), '/': ok(page('s', ['/la', '/self'])) });
    assertOutput(await kh([`${S.origin}/`, 'NoSuchKeyword']), [
      PAGE(S, '/', 200),
      LINK(S, '/la', 'follow'),
      LINK(S, '/self', 'follow'),
      PAGE(S, '/la', 302),
      LINK(S, '/lb', 'follow'),
      PAGE(S, '/lb', 301),
      LINK(S, '/la', 'already_seen_ignore'),
      PAGE(S, '/self', 307),
      LINK(S, '/self', 'already_seen_ignore'),
      NOT_FOUND,
    ]);
  });

  test('a redirect target keeps the depth of the link: a depth-5 redirect is followed, its target searched but its links not printed', async () => {
    const S = await raw({
      '/d1': ok(page('1', ['/d2'])),
      '/d2': ok(page('2', ['/d3'])),
      '/d3': ok(page('3', ['/d4'])),
      '/d4': ok(page('4', ['/d5'])),
      '/d5': redirect(302, '/final'),
      '/final': ok(page('final', ['/after'], 'no keyword here')),
    });
    const chain = ['/d1', '/d2', '/d3', '/d4'].flatMap((p, i) => [PAGE(S, p, 200), LINK(S, `/d${i + 2}`, 'follow')]);
    assertOutput(await kh([`${S.origin}/d1`, 'NoSuchKeyword']), [...chain, PAGE(S, '/d5', 302), LINK(S, '/final', 'follow'), PAGE(S, '/final', 200), NOT_FOUND]);
  });
});

describe('KeywordHunter status=0 (no status line arrived)', { concurrency: true }, () => {
  test('a refused connection, an unresolvable name (x.invalid), a reset and a timeout (--idle-timeout 0.3) give status=0, and the crawl goes on', async () => {
    const refused = { host: '127.0.0.1', port: await refusedPort() };
    const S = await raw({
      '/': ok(page('s', [`http://127.0.0.1:${refused.port}/r.html`, 'http://x.invalid:8080/d.html', '/reset', '/stall', '/last.html'])),
      '/reset': (conn) => {
        conn.socket.resetAndDestroy();
        return 'close';
      },
      '/stall': () => new Promise<'close'>(() => undefined),
      '/last.html': ok('LASTKEY\n'),
    });
    const x = { host: 'x.invalid', port: 8080 };
    const t0 = performance.now();
    const r = await kh(['--idle-timeout', '0.3', '--connect-timeout', '3', `${S.origin}/`, 'LASTKEY']);
    assertOutput(r, [
      PAGE(S, '/', 200),
      LINK(refused, '/r.html', 'follow'),
      LINK(x, '/d.html', 'follow'),
      LINK(S, '/reset', 'follow'),
      LINK(S, '/stall', 'follow'),
      LINK(S, '/last.html', 'follow'),
      PAGE(refused, '/r.html', 0),
      PAGE(x, '/d.html', 0),
      PAGE(S, '/reset', 0),
      PAGE(S, '/stall', 0),
      PAGE(S, '/last.html', 200),
      FOUND(S, '/last.html', 'LASTKEY'),
    ]);
    assert.ok(performance.now() - t0 < 12_000, 'the idle timeout (0.3 s, not the default 15 s) ended the stall');
    assert.match(r.stderr, /refused|ECONNREFUSED|cannot connect/i);
  });
});
