/**
 * ./KeywordHunter end to end, the output protocol (the spec's section 4 and
 * the spec decisions "KeywordHunter": output fields, per-page order, the
 * keyword search). Every test spawns the program against loopback servers it
 * starts, and most compare the WHOLE stdout.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { as, assertOutput, FOUND, kh, LINK, NOT_FOUND, PAGE, sleep, spawnKh } from '../helpers/kh-harness.js';
import { startRawSite } from '../helpers/kh-raw.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';

const servers: Array<{ close(): Promise<void> }> = [];
async function site(routes: Parameters<typeof startSite>[0], host?: string): Promise<SiteServer> {
  const s = await startSite(routes, host);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** The spec's example, on three loopback hosts: B "www.google.com" (localhost), A "www.MyPhotos.com" (127.0.0.1), C "www.cnn.com" (127.0.0.2). */
async function specExample(worldExtra = ''): Promise<{ A: SiteServer; B: SiteServer; C: SiteServer; start: string }> {
  const A = await site(new Map());
  const B = await site(new Map());
  const C = await site({ '/world.html': { body: page('world', [], worldExtra) } }, '127.0.0.2');
  B.routes.set('/index.html', { body: page('start', [`http://127.0.0.1:${A.port}/photos/january.html`]) });
  A.routes.set('/robots.txt', { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /help/\n' });
  A.routes.set('/photos/january.html', {
    body: page('january', ['february.html', '/help/OnlyForHumans.html', `http://localhost:${B.port}`, `http://127.0.0.2:${C.port}/world.html`]),
  });
  A.routes.set('/photos/february.html', { body: page('february') });
  A.routes.set('/help/OnlyForHumans.html', { body: page('humans only') });
  return { A, B, C, start: `http://localhost:${B.port}` };
}

describe('KeywordHunter protocol', { concurrency: true }, () => {
  test("spec section 4 example: relative link, robots-disallowed link, already-seen URL without a path (/index.html), another host", async () => {
    const { A, B, C, start } = await specExample();
    const b = as('localhost', B);
    const r = await kh([start, 'NotOnAnyPage']);
    assertOutput(r, [
      PAGE(b, '/index.html', 200),
      LINK(A, '/photos/january.html', 'follow'),
      PAGE(A, '/photos/january.html', 200),
      LINK(A, '/photos/february.html', 'follow'),
      LINK(A, '/help/OnlyForHumans.html', 'robots_ignore'),
      LINK(b, '/index.html', 'already_seen_ignore'),
      LINK(C, '/world.html', 'follow'),
      PAGE(A, '/photos/february.html', 200),
      PAGE(C, '/world.html', 200),
      NOT_FOUND,
    ]);
    assert.deepEqual(B.paths(), ['/robots.txt', '/index.html']);
    assert.deepEqual(A.paths(), ['/robots.txt', '/photos/january.html', '/photos/february.html'], 'the disallowed page is never requested');
    assert.deepEqual(C.paths(), ['/robots.txt', '/world.html']);
  });

  test('spec section 4 example: the keyword on the other host ends the output with FOUND_KEYWORD', async () => {
    const { A, C, start, B } = await specExample('<p>world news: KEY-IN-CNN</p>');
    const r = await kh([start, 'KEY-IN-CNN']);
    assertOutput(r, [
      PAGE(as('localhost', B), '/index.html', 200),
      LINK(A, '/photos/january.html', 'follow'),
      PAGE(A, '/photos/january.html', 200),
      LINK(A, '/photos/february.html', 'follow'),
      LINK(A, '/help/OnlyForHumans.html', 'robots_ignore'),
      LINK(as('localhost', B), '/index.html', 'already_seen_ignore'),
      LINK(C, '/world.html', 'follow'),
      PAGE(A, '/photos/february.html', 200),
      PAGE(C, '/world.html', 200),
      FOUND(C, '/world.html', '<p>world news: KEY-IN-CNN</p>'),
    ]);
  });

  test('port is always printed: 80 for http and 443 for https URLs written without one (StartURL and links)', async () => {
    // x.invalid never resolves (RFC 2606), so no connection is made: robots.txt
    // fails (allow all), the link is followed and its page shows status=0.
    // --connect-timeout bounds the name lookup where no resolver answers.
    const S = await site({ '/p.html': { body: page('p', ['http://x.invalid/a.html', 'http://x.invalid', 'https://x.invalid/s?q=1']) } });
    const x = { host: 'x.invalid', port: 80 };
    const xs = { host: 'x.invalid', port: 443 };
    const r = await kh(['--connect-timeout', '3', `${S.origin}/p.html`, 'NoSuchKeyword']);
    assertOutput(r, [
      PAGE(S, '/p.html', 200),
      LINK(x, '/a.html', 'follow'),
      LINK(x, '/index.html', 'follow'),
      LINK(xs, '/s?q=1', 'follow'),
      PAGE(x, '/a.html', 0),
      PAGE(x, '/index.html', 0),
      PAGE(xs, '/s?q=1', 0),
      NOT_FOUND,
    ]);
    const r2 = await kh(['--connect-timeout', '3', 'http://x.invalid', 'NoSuchKeyword']);
    assertOutput(r2, [PAGE(x, '/index.html', 0), NOT_FOUND]);
  });

  test('host is printed as written in the URL; hosts compare case-insensitively (already_seen_ignore)', async () => {
    const S = await site(new Map());
    S.routes.set('/index.html', { body: page('s', [`http://LocalHost:${S.port}/x.html`, `http://LOCALHOST:${S.port}/x.html`, `http://127.0.0.1:${S.port}/x.html`]) });
    S.routes.set('/x.html', { body: page('x') });
    const r = await kh([`http://localhost:${S.port}/index.html`, 'NoSuchKeyword']);
    assertOutput(r, [
      PAGE(as('localhost', S), '/index.html', 200),
      LINK(as('LocalHost', S), '/x.html', 'follow'),
      LINK(as('LOCALHOST', S), '/x.html', 'already_seen_ignore'),
      // 127.0.0.1 is another host name (another site), even on the same server.
      LINK(S, '/x.html', 'follow'),
      PAGE(as('LocalHost', S), '/x.html', 200),
      PAGE(S, '/x.html', 200),
      NOT_FOUND,
    ]);
  });

  test('each line is flushed as it happens: the first PAGE and LINK lines arrive through a pipe while the next response is held back', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const S = await site({
      '/': { body: page('first', ['/slow.html']) },
      '/slow.html': { handle: (_req, res) => void held.then(() => res.writeHead(200, { 'content-type': 'text/html' }).end('slow SLOWKEY\n')) },
    });
    const run = spawnKh([`${S.origin}/`, 'SLOWKEY']);
    try {
      await run.waitForLine((l) => l.startsWith('LINK:'));
      for (let i = 0; i < 200 && !S.paths().includes('/slow.html'); i++) await sleep(10);
      assert.ok(S.paths().includes('/slow.html'), 'the next request was sent');
      await sleep(100); // a line not flushed would still be buffered now
      assert.deepEqual(run.lines, [PAGE(S, '/', 200), LINK(S, '/slow.html', 'follow')], 'seen while /slow.html is still unanswered');
    } finally {
      release();
    }
    assertOutput(await run.done, [PAGE(S, '/', 200), LINK(S, '/slow.html', 'follow'), PAGE(S, '/slow.html', 200), FOUND(S, '/slow.html', 'slow SLOWKEY')]);
  });

  test('stdout holds the four kinds of line only, even when things go wrong: unusable links, too many redirects and dead hosts are noted on stderr', async () => {
    const S = await site(new Map());
    const deep = '/t'.repeat(40) + '.html'; // over --max-path-depth (32 segments)
    const long = '/' + 'l'.repeat(3000); // over --max-url-length (2048)
    const dead = { host: '127.0.0.1', port: await refusedPort() };
    S.routes.set('/', {
      body: page('s', ['http://exa mple.com/', `http://127.0.0.1:99999/`, 'http://[::1/x', deep, long, '/r0', `http://127.0.0.1:${dead.port}/dead.html`, '/ok.html']),
    });
    for (let i = 0; i <= 6; i++) S.routes.set(`/r${i}`, { status: 302, headers: { location: `/r${i + 1}` }, body: '' });
    S.routes.set('/ok.html', { body: 'ok\n' });
    const r = await kh([`${S.origin}/`, 'NoSuchKeyword']);
    const hops = [0, 1, 2, 3, 4, 5].flatMap((i) => (i < 5 ? [PAGE(S, `/r${i}`, 302), LINK(S, `/r${i + 1}`, 'follow')] : [PAGE(S, `/r${i}`, 302)]));
    assertOutput(r, [
      PAGE(S, '/', 200),
      LINK(S, '/r0', 'follow'),
      LINK(dead, '/dead.html', 'follow'),
      LINK(S, '/ok.html', 'follow'),
      ...hops,
      PAGE(dead, '/dead.html', 0),
      PAGE(S, '/ok.html', 200),
      NOT_FOUND,
    ]);
    for (const what of ['exa mple', '99999', '::1', 'segments', 'longer', 'redirect', 'dead.html']) assert.ok(r.stderr.includes(what), `stderr notes ${what}: ${r.stderr}`);
  });

  test('FOUND_KEYWORD stops at once: on the StartURL no LINK line is printed and nothing else is requested', async () => {
    const S = await site({ '/': { body: page('start', ['/a', '/b'], 'here: STOPKEY') }, '/a': { body: 'a\n' } });
    const r = await kh([`${S.origin}/`, 'STOPKEY']);
    assertOutput(r, [PAGE(S, '/', 200), FOUND(S, '/', 'here: STOPKEY')]);
    await sleep(150);
    assert.deepEqual(S.paths(), ['/robots.txt', '/']);
  });

  test('FOUND_KEYWORD stops at once: no request for later pages of the same or other hosts', async () => {
    const A = await site(new Map());
    const B = await site({ '/x.html': { body: page('x', ['/deeper.html'], 'the STOPKEY line') } }, '127.0.0.2');
    const C = await site({ '/z.html': { body: page('z') } }, '127.0.0.3');
    A.routes.set('/', { body: page('start', [`http://127.0.0.2:${B.port}/x.html`, '/y.html', `http://127.0.0.3:${C.port}/z.html`]) });
    A.routes.set('/y.html', { body: page('y') });
    const r = await kh([`${A.origin}/`, 'STOPKEY']);
    assertOutput(r, [
      PAGE(A, '/', 200),
      LINK(B, '/x.html', 'follow'),
      LINK(A, '/y.html', 'follow'),
      LINK(C, '/z.html', 'follow'),
      PAGE(B, '/x.html', 200),
      FOUND(B, '/x.html', 'the STOPKEY line'),
    ]);
    await sleep(150);
    assert.deepEqual(A.paths(), ['/robots.txt', '/'], 'no request for /y.html');
    assert.deepEqual(B.paths(), ['/robots.txt', '/x.html']);
    assert.deepEqual(C.paths(), ['/robots.txt'], 'robots.txt when the link was met, never /z.html');
  });
});

describe('KeywordHunter keyword search', { concurrency: true }, () => {
  test('case-sensitive: "needle" does not match "Needle"', async () => {
    const S = await site({ '/': { body: page('s', ['/b'], 'the needle is here') }, '/b': { body: 'x\nthe Needle is here\n' } });
    assertOutput(await kh([`${S.origin}/`, 'Needle']), [PAGE(S, '/', 200), LINK(S, '/b', 'follow'), PAGE(S, '/b', 200), FOUND(S, '/b', 'the Needle is here')]);
  });

  test('lines end in \\n or \\r\\n; line= is the line exactly, without its line end; a last line without one counts', async () => {
    const S = await site({
      '/crlf': { body: 'one\r\n  <b>two</b> CRKEY; a=b\t\r\nthree\r\n' },
      '/lf': { body: 'one\n<i>LFKEY</i>\nthree\n' },
      '/last': { body: 'one\r\nno end LASTKEY' },
    });
    assertOutput(await kh([`${S.origin}/crlf`, 'CRKEY']), [PAGE(S, '/crlf', 200), FOUND(S, '/crlf', '  <b>two</b> CRKEY; a=b\t')]);
    assertOutput(await kh([`${S.origin}/lf`, 'LFKEY']), [PAGE(S, '/lf', 200), FOUND(S, '/lf', '<i>LFKEY</i>')]);
    assertOutput(await kh([`${S.origin}/last`, 'LASTKEY']), [PAGE(S, '/last', 200), FOUND(S, '/last', 'no end LASTKEY')]);
  });

  test('line= is printed byte for byte (tags, entities, non-UTF-8 bytes) and is the first line holding the keyword', async () => {
    const line = Buffer.concat([Buffer.from('<p class="x">caf'), Buffer.from([0xe9, 0xff]), Buffer.from(' BYTEKEY &amp; <a href="/k.html">k</a></p>')]);
    const S = await site({ '/': { body: Buffer.concat([Buffer.from('first\n'), line, Buffer.from('\nsecond BYTEKEY\n')]) } });
    const r = await kh([`${S.origin}/`, 'BYTEKEY']);
    assert.equal(r.code, 0);
    const expected = Buffer.concat([Buffer.from(`${PAGE(S, '/', 200)}\nFOUND_KEYWORD:host=127.0.0.1;port=${S.port};respath=/;line=`), line, Buffer.from('\n')]);
    assert.deepEqual(r.stdoutBytes, expected);
  });

  test('only the body is searched: a keyword in a header or the reason phrase is not found', async () => {
    const S = await site({ '/': { headers: { 'x-note': 'HDRKEY' }, body: 'body without it\n' } });
    assertOutput(await kh([`${S.origin}/`, 'HDRKEY']), [PAGE(S, '/', 200), NOT_FOUND]);
    const R = await startRawSite({ '/': 'HTTP/1.1 200 HDRKEY\r\nX-Too: HDRKEY\r\nContent-Length: 5\r\n\r\nplain' });
    servers.push(R);
    assertOutput(await kh([`${R.origin}/`, 'HDRKEY']), [PAGE(R, '/', 200), NOT_FOUND]);
  });

  test('the keyword lies on one line: one spanning a line end, or taking the CR of a CRLF, is not found', async () => {
    const S = await site({ '/': { body: 'left side\nright side\r\nxa\r\n' }, '/cr': { body: 'xa\r\nya\rz\n' } });
    assertOutput(await kh([`${S.origin}/`, 'side\nright']), [PAGE(S, '/', 200), NOT_FOUND]);
    assertOutput(await kh([`${S.origin}/`, 'side\r']), [PAGE(S, '/', 200), NOT_FOUND]);
    // A lone CR is not a line end: "ya\rz" is one line and holds "a\r".
    assertOutput(await kh([`${S.origin}/cr`, 'a\r']), [PAGE(S, '/cr', 200), FOUND(S, '/cr', 'ya\rz')]);
  });

  test('a keyword of 100 characters (the most allowed) is found', async () => {
    const key = 'K'.repeat(50) + ' = ;'.repeat(12) + 'Z'.repeat(2);
    assert.equal(key.length, 100);
    const S = await site({ '/': { body: `a\n[${key}]\nb\n` } });
    assertOutput(await kh([`${S.origin}/`, key]), [PAGE(S, '/', 200), FOUND(S, '/', `[${key}]`)]);
  });
});
