/**
 * --wacz end to end: a crawl packages its archive, the CDXJ index and its
 * pages into one WACZ (read back with yauzl: the archive stored, not
 * deflated), and an index or package file that is not ours stops the run
 * before any request, untouched. The index a crawl writes as it goes is
 * the one a reading of its archive makes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yauzl from 'yauzl';
import { writeCdxj } from '../../src/archive/cdxj.js';
import { checkArchive } from '../helpers/warc-check.js';
import { readPages } from '../helpers/page-files.js';
import { page, startSite } from '../helpers/site-server.js';
import { assertCleanError, crawl } from '../helpers/crawler-e2e.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('wacz-run-');

/** The entries of a ZIP: name, compression method, and the text of the small ones. */
function zipEntries(path: string): Promise<Array<{ name: string; method: number; text: string }>> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err || zip === undefined) return reject(err);
      const out: Array<{ name: string; method: number; text: string }> = [];
      zip.on('entry', (e: yauzl.Entry) => {
        zip.openReadStream(e, (e2, stream) => {
          if (e2 || stream === undefined) return reject(e2);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.push({ name: e.fileName, method: e.compressionMethod, text: e.fileName.endsWith('.gz') ? '' : Buffer.concat(chunks).toString('utf8') });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.readEntry();
    });
  });
}

async function site(t: import('node:test').TestContext) {
  const s = await startSite({
    '/robots.txt': { body: 'User-agent: *\nDisallow: /private.html\n', headers: { 'content-type': 'text/plain' } },
    '/': { body: page('Home', ['/a.html', '/b.html', '/private.html']) },
    '/a.html': { body: page('Page A', ['/b.html']) },
    '/b.html': { body: page('Page B') },
    '/private.html': { body: page('private') },
  });
  t.after(() => s.close());
  return s;
}

test('--wacz alone: the archive (FILE.warc.gz), its CDXJ index and the package, holding the saved pages, the archive stored', async (t) => {
  const s = await site(t);
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const wacz = join(dir, 'crawl.wacz');
  const r = await crawl(['--delay', '0', '--wacz', wacz, `${s.origin}/`, pages, '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /package in .*crawl\.wacz/);
  const warc = join(dir, 'crawl.warc.gz');
  await checkArchive([warc]);
  const cdxj = readFileSync(join(dir, 'crawl.cdxj'), 'utf8').trim().split('\n');
  // One line per response: robots.txt and the three pages.
  assert.equal(cdxj.length, 4, cdxj.join('\n'));
  const entries = await zipEntries(wacz);
  const names = entries.map((e) => e.name).sort();
  assert.deepEqual(names, ['archive/crawl.warc.gz', 'datapackage-digest.json', 'datapackage.json', 'indexes/index.cdxj', 'pages/pages.jsonl']);
  assert.equal(entries.find((e) => e.name === 'archive/crawl.warc.gz')?.method, 0, 'the archive is stored, not deflated');
  const listed = (entries.find((e) => e.name === 'pages/pages.jsonl')?.text ?? '').trim().split('\n').slice(1).map((l) => (JSON.parse(l) as { url: string }).url).sort();
  assert.deepEqual(listed, readPages(pages).map((p) => p.url).sort());
  assert.deepEqual(listed, [`${s.origin}/`, `${s.origin}/a.html`, `${s.origin}/b.html`]);
});

test('the index taken as the records are written equals the index a reading of the archive makes (responses, a revisit, a 404, a redirect), plain and gzip', async (t) => {
  const same = page('Same', ['/b.html']);
  const s = await startSite({
    '/': { body: page('Home', ['/a.html', '/twin-1.html', '/twin-2.html', '/missing.html', '/moved.html']) },
    '/a.html': { body: page('Page A', ['/b.html']) },
    '/b.html': { body: page('Page B'), headers: { 'content-type': 'text/html; charset=UTF-8' } },
    '/twin-1.html': { body: same },
    '/twin-2.html': { body: same },
    '/moved.html': { status: 301, headers: { location: '/b.html' }, body: '' },
  });
  t.after(() => s.close());
  for (const name of ['crawl.warc', 'crawl.warc.gz']) {
    const dir = temp();
    const pages = join(dir, 'pages');
    mkdirSync(pages);
    const r = await crawl(['--delay', '0', '--warc', join(dir, name), `${s.origin}/`, pages, '2']);
    assert.equal(r.code, 0, r.stderr);
    const written = readFileSync(join(dir, 'crawl.cdxj'), 'utf8');
    await writeCdxj([join(dir, name)], join(dir, 'read.cdxj'));
    assert.equal(written, readFileSync(join(dir, 'read.cdxj'), 'utf8'), name);
    const lines = written.trim().split('\n');
    assert.ok(lines.some((l) => l.includes('"mime":"warc/revisit"')), `a revisit is indexed (${name}):\n${written}`);
    assert.ok(lines.some((l) => l.includes('"status":"404"')), `the 404 is indexed (${name})`);
    assert.ok(lines.some((l) => l.includes('"status":"301"')), `the redirect is indexed (${name})`);
  }
});

test('an index or package file that is not ours stops the run before any request, and stays as it was', async (t) => {
  for (const victim of ['crawl.cdxj', 'crawl.wacz']) {
    const s = await site(t);
    const dir = temp();
    const pages = join(dir, 'pages');
    mkdirSync(pages);
    writeFileSync(join(dir, victim), 'my own notes\n');
    const r = await crawl(['--delay', '0', '--warc', join(dir, 'crawl.warc.gz'), '--wacz', join(dir, 'crawl.wacz'), `${s.origin}/`, pages, '1']);
    assertCleanError(r, new RegExp(`${victim.replace('.', '\\.')} exists and was not made from an archive of ours`), { usageHint: false });
    assert.equal(readFileSync(join(dir, victim), 'utf8'), 'my own notes\n');
    assert.deepEqual(s.paths(), [], 'no request');
    assert.equal(existsSync(join(dir, 'crawl.warc.gz')), false);
  }
});
