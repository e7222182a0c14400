/**
 * ./KeywordHunter end to end, links and depth (the spec's section 3.4
 * "Parsing HTML", section 1 "depth", spec decisions "KeywordHunter": Links,
 * Depth, Actions), and https links followed over TLS. Whole stdout compared.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { as, assertOutput, FOUND, kh, LINK, NOT_FOUND, PAGE } from '../helpers/kh-harness.js';
import { page, startSite, startTlsSite, type Route, type SiteServer } from '../helpers/site-server.js';

const servers: Array<{ close(): Promise<void> }> = [];
async function site(routes: Record<string, Route> | Map<string, Route>, host?: string): Promise<SiteServer> {
  const s = await startSite(routes, host);
  servers.push(s);
  return s;
}
async function tlsSite(routes: Record<string, Route>): Promise<SiteServer> {
  const s = await startTlsSite(routes);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('KeywordHunter links', { concurrency: true }, () => {
  test('every link form of the spec: full URL, URL without a path, absolute path, relative (plain, ./, ../), fragment dropped, query kept', async () => {
    const S = await site(new Map());
    const o = S.origin;
    const body = [
      '<html><body>',
      `<a href="${o}/full.html">full</a>`,
      `<a href="${o}">no path</a>`,
      '<a href="/abs/path.html">absolute</a>',
      '<a href="rel.html">relative</a>',
      '<a href="./dot.html">dot</a>',
      '<a href="../up.html">up</a>',
      '<a href="../../../above-root.html">above the root</a>',
      '<a href="sub/deeper/x.html">down</a>',
      `<a href="${o}/a/../b/./c.html">dots in a full URL</a>`,
      '<a href="frag.html#section-2">fragment</a>',
      '<a href="q.html?a=1&amp;b=2#frag">query</a>',
      '<a href="?only=query">query only</a>',
      '</body></html>',
    ].join('\n');
    S.routes.set('/dir/sub/page.html', { body });
    const r = await kh([`${o}/dir/sub/page.html`, 'NoSuchKeyword']);
    const followed = [
      '/full.html',
      '/index.html',
      '/abs/path.html',
      '/dir/sub/rel.html',
      '/dir/sub/dot.html',
      '/dir/up.html',
      '/above-root.html',
      '/dir/sub/sub/deeper/x.html',
      '/b/c.html',
      '/dir/sub/frag.html',
      // No entity decoding: the spec takes the text up to the quote as written.
      '/dir/sub/q.html?a=1&amp;b=2',
      '/dir/sub/page.html?only=query',
    ];
    assertOutput(r, [
      PAGE(S, '/dir/sub/page.html', 200),
      ...followed.map((p) => LINK(S, p, 'follow')),
      ...followed.map((p) => PAGE(S, p, 404)),
      NOT_FOUND,
    ]);
    assert.deepEqual(S.paths(), ['/robots.txt', '/dir/sub/page.html', ...followed]);
  });

  test('several links on one line, links inside comments, a link repeated on the page and links back to the page', async () => {
    const S = await site({
      '/p/start.html': {
        body:
          '<p><a href="one.html">1</a> and <a href="two.html">2</a><a href="three.html">3</a></p>\n' +
          '<!-- <a href="commented.html">hidden but a link</a> -->\n' +
          '<a href="one.html">again</a> <a href="#top">self</a> <a href="">empty</a> <a href="start.html#x">self</a>\n',
      },
    });
    const r = await kh([`${S.origin}/p/start.html`, 'NoSuchKeyword']);
    assertOutput(r, [
      PAGE(S, '/p/start.html', 200),
      LINK(S, '/p/one.html', 'follow'),
      LINK(S, '/p/two.html', 'follow'),
      LINK(S, '/p/three.html', 'follow'),
      LINK(S, '/p/commented.html', 'follow'),
      LINK(S, '/p/one.html', 'already_seen_ignore'),
      LINK(S, '/p/start.html', 'already_seen_ignore'),
      LINK(S, '/p/start.html', 'already_seen_ignore'),
      LINK(S, '/p/start.html', 'already_seen_ignore'),
      PAGE(S, '/p/one.html', 404),
      PAGE(S, '/p/two.html', 404),
      PAGE(S, '/p/three.html', 404),
      PAGE(S, '/p/commented.html', 404),
      NOT_FOUND,
    ]);
  });

  test('only a href="..." matches: A HREF, single quotes, no quotes, extra spaces, a link cut by a line end give no LINK line', async () => {
    // The match is a plain substring search, so <area href="..."> holds the pattern too.
    const S = await site({
      '/': {
        body:
          '<A HREF="upper.html">x</A> <a HREF="mixed.html">x</a> <a href=\'single.html\'>x</a> <a href=bare.html>x</a>\n' +
          '<a  href="twospaces.html">x</a> <a href = "spaced.html">x</a> <link href="style.css"> <area href="area.html">\n' +
          '<a href="cut\nacross.html">x</a> <a href="ok.html">ok</a>\n',
      },
    });
    const r = await kh([`${S.origin}/`, 'NoSuchKeyword']);
    assertOutput(r, [
      PAGE(S, '/', 200),
      LINK(S, '/area.html', 'follow'),
      LINK(S, '/ok.html', 'follow'),
      PAGE(S, '/area.html', 404),
      PAGE(S, '/ok.html', 404),
      NOT_FOUND,
    ]);
    assert.deepEqual(S.paths(), ['/robots.txt', '/', '/area.html', '/ok.html']);
  });

  test('mailto:, ftp:, javascript: (and other non-http schemes) give no LINK line and no request', async () => {
    const S = await site({
      '/': {
        body:
          '<a href="mailto:someone@example.com">m</a> <a href="ftp://127.0.0.1/file.txt">f</a>\n' +
          '<a href="javascript:void(0)">j</a> <a href="JavaScript:alert(1)">J</a> <a href="tel:+1555">t</a> <a href="data:text/html,hi">d</a>\n' +
          '<a href="after.html">after</a>\n',
      },
    });
    const r = await kh([`${S.origin}/`, 'NoSuchKeyword']);
    assertOutput(r, [PAGE(S, '/', 200), LINK(S, '/after.html', 'follow'), PAGE(S, '/after.html', 404), NOT_FOUND]);
  });

  test('breadth first: LINK and PAGE lines in the order pages are met, each URL followed once', async () => {
    const S = await site({
      '/s': { body: page('S', ['/b1', '/b2', '/b3']) },
      '/b1': { body: page('B1', ['/c1', '/b2']) },
      '/b2': { body: page('B2', ['/c2', '/c1']) },
      '/b3': { body: page('B3') },
      '/c1': { body: page('C1', ['/s']) },
      '/c2': { body: page('C2', [], 'BFSKEY') },
    });
    const r = await kh([`${S.origin}/s`, 'BFSKEY']);
    assertOutput(r, [
      PAGE(S, '/s', 200),
      LINK(S, '/b1', 'follow'),
      LINK(S, '/b2', 'follow'),
      LINK(S, '/b3', 'follow'),
      PAGE(S, '/b1', 200),
      LINK(S, '/c1', 'follow'),
      LINK(S, '/b2', 'already_seen_ignore'),
      PAGE(S, '/b2', 200),
      LINK(S, '/c2', 'follow'),
      LINK(S, '/c1', 'already_seen_ignore'),
      PAGE(S, '/b3', 200),
      PAGE(S, '/c1', 200),
      LINK(S, '/s', 'already_seen_ignore'),
      PAGE(S, '/c2', 200),
      FOUND(S, '/c2', 'BFSKEY'),
    ]);
  });
});

describe('KeywordHunter depth (StartURL is depth 1, the limit is 5)', { concurrency: true }, () => {
  /** /d1 -> /d2 -> ... -> /d6, each page also linking back to /d1. */
  async function chain(keyAt: number): Promise<SiteServer> {
    const routes: Record<string, Route> = {};
    for (let d = 1; d <= 6; d++) routes[`/d${d}`] = { body: page(`depth ${d}`, d < 6 ? [`/d${d + 1}`, '/d1'] : ['/d7'], d === keyAt ? 'DEPTHKEY here' : '') };
    return site(routes);
  }
  const upTo = (S: SiteServer, last: number): string[] => {
    const lines: string[] = [];
    for (let d = 1; d <= last; d++) {
      lines.push(PAGE(S, `/d${d}`, 200));
      if (d < 5 && d < last) lines.push(LINK(S, `/d${d + 1}`, 'follow'), LINK(S, '/d1', 'already_seen_ignore'));
    }
    return lines;
  };

  test('a keyword on a depth-5 page is found', async () => {
    const S = await chain(5);
    assertOutput(await kh([`${S.origin}/d1`, 'DEPTHKEY']), [...upTo(S, 5), FOUND(S, '/d5', 'DEPTHKEY here')]);
  });

  test('a keyword on a depth-6 page is not found: depth-5 pages print no LINK lines and depth 6 is never requested', async () => {
    const S = await chain(6);
    assertOutput(await kh([`${S.origin}/d1`, 'DEPTHKEY']), [...upTo(S, 5), NOT_FOUND]);
    assert.deepEqual(S.paths(), ['/robots.txt', '/d1', '/d2', '/d3', '/d4', '/d5']);
  });

  test('depth counts links, not hosts: a chain across two hosts stops at depth 5 too', async () => {
    const A = await site(new Map());
    const B = await site(new Map(), '127.0.0.2');
    const hostOf = (d: number): SiteServer => (d % 2 === 1 ? A : B);
    for (let d = 1; d <= 6; d++) {
      const next = hostOf(d + 1);
      hostOf(d).routes.set(`/d${d}`, { body: page(`d${d}`, [`http://${next.host}:${next.port}/d${d + 1}`], d === 6 ? 'DEPTHKEY' : '') });
    }
    const expected: string[] = [];
    for (let d = 1; d <= 5; d++) {
      expected.push(PAGE(hostOf(d), `/d${d}`, 200));
      if (d < 5) expected.push(LINK(hostOf(d + 1), `/d${d + 1}`, 'follow'));
    }
    assertOutput(await kh([`${A.origin}/d1`, 'DEPTHKEY']), [...expected, NOT_FOUND]);
    assert.deepEqual(B.paths(), ['/robots.txt', '/d2', '/d4']);
  });
});

describe('KeywordHunter https links (self-signed test certificate, so --insecure)', { concurrency: true }, () => {
  test('https links are followed over TLS (robots.txt too) and searched; port 443 is the default', async () => {
    const T = await tlsSite({
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private/\n' },
      '/secure.html': { body: page('secure', ['/private/x.html', 'next.html']) },
      '/next.html': { body: '<p>over TLS: TLSKEY</p>\n' },
    });
    const S = await site({ '/': { body: page('start', [`https://127.0.0.1:${T.port}/secure.html`, 'https://x.invalid/tls.html']) } });
    const r = await kh(['--insecure', '--connect-timeout', '3', `${S.origin}/`, 'TLSKEY']);
    assertOutput(r, [
      PAGE(S, '/', 200),
      LINK(T, '/secure.html', 'follow'),
      LINK({ host: 'x.invalid', port: 443 }, '/tls.html', 'follow'),
      PAGE(T, '/secure.html', 200),
      LINK(T, '/private/x.html', 'robots_ignore'),
      LINK(T, '/next.html', 'follow'),
      PAGE({ host: 'x.invalid', port: 443 }, '/tls.html', 0),
      PAGE(T, '/next.html', 200),
      FOUND(T, '/next.html', '<p>over TLS: TLSKEY</p>'),
    ]);
    assert.deepEqual(T.paths(), ['/robots.txt', '/secure.html', '/next.html']);
    assert.equal(T.connections, 1, 'one kept-alive TLS connection');
    assert.equal(T.requests[0]?.headers['user-agent'], 'ee122-KeywordHunter');
  });

  test('an https StartURL on localhost works; without --insecure the self-signed certificate is refused (status=0)', async () => {
    const T = await tlsSite({ '/index.html': { body: 'TLSKEY2\n' } });
    const t = as('localhost', T);
    assertOutput(await kh(['--insecure', `https://localhost:${T.port}`, 'TLSKEY2']), [PAGE(t, '/index.html', 200), FOUND(t, '/index.html', 'TLSKEY2')]);
    const r = await kh([`https://localhost:${T.port}/index.html`, 'TLSKEY2']);
    assertOutput(r, [PAGE(t, '/index.html', 0), NOT_FOUND]);
    assert.match(r.stderr, /TLS|certificate/i);
  });
});
