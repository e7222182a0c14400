/**
 * ./KeywordHunter end to end, OutputDir (the spec's sections 1 and 3.5, FAQ 1
 * "only the body should be saved", spec decisions "KeywordHunter": OutputDir,
 * Saving): created if missing, flat file names from the last path segment,
 * clashes suffixed and never overwritten, unsafe names kept inside, bodies
 * byte for byte, and an unusable OutputDir refused before any request.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertOutput, FOUND, kh, LINK, NOT_FOUND, PAGE } from '../helpers/kh-harness.js';
import { startRawSite } from '../helpers/kh-raw.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('kh-e2e-');

const servers: Array<{ close(): Promise<void> }> = [];
async function site(routes: Record<string, Route>): Promise<SiteServer> {
  const s = await startSite(routes);
  servers.push(s);
  return s;
}
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** name -> contents of every entry of `dir` (all must be regular files). */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir).sort()) {
    assert.ok(lstatSync(join(dir, name)).isFile(), `${name} is a regular file`);
    out.set(name, readFileSync(join(dir, name), 'latin1'));
  }
  return out;
}

/** Every byte value, CR, LF, CRLF and NUL runs: a body no text handling would leave alone. */
const BINARY = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from('\r\n\r\0\0\n\xff\xfe', 'latin1'), Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i))]);

describe('KeywordHunter OutputDir', { concurrency: true }, () => {
  test('created if missing; each page named by its last path segment, "" as index.html; a clash gets a suffix and never overwrites', async () => {
    const S = await site({
      '/photos/january.html': { body: page('january', ['/', '/dir/', '/other/january.html', '/q.html?x=1', '/noext', '/nf.html', '/moved.html']) },
      '/': { body: 'root page\n' },
      '/dir/': { body: 'dir page\n' },
      '/other/january.html': { body: 'the other january\n' },
      '/q.html?x=1': { body: 'query page\n' },
      '/noext': { body: 'no extension\n' },
      '/nf.html': { status: 404, body: 'not found body\n' },
      '/moved.html': { status: 301, headers: { location: '/target.html' }, body: 'redirect body\n' },
      '/target.html': { body: 'target page\n' },
    });
    const dir = join(tempDir(), 'made', 'by', 'KeywordHunter');
    const r = await kh([`${S.origin}/photos/january.html`, 'NoSuchKeyword', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.endsWith(`${PAGE(S, '/target.html', 200)}\n${NOT_FOUND}\n`), r.stdout);
    assert.deepEqual(
      files(dir),
      new Map([
        ['index-2.html', 'dir page\n'],
        ['index.html', 'root page\n'],
        ['january-2.html', 'the other january\n'],
        ['january.html', page('january', ['/', '/dir/', '/other/january.html', '/q.html?x=1', '/noext', '/nf.html', '/moved.html'])],
        ['noext', 'no extension\n'],
        ['q.html', 'query page\n'],
        ['target.html', 'target page\n'],
      ]),
      'the 404 and the redirect bodies are not saved; nothing overwritten',
    );
  });

  test('a name that would escape (.., %2e%2e, %2f, %5c, NUL, a leading dot, 300 characters) is made safe and stays inside', async () => {
    const paths = [
      '/x/..%2f..%2fpwned.html',
      '/%2e%2e',
      '/%2E%2E/',
      '/a%2fb.html',
      '/..%5C..%5Cwin.html',
      '/%00nul.html',
      '/.hidden',
      '/x/%2e%2e/%2e%2e/up.html',
      `/${'n'.repeat(300)}.html`,
    ];
    const routes: Record<string, Route> = { '/start': { body: page('start', paths) } };
    paths.forEach((p, i) => (routes[p] = { body: `body ${i}\n` }));
    const S = await site(routes);
    const parent = tempDir();
    const dir = join(parent, 'out');
    assertOutput(await kh([`${S.origin}/start`, 'NoSuchKeyword', dir]), [
      PAGE(S, '/start', 200),
      ...paths.map((p) => LINK(S, p, 'follow')),
      ...paths.map((p) => PAGE(S, p, 200)),
      NOT_FOUND,
    ]);
    assert.deepEqual(readdirSync(parent), ['out'], 'nothing written beside OutputDir');
    const saved = files(dir);
    for (const name of saved.keys()) {
      assert.ok(!/[/\\\0]/.test(name) && name !== '.' && name !== '..' && !name.startsWith('.'), `safe name: ${JSON.stringify(name)}`);
      assert.ok(Buffer.byteLength(name) <= 255, `name fits a file system: ${name.length} characters`);
    }
    assert.deepEqual([...saved.values()].sort(), [page('start', paths), ...paths.map((_, i) => `body ${i}\n`)].sort(), 'each page saved once, none overwritten');
  });

  test('only the body is saved, byte for byte: binary bytes, with Content-Length and with chunked framing removed', async () => {
    const S = await site({ '/bin.dat': { headers: { 'content-type': 'application/octet-stream' }, body: BINARY } });
    const half = BINARY.length >> 1;
    const R = await startRawSite({
      '/chunked.bin': Buffer.concat([
        Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Header: not-in-file\r\n\r\n${half.toString(16)}\r\n`),
        BINARY.subarray(0, half),
        Buffer.from(`\r\n${(BINARY.length - half).toString(16)}\r\n`),
        BINARY.subarray(half),
        Buffer.from('\r\n0\r\n\r\n'),
      ]),
    });
    servers.push(R);
    const dir = tempDir();
    assertOutput(await kh([`${S.origin}/bin.dat`, 'NoSuchKeyword', dir]), [PAGE(S, '/bin.dat', 200), NOT_FOUND]);
    assertOutput(await kh([`${R.origin}/chunked.bin`, 'NoSuchKeyword', dir]), [PAGE(R, '/chunked.bin', 200), NOT_FOUND]);
    assert.deepEqual(readFileSync(join(dir, 'bin.dat')), BINARY);
    assert.deepEqual(readFileSync(join(dir, 'chunked.bin')), BINARY);
  });

  test('a long body that is not HTML is read whole all the same (the crawler alone leaves such bodies unread): searched and saved', async () => {
    const long = Buffer.concat([Buffer.alloc(200 * 1024, 0x2e), Buffer.from('\nLONGKEY at the end\n')]);
    const S = await site({ '/long.bin': { headers: { 'content-type': 'application/octet-stream' }, body: long } });
    const dir = tempDir();
    assertOutput(await kh([`${S.origin}/long.bin`, 'LONGKEY', dir]), [PAGE(S, '/long.bin', 200), FOUND(S, '/long.bin', 'LONGKEY at the end')]);
    assert.deepEqual(readFileSync(join(dir, 'long.bin')), long);
  });

  test('the page holding the keyword is saved too', async () => {
    const S = await site({ '/': { body: page('s', ['/found.html']) }, '/found.html': { body: 'x\nSAVEDKEY\n' } });
    const dir = tempDir();
    assertOutput(await kh([`${S.origin}/`, 'SAVEDKEY', dir]), [PAGE(S, '/', 200), LINK(S, '/found.html', 'follow'), PAGE(S, '/found.html', 200), FOUND(S, '/found.html', 'SAVEDKEY')]);
    assert.deepEqual(files(dir), new Map([['found.html', 'x\nSAVEDKEY\n'], ['index.html', page('s', ['/found.html'])]]));
  });

  test('without OutputDir nothing is written (the working directory stays empty)', async () => {
    const S = await site({ '/': { body: page('s', ['/a.html']) }, '/a.html': { body: 'a\n' } });
    const cwd = tempDir();
    const r = await kh([`${S.origin}/`, 'NoSuchKeyword'], { cwd });
    assertOutput(r, [PAGE(S, '/', 200), LINK(S, '/a.html', 'follow'), PAGE(S, '/a.html', 200), NOT_FOUND]);
    assert.deepEqual(readdirSync(cwd), []);
  });

  test('an OutputDir that is an existing file, or cannot be created: exit 1 before any request (the server receives nothing)', async () => {
    const S = await site({ '/': { body: 'page\n' } });
    const parent = tempDir();
    const file = join(parent, 'a-file');
    writeFileSync(file, 'keep me');
    for (const bad of [file, join(file, 'sub')]) {
      const r = await kh([`${S.origin}/`, 'NoSuchKeyword', bad]);
      assert.equal(r.code, 1, `exit 1 for ${bad}`);
      assert.equal(r.stdout, '', 'nothing on stdout');
      assert.match(r.stderr, /OutputDir/);
    }
    assert.equal(readFileSync(file, 'utf8'), 'keep me');
    assert.deepEqual(S.requests, [], 'no request at all, not even robots.txt');
    assert.equal(S.connections, 0);
  });
});
