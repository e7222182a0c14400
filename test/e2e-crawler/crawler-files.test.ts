/**
 * ./crawler end to end, the page directory (spec decisions "Bytes are
 * sacred", "Nothing is lost", "crawler": pageDirectory, Page file, Exit):
 * page files byte-identical to what was served, an earlier crawl replaced
 * (stale numbered files removed, other files untouched), the `.crawler`
 * marker, and SIGINT: exit 130 with every page written so far intact.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { crawl } from '../helpers/crawler-e2e.js';
import { parseLog, urlsWith } from '../helpers/cs50-log.js';
import { numberedFiles, pageList, readPages } from '../helpers/page-files.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { MARKER, MARKER_TEXT } from '../../src/sink/tse-pagedir.js';
import { startProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('crawler-e2e-');

const sites: SiteServer[] = [];
after(async () => {
  await Promise.all(sites.map((s) => s.close()));
});

async function serve(routes: Record<string, Route> | Map<string, Route>): Promise<SiteServer> {
  const s = await startSite(routes);
  sites.push(s);
  return s;
}

/** Every byte value, CRLF line ends, bytes that are not UTF-8. */
const ALL_BYTES = Buffer.concat([
  Buffer.from('<html>\r\n<head><title>bytes</title></head>\r\n<body>\r\n<a href="next.html">n\xe9xt</a>\r\n', 'latin1'),
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from('\r\n\xff\xfe\x80\x81 caf\xe9 \xc3(\r\n</body></html>\r\n', 'latin1'),
]);
/** 1 MiB of pseudo-random bytes inside a page. */
const BIG = (() => {
  const b = Buffer.alloc(1 << 20);
  let x = 12345;
  for (let i = 0; i < b.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return Buffer.concat([Buffer.from('<html><body>'), b, Buffer.from('</body></html>')]);
})();

describe('page files', { concurrency: true }, () => {
  test('each file is URL\\nDEPTH\\nBODY with the body byte for byte as served (all 256 byte values, CRLF, chunked, empty, 1 MiB)', async () => {
    const s = await serve({
      '/index.html': { headers: { 'content-type': 'text/html; charset=iso-8859-1' }, body: ALL_BYTES },
      '/next.html': { body: page('next', ['chunked.html', 'empty.html', 'big.html']) },
      '/chunked.html': {
        handle: (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html' }); // no Content-Length: chunked
          res.write(ALL_BYTES.subarray(0, 100));
          res.write(ALL_BYTES.subarray(100, 101));
          setTimeout(() => res.end(ALL_BYTES.subarray(101)), 20);
        },
      },
      '/empty.html': { body: '' },
      '/big.html': { body: BIG },
    });
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '2']);
    assert.equal(r.code, 0, r.stderr);
    const want: Array<[string, number, Buffer]> = [
      ['/index.html', 0, ALL_BYTES],
      ['/next.html', 1, Buffer.from(page('next', ['chunked.html', 'empty.html', 'big.html']))],
      ['/chunked.html', 2, ALL_BYTES],
      ['/empty.html', 2, Buffer.alloc(0)],
      ['/big.html', 2, BIG],
    ];
    assert.deepEqual(numberedFiles(dir), ['1', '2', '3', '4', '5']);
    const files = readPages(dir);
    for (const [i, [path, depth, body]] of want.entries()) {
      const file = files[i]!.raw;
      const expected = Buffer.concat([Buffer.from(`${s.origin}${path}\n${depth}\n`), body]);
      assert.ok(file.equals(expected), `file ${i + 1} (${path}): ${file.length} bytes, want ${expected.length}, first difference at ${file.findIndex((b, k) => b !== expected[k])}`);
    }
  });

  test('the directory gets a .crawler marker; no temporary file remains', async () => {
    const s = await serve({ '/index.html': { body: page('one') } });
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '0']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(dir, '.crawler')), '.crawler marker present');
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-')), []);
    assert.deepEqual(pageList(dir), [`1 ${s.origin}/index.html 0`]);
  });
});

describe('a new crawl replaces an earlier one', { concurrency: true }, () => {
  test('an earlier crawl of ours: the numbered files its state records that the new crawl did not write are removed, stderr says so, other files untouched', async () => {
    const ten = Array.from({ length: 9 }, (_, i) => `old${i + 2}.html`);
    const routes: Record<string, Route> = { '/index.html': { body: page('index', ['a.html', 'b.html']) }, '/a.html': { body: page('a') }, '/b.html': { body: page('b') } };
    routes['/old.html'] = { body: page('old', ten) };
    for (const l of ten) routes[`/${l}`] = { body: page(l) };
    const s = await serve(routes);
    const dir = tempDir();
    const first = await crawl(['--delay', '0', `${s.origin}/old.html`, dir, '1']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(numberedFiles(dir).length, 10);
    const others: Record<string, string> = { 'notes.txt': 'mine\n', 'index.html': '<p>not a page file</p>', '007': 'leading zero', '0': 'zero', '.hidden': 'h', '12.bak': 'backup' };
    for (const [n, text] of Object.entries(others)) writeFileSync(join(dir, n), text);
    mkdirSync(join(dir, 'keep'));
    writeFileSync(join(dir, 'keep', '5'), 'inside a subdirectory');
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(pageList(dir).filter((l) => /^[1-9]/.test(l)), [`1 ${s.origin}/index.html 0`, `2 ${s.origin}/a.html 1`, `3 ${s.origin}/b.html 1`]);
    for (let i = 4; i <= 10; i++) assert.ok(!existsSync(join(dir, String(i))), `stale page file ${i} removed`);
    assert.match(r.stderr, /removed 7 page files/);
    for (const [n, text] of Object.entries(others)) assert.equal(readFileSync(join(dir, n), 'utf8'), text, `${n} untouched`);
    assert.equal(readFileSync(join(dir, 'keep', '5'), 'utf8'), 'inside a subdirectory');
    assert.ok(existsSync(join(dir, '.crawler')));
  });

  test('a real earlier crawl to depth 2, then a crawl to depth 0: one page left, the others removed', async () => {
    const s = await serve({ '/index.html': { body: page('index', ['a.html']) }, '/a.html': { body: page('a', ['b.html']) }, '/b.html': { body: page('b') } });
    const dir = tempDir();
    const first = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '2']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(numberedFiles(dir).length, 3);
    assert.doesNotMatch(first.stderr, /removed/, 'nothing to remove in a fresh directory');
    const second = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '0']);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(pageList(dir), [`1 ${s.origin}/index.html 0`]);
    assert.match(second.stderr, /removed 2 page files/);
  });

  test('a directory without our marker that holds a numbered file is not ours: exit 1 before any request, one line naming the file, nothing touched', async () => {
    const s = await serve({ '/index.html': { body: page('index', ['a.html']) }, '/a.html': { body: page('a') } });
    const dir = tempDir();
    const mine: Record<string, string> = { '99': 'my own notes, not a page\n', '1': 'my first file\n', 'notes.txt': 'mine\n' };
    for (const [n, text] of Object.entries(mine)) writeFileSync(join(dir, n), text);
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^crawler: pageDirectory ".*" holds "1" but no \.crawler marker .*--overwrite.*\n$/);
    assert.equal(r.stderr.split('\n').length, 2, 'one line');
    assert.equal(s.requests.length, 0, 'no request was made');
    assert.deepEqual(readdirSync(dir).sort(), Object.keys(mine).sort(), 'no file added, none removed');
    for (const [n, text] of Object.entries(mine)) assert.equal(readFileSync(join(dir, n), 'utf8'), text, `${n} untouched`);
  });

  test('someone else\'s .crawler or state file, with no numbered file, is refused too; files whose names are not numbers alone are crawled beside', async () => {
    const s = await serve({ '/index.html': { body: page('index') } });
    for (const name of ['.crawler', '.crawler-state.db']) {
      const dir = tempDir();
      writeFileSync(join(dir, name), 'not yours\n');
      const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '0']);
      assert.equal(r.code, 1, `${name}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`holds "${name.replace(/\./g, '\\.')}" but no`));
      assert.equal(readFileSync(join(dir, name), 'utf8'), 'not yours\n');
    }
    const dir = tempDir();
    const others: Record<string, string> = { 'notes.txt': 'mine\n', '007': 'leading zero', '0': 'zero', '12.bak': 'backup', '.tmp-notes': 'mine too' };
    for (const [n, text] of Object.entries(others)) writeFileSync(join(dir, n), text);
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '0']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(numberedFiles(dir).filter((n) => /^[1-9]/.test(n)), ['1']);
    for (const [n, text] of Object.entries(others)) assert.equal(readFileSync(join(dir, n), 'utf8'), text, `${n} untouched`);
  });

  test('--overwrite crawls into a directory that is not ours: its numbered files are replaced, other files untouched', async () => {
    const s = await serve({ '/index.html': { body: page('index', ['a.html']) }, '/a.html': { body: page('a') } });
    const dir = tempDir();
    for (const n of ['1', '5', '99']) writeFileSync(join(dir, n), `user file ${n}\n`);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    const r = await crawl(['--delay', '0', '--overwrite', `${s.origin}/index.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(pageList(dir).filter((l) => /^[1-9]/.test(l)), [`1 ${s.origin}/index.html 0`, `2 ${s.origin}/a.html 1`]);
    assert.deepEqual(numberedFiles(dir), ['1', '2']);
    assert.match(r.stderr, /removed 2 page files/);
    assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'mine\n');
    assert.equal(readFileSync(join(dir, MARKER), 'utf8'), MARKER_TEXT);
  });

  test('a crawl stopped by SIGINT before its first page still leaves the directory ours: running again, or --resume, is not refused', async () => {
    const s = await serve({ '/robots.txt': { body: 'User-agent: *\nAllow: /\n' }, '/index.html': { body: page('index') } });
    const dir = tempDir();
    // --delay 5: after robots.txt the seed waits its turn, and SIGINT ends the wait before the seed is requested.
    const { child, done } = startProgram('crawler', ['--delay', '5', `${s.origin}/index.html`, dir, '0'], { timeoutMs: 20_000 });
    while (!s.paths().includes('/robots.txt')) await sleep(20);
    await sleep(200);
    child.kill('SIGINT');
    const stopped = await done;
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.deepEqual(s.paths(), ['/robots.txt'], 'the seed was never requested');
    assert.deepEqual(numberedFiles(dir), []);
    assert.equal(readFileSync(join(dir, MARKER), 'utf8'), MARKER_TEXT, 'the marker stays: the directory is a crawl of ours');
    const resumed = await crawl(['--delay', '0', '--resume', `${s.origin}/index.html`, dir, '0']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(pageList(dir), [`1 ${s.origin}/index.html 0`]);
    const again = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '0']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(pageList(dir), [`1 ${s.origin}/index.html 0`]);
  });

  test('a directory whose name is a number is not a page file: left alone, the crawl still succeeds', async () => {
    const s = await serve({ '/index.html': { body: page('index') } });
    const dir = tempDir();
    mkdirSync(join(dir, '7'));
    writeFileSync(join(dir, '7', 'x'), 'data');
    const r = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '0']);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
    assert.equal(readFileSync(join(dir, '7', 'x'), 'utf8'), 'data');
  });
});

describe('SIGINT', () => {
  test('SIGINT during a crawl: exit 130, the pages written so far intact (IDs 1..k), no temporary file left', async () => {
    const PAGES = 40;
    const routes = new Map<string, Route>();
    const links = Array.from({ length: PAGES }, (_, i) => `p${i}.html`);
    const bodies = new Map<string, string>([['/index.html', page('index', links)]]);
    for (const l of links) bodies.set(`/${l}`, page(l, [], 'x'.repeat(50_000)));
    for (const [path, body] of bodies) {
      routes.set(path, { handle: (_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), 60) });
    }
    const s = await serve(routes);
    const dir = tempDir();
    const { child, done } = startProgram('crawler', ['--delay', '0.1', `${s.origin}/index.html`, dir, '1'], { timeoutMs: 30_000 });
    let out = '';
    let sent = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!sent && (out.match(/Fetched: /g) ?? []).length >= 4) {
        sent = true;
        child.kill('SIGINT');
      }
    });
    const { code, stderr: err } = await done;
    assert.ok(sent, `SIGINT was sent (stdout: ${out})`);
    assert.equal(code, 130, err);
    assert.match(err, /SIGINT/);
    const pages = readPages(dir);
    assert.ok(pages.length >= 4 && pages.length < PAGES + 1, `stopped early: ${pages.length} pages`);
    assert.deepEqual(pages.map((p) => p.id), pages.map((_, i) => i + 1), 'IDs 1..k');
    for (const p of pages) {
      const path = new URL(p.url).pathname;
      assert.ok(p.body.equals(Buffer.from(bodies.get(path)!)), `page ${p.id} (${path}) complete`);
    }
    assert.deepEqual(urlsWith(parseLog(out), 'Fetched'), pages.map((p) => p.url), 'one Fetched line per file written');
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file');
  });

  test('SIGINT during the politeness wait (--delay 5) stops at once: exit 130 within 2 s, the next page never requested', async () => {
    const s = await serve({ '/index.html': { body: page('index', ['a.html']) }, '/a.html': { body: page('a') } });
    const dir = tempDir();
    const { child, done } = startProgram('crawler', ['--delay', '5', '--ignore-robots', `${s.origin}/index.html`, dir, '1'], { timeoutMs: 20_000 });
    let out = '';
    let sentAt = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (sentAt === 0 && out.includes('Fetched: ')) {
        sentAt = performance.now();
        child.kill('SIGINT');
      }
    });
    const { code } = await done;
    const took = (performance.now() - sentAt) / 1000;
    assert.equal(code, 130);
    assert.ok(took < 2, `stopped ${took.toFixed(2)} s after SIGINT`);
    assert.deepEqual(s.paths(), ['/index.html']);
    assert.deepEqual(pageList(dir), [`1 ${s.origin}/index.html 0`]);
  });
});
