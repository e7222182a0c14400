/**
 * ./crawler end to end, links (spec decisions "crawler": Depth, Order,
 * Internal, URL identity, Log): a site with every link form, crawled at
 * maxDepth 0 to 3. Checks the exact (URL, depth) set under IDs 1..N in
 * breadth-first, document order, the CS50 log line for line, and that
 * external servers (another port, another loopback address) get no request.
 * Also: --internal, two-digit depths, odd and hostile hrefs (no forged or
 * broken log line), --quiet, --json, --max-pages.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl } from '../helpers/crawler-e2e.js';
import { cs50Line, parseLog, urlsWith } from '../helpers/cs50-log.js';
import { assertDenseIds, pageList, readPages } from '../helpers/page-files.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('crawler-e2e-');

let site: SiteServer;
let extPort: SiteServer; // same address, another port
let extAddr: SiteServer; // another loopback address
let O: string; // the site's origin

/** The seed page's links, in document order, and what each must be logged as at depth 0. */
function seedLinks(): Array<{ href: string; url: string; action: 'Added' | 'IgnDupl' | 'IgnExtrn' }> {
  return [
    { href: '"dq.html"', url: `${O}/links/dq.html`, action: 'Added' },
    { href: "'sq.html'", url: `${O}/links/sq.html`, action: 'Added' },
    { href: 'nq.html', url: `${O}/links/nq.html`, action: 'Added' },
    { href: '"upper.html"', url: `${O}/links/upper.html`, action: 'Added' }, // <A HREF=...>
    { href: ' = "ws.html" ', url: `${O}/links/ws.html`, action: 'Added' },
    { href: '"q.html?a=1&amp;b=2"', url: `${O}/links/q.html?a=1&b=2`, action: 'Added' },
    { href: '"./dot.html"', url: `${O}/links/dot.html`, action: 'Added' },
    { href: '"../up.html"', url: `${O}/up.html`, action: 'Added' },
    { href: '"/root.html"', url: `${O}/root.html`, action: 'Added' },
    { href: `"${O}/links/abs.html"`, url: `${O}/links/abs.html`, action: 'Added' },
    { href: `"${O.replace('http', 'HTTP')}/links/abs.html"`, url: `${O}/links/abs.html`, action: 'IgnDupl' },
    { href: `"${O}/links/sub/../nq.html"`, url: `${O}/links/nq.html`, action: 'IgnDupl' },
    { href: '"dq.html#x"', url: `${O}/links/dq.html`, action: 'IgnDupl' },
    { href: '"#top"', url: `${O}/links/index.html`, action: 'IgnDupl' },
    { href: '"q.html?a=2"', url: `${O}/links/q.html?a=2`, action: 'Added' },
    { href: '"base/index.html"', url: `${O}/links/base/index.html`, action: 'Added' },
    { href: `"${extAddr.origin}/e1.html"`, url: `${extAddr.origin}/e1.html`, action: 'IgnExtrn' },
    { href: `"${extPort.origin}/e2.html"`, url: `${extPort.origin}/e2.html`, action: 'IgnExtrn' },
    { href: `"${O.replace('http:', 'https:')}/links/tls.html"`, url: `${O.replace('http:', 'https:')}/links/tls.html`, action: 'IgnExtrn' },
  ];
}

function seedBody(): string {
  const anchors = seedLinks().map((l, i) => {
    if (l.href.startsWith(' =')) return `<a href${l.href}>link ${i}</a>`;
    if (l.href === '"upper.html"') return `<A HREF="upper.html">link ${i}</A>`;
    return `<a href=${l.href}>link ${i}</a>`;
  });
  return [
    '<!DOCTYPE html>',
    '<HTML><HEAD><TITLE>links <a href="title.html"></TITLE>',
    '<STYLE>/* <a href="style.html">style</a> */</STYLE>',
    `<script>var s = '<a href="script.html">script</a>';</script>`,
    '</HEAD><BODY>',
    anchors.slice(0, 10).join('\n'),
    '<!-- <a href="comment.html">in a comment</a> -->',
    anchors.slice(10).join('\n'),
    '</BODY></HTML>',
    '',
  ].join('\n');
}

/** Every page the crawl may save, in breadth-first order, with its depth. */
function bfs(): Array<[string, number]> {
  return [
    ['/links/index.html', 0],
    ['/links/dq.html', 1],
    ['/links/sq.html', 1],
    ['/links/nq.html', 1],
    ['/links/upper.html', 1],
    ['/links/ws.html', 1],
    ['/links/q.html?a=1&b=2', 1],
    ['/links/dot.html', 1],
    ['/up.html', 1],
    ['/root.html', 1],
    ['/links/abs.html', 1],
    ['/links/q.html?a=2', 1],
    ['/links/base/index.html', 1],
    ['/links/deep/d2.html', 2],
    ['/elsewhere/b1.html', 2],
    ['/links/deep/d3.html', 3],
  ];
}

function expectedPages(maxDepth: number): string[] {
  return bfs()
    .filter(([, d]) => d <= maxDepth)
    .map(([p, d], i) => `${i + 1} ${O}${p} ${d}`);
}

before(async () => {
  extPort = await startSite({ '/e2.html': { body: page('e2') } });
  extAddr = await startSite({ '/e1.html': { body: page('e1') } }, '127.0.0.2');
  const routes = new Map<string, Route>();
  site = await startSite(routes);
  O = site.origin;
  routes.set('/links/index.html', { body: seedBody() });
  routes.set('/links/dq.html', { body: page('dq', ['deep/d2.html', 'sq.html']) });
  for (const p of ['sq', 'nq', 'upper', 'ws', 'dot', 'abs']) routes.set(`/links/${p}.html`, { body: page(p) });
  routes.set('/links/q.html?a=1&b=2', { body: page('q1') });
  routes.set('/links/q.html?a=2', { body: page('q2') });
  routes.set('/up.html', { body: page('up') });
  routes.set('/root.html', { body: page('root') });
  routes.set('/links/base/index.html', { body: '<html><head><base href="/elsewhere/"></head><body><a href="b1.html">b1</a></body></html>\n' });
  routes.set('/elsewhere/b1.html', { body: page('b1') });
  routes.set('/links/deep/d2.html', { body: page('d2', ['d3.html']) });
  routes.set('/links/deep/d3.html', { body: page('d3', ['d4.html']) });
  routes.set('/links/deep/d4.html', { body: page('d4') });
  routes.set('/odd/index.html', {
    body: [
      '<a href="">self</a>',
      '<a href="  padded.html  ">padded</a>',
      `<a href="//${site.host}:${site.port}/proto-relative.html">protocol-relative</a>`,
      `<a href="${O}">no path</a>`,
      '<a href="tab\tin.html">tab</a>',
      '<a href="mailto:someone@example.com">mail</a>',
      '<a href="javascript:void(0)">js</a>',
      '<a href="data:text/html,hi">data</a>',
      '<a href="a b.html">space</a> <a href="a%20b.html">encoded space</a>',
      '<a href="\u00e9.html">e acute</a> <a href="%C3%A9.html">encoded e acute</a>',
    ].join('\n'),
  });
  routes.set('/hostile/index.html', {
    body: '<a href="http://x:99999/&#10; 0    Fetched: http://forged.example/">forge</a>\n<a href="ctl&#27;&#11;&#12;&#127;.html">controls</a>\n',
  });
  routes.set('/hostile/ctl%1B%0B%0C%7F.html', { body: page('controls') });
  for (const p of ['/odd/padded.html', '/proto-relative.html', '/', '/odd/tabin.html', '/odd/a%20b.html', '/odd/%C3%A9.html']) routes.set(p, { body: page(p) });
});

after(async () => {
  await Promise.all([site, extPort, extAddr].map((s) => s.close()));
});

const seed = (): string => `${O}/links/index.html`;

describe('link forms, depths 0 to 3', { concurrency: true }, () => {
  for (const maxDepth of [0, 1, 2, 3]) {
    test(`maxDepth ${maxDepth}: exactly the pages within depth ${maxDepth}, IDs 1..N breadth first in document order`, async () => {
      const dir = tempDir();
      const r = await crawl(['--delay', '0', seed(), dir, String(maxDepth)]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(pageList(dir), expectedPages(maxDepth));
      assertDenseIds(dir);
      const log = parseLog(r.stdout);
      assert.deepEqual(
        log.filter((l) => l.word === 'Fetched').map((l) => `${l.depth} ${l.url}`),
        bfs()
          .filter(([, d]) => d <= maxDepth)
          .map(([p, d]) => `${d} ${O}${p}`),
        'one Fetched line per saved page, in ID order',
      );
      // Pages at maxDepth are fetched but not scanned.
      assert.deepEqual(
        urlsWith(log, 'Scanning'),
        bfs()
          .filter(([, d]) => d < maxDepth)
          .map(([p]) => `${O}${p}`),
      );
    });
  }

  test('maxDepth 1: the whole log, line for line (Found then Added/IgnDupl/IgnExtrn per link; pages at maxDepth only Fetched)', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', seed(), dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    const want = [cs50Line(0, 'Fetched', seed()), cs50Line(0, 'Scanning', seed())];
    for (const l of seedLinks()) want.push(cs50Line(0, 'Found', l.url), cs50Line(0, l.action, l.url));
    for (const [p, d] of bfs()) if (d === 1) want.push(cs50Line(1, 'Fetched', `${O}${p}`));
    assert.equal(r.stdout, want.join('\n') + '\n');
  });

  test('maxDepth 2: a depth-1 page logs its links indented one column, a duplicate at depth 1 is IgnDupl', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', seed(), dir, '2']);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n');
    const at = lines.indexOf(cs50Line(1, 'Scanning', `${O}/links/dq.html`));
    assert.ok(at > 0, 'dq.html is scanned at depth 1');
    assert.deepEqual(lines.slice(at - 1, at + 5), [
      cs50Line(1, 'Fetched', `${O}/links/dq.html`),
      cs50Line(1, 'Scanning', `${O}/links/dq.html`),
      cs50Line(1, 'Found', `${O}/links/deep/d2.html`),
      cs50Line(1, 'Added', `${O}/links/deep/d2.html`),
      cs50Line(1, 'Found', `${O}/links/sq.html`),
      cs50Line(1, 'IgnDupl', `${O}/links/sq.html`),
    ]);
    assert.equal(lines[at - 1], ' 1    Fetched: ' + `${O}/links/dq.html`, 'literal layout: depth, space, one indent, word in 9 columns');
    assert.ok(lines.includes(cs50Line(1, 'Added', `${O}/elsewhere/b1.html`)), '<base href> applies to the links after it');
  });

  test('links inside comments, <script>, <style> and <title> are not found, and never requested', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', seed(), dir, '3']);
    assert.equal(r.code, 0, r.stderr);
    for (const name of ['comment', 'script', 'style', 'title']) {
      assert.ok(!r.stdout.includes(`${name}.html`), `${name}.html not in the log`);
      assert.ok(!site.paths().some((p) => p.includes(`${name}.html`)), `${name}.html not requested`);
    }
    assert.ok(!site.paths().includes('/links/deep/d4.html'), 'a page beyond maxDepth is never requested');
  });
});

describe('external links', () => {
  test('another port and another loopback address: IgnExtrn, and those servers get no request at all, not even robots.txt', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', seed(), dir, '3']);
    assert.equal(r.code, 0, r.stderr);
    const log = parseLog(r.stdout);
    assert.deepEqual(urlsWith(log, 'IgnExtrn'), [`${extAddr.origin}/e1.html`, `${extPort.origin}/e2.html`, `${O.replace('http:', 'https:')}/links/tls.html`]);
    assert.deepEqual(extPort.paths(), []);
    assert.deepEqual(extAddr.paths(), []);
    assert.equal(extPort.connections + extAddr.connections, 0, 'no connection either');
  });

  test('--internal PREFIX with a path: links outside the prefix are IgnExtrn and not requested', async () => {
    const own = await startSite({
      '/a/index.html': { body: page('a', ['x.html', '/b/y.html', '../b/z.html', '/a2/w.html', 'sub/v.html']) },
      '/a/x.html': { body: page('x') },
      '/a/sub/v.html': { body: page('v') },
      '/b/y.html': { body: page('y') },
      '/b/z.html': { body: page('z') },
      '/a2/w.html': { body: page('w') },
    });
    try {
      const dir = tempDir();
      const r = await crawl(['--delay', '0', '--internal', `${own.origin}/a/`, `${own.origin}/a/index.html`, dir, '2']);
      assert.equal(r.code, 0, r.stderr);
      const log = parseLog(r.stdout);
      assert.deepEqual(urlsWith(log, 'IgnExtrn'), ['/b/y.html', '/b/z.html', '/a2/w.html'].map((p) => `${own.origin}${p}`));
      assert.deepEqual(pageList(dir), [`1 ${own.origin}/a/index.html 0`, `2 ${own.origin}/a/x.html 1`, `3 ${own.origin}/a/sub/v.html 1`]);
      assert.deepEqual(own.paths(), ['/robots.txt', '/a/index.html', '/a/x.html', '/a/sub/v.html'], 'robots.txt of the server is still fetched; nothing outside the prefix');
    } finally {
      await own.close();
    }
  });
});

test('depths of two digits: a chain of 12 pages with --depth-limit 11, lines at depth 10 and 11 as printf("%2d %*s%9s: %s") prints them', async () => {
  const chain = await startSite(new Map(Array.from({ length: 13 }, (_, i) => [`/c${i}.html`, { body: page(`c${i}`, [`c${i + 1}.html`]) }] as [string, Route])));
  try {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', '--depth-limit', '11', `${chain.origin}/c0.html`, dir, '11']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(pageList(dir), Array.from({ length: 12 }, (_, i) => `${i + 1} ${chain.origin}/c${i}.html ${i}`));
    const lines = r.stdout.split('\n');
    assert.ok(lines.includes(`10${' '.repeat(1 + 10 + 2)}Fetched: ${chain.origin}/c10.html`), 'depth 10: no leading space, 10 spaces of indent');
    assert.ok(lines.includes(`10${' '.repeat(1 + 10 + 4)}Added: ${chain.origin}/c11.html`));
    assert.equal(lines.at(-2), `11${' '.repeat(1 + 11 + 2)}Fetched: ${chain.origin}/c11.html`, 'the page at maxDepth 11 is only fetched');
    assert.ok(!chain.paths().includes('/c12.html'));
    parseLog(r.stdout);
  } finally {
    await chain.close();
  }
});

describe('odd links', { concurrency: true }, () => {
  const odd = (): string => `${O}/odd/index.html`;
  const crawlOdd = async (): Promise<{ stdout: string; lines: string[]; dir: string }> => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', odd(), dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    return { stdout: r.stdout, lines: r.stdout.split('\n'), dir };
  };

  test('empty href, padded href, protocol-relative, no path, tab inside, mailto:/javascript:/data: (IgnExtrn, never requested)', async () => {
    const { lines } = await crawlOdd();
    const want: Array<[string, string]> = [
      ['IgnDupl', odd()],
      ['Added', `${O}/odd/padded.html`],
      ['Added', `${O}/proto-relative.html`],
      ['Added', `${O}/`],
      ['Added', `${O}/odd/tabin.html`],
      ['IgnExtrn', 'mailto:someone@example.com'],
      ['IgnExtrn', 'javascript:void(0)'],
      ['IgnExtrn', 'data:text/html,hi'],
    ];
    for (const [word, url] of want) {
      const at = lines.indexOf(cs50Line(0, word, url));
      assert.ok(at > 0, `${word} ${url} in the log`);
      assert.equal(lines[at - 1], cs50Line(0, 'Found', url), `Found line before ${word} ${url}`);
    }
    assert.ok(!site.paths().some((p) => /mailto|javascript|data:/.test(p)));
  });

  test('a link with a raw space or non-ASCII and the same link percent-encoded are one URL: requested once, saved once', async () => {
    const { stdout, dir } = await crawlOdd();
    assert.equal(readPages(dir).length, 1 + 4 + 2, 'the seed, 4 plain links, each encoded resource once');
    parseLog(stdout); // every line, URLs included, in CS50 format: no raw space
    for (const p of readPages(dir)) assert.doesNotMatch(p.url, /[ \u0080-\uffff]/, `page file line 1 is a valid URL: ${p.url}`);
  });
});

test('hostile hrefs cannot forge or break log lines: a LF (&#10;) in an unusable link, ESC/VT/FF/DEL in a usable one are printed percent-encoded', async () => {
  const dir = tempDir();
  const r = await crawl(['--delay', '0', `${O}/hostile/index.html`, dir, '1']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n');
  assert.ok(!lines.some((l) => l.startsWith(' 0    Fetched: http://forged.example/')), 'no forged Fetched line');
  // eslint-disable-next-line no-control-regex
  assert.deepEqual(lines.filter((l) => /[\u0000-\u001f\u007f]/.test(l)), [], 'no control character in a log line');
  assert.equal(lines.length, 2 + 2 * 2 + 1, 'Fetched, Scanning, Found and a verdict for each of the 2 links, Fetched');
  assert.ok(lines.includes(cs50Line(0, 'Added', `${O}/hostile/ctl%1B%0B%0C%7F.html`)), r.stdout);
  assert.equal(lines.at(-1), cs50Line(1, 'Fetched', `${O}/hostile/ctl%1B%0B%0C%7F.html`));
});

describe('output modes and caps', { concurrency: true }, () => {
  test('--quiet: nothing on stdout, the same pages saved', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', '--quiet', seed(), dir, '2']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
    assert.deepEqual(pageList(dir), expectedPages(2));
  });

  test('--json: one JSON object per line with event, depth and url, the same events as the CS50 log', async () => {
    const [dirA, dirB] = [tempDir(), tempDir()];
    const [json, text] = await Promise.all([crawl(['--delay', '0', '--json', seed(), dirA, '2']), crawl(['--delay', '0', seed(), dirB, '2'])]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(text.code, 0, text.stderr);
    const events = json.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; depth: number; url: string });
    for (const e of events) {
      assert.equal(typeof e.event, 'string');
      assert.equal(typeof e.depth, 'number');
      assert.equal(typeof e.url, 'string');
    }
    assert.deepEqual(
      events.map((e) => `${e.depth} ${e.event} ${e.url}`),
      parseLog(text.stdout).map((l) => `${l.depth} ${l.word} ${l.url}`),
    );
    assert.deepEqual(pageList(dirA), expectedPages(2));
  });

  test('--max-pages 3: stops after 3 pages, IDs 1..3, exit 0', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', '--max-pages', '3', seed(), dir, '3']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(pageList(dir), expectedPages(3).slice(0, 3));
    assert.equal(urlsWith(parseLog(r.stdout), 'Fetched').length, 3);
  });
});
