/**
 * A re-crawl removes only what we wrote, and a failed start loses nothing,
 * end to end (spec decisions "Files that are not ours" and "One crawl per
 * directory"; issue 28, items 3 and 6):
 * - in an earlier crawl's directory, a user's `999` stops the re-crawl
 *   before any request with one line naming it, and nothing is touched;
 *   with --overwrite it is removed and counted;
 * - the files an earlier crawl wrote stay ours until the crawl that
 *   replaces them ends, even across SIGINT and --resume; once removed, they
 *   are no longer counted as ours;
 * - a seed PANIC (404, refused connection, robots.txt) leaves a directory
 *   that held nothing of ours empty: no marker, no state, no lock, no report
 *   journal; in an earlier crawl's directory it leaves the pages and the
 *   state files byte for byte, and --resume still continues that crawl.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { crawl } from '../helpers/crawler-e2e.js';
import { numberedFiles, pageList } from '../helpers/page-files.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { startProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('recrawl-own-files-');

/** /index.html links p1..p(n-1); /small.html links two of them. */
async function site(t: { after: (fn: () => Promise<void>) => void }, n: number, routes: Record<string, Route> = {}): Promise<SiteServer> {
  const links = Array.from({ length: n - 1 }, (_, i) => `p${i + 1}.html`);
  const all: Record<string, Route> = { '/index.html': { body: page('index', links) }, '/small.html': { body: page('small', ['p1.html', 'p2.html']) }, ...routes };
  for (const l of links) all[`/${l}`] ??= { body: page(l) };
  const s = await startSite(all);
  t.after(() => s.close());
  return s;
}

/** Every file of `dir` with its bytes. */
function snapshot(dir: string): Map<string, string> {
  return new Map(readdirSync(dir).sort().map((n) => [n, readFileSync(join(dir, n)).toString('base64')]));
}

describe('a re-crawl removes only what we wrote', { concurrency: true }, () => {
  test('the issue\'s reproduction: a user\'s 999 beside an earlier crawl of 22 pages stops the re-crawl before any request, naming it; --overwrite replaces it', async (t) => {
    const s = await site(t, 22);
    const dir = temp();
    const first = await crawl(['--delay', '0', '--quiet', `${s.origin}/index.html`, dir, '1']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(numberedFiles(dir).length, 22);
    writeFileSync(join(dir, '999'), 'my own file\n');
    const before = snapshot(dir);
    const requests = s.requests.length;
    const r = await crawl(['--delay', '0', '--quiet', `${s.origin}/small.html`, dir, '1']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.equal(
      r.stderr,
      `crawler: pageDirectory "${dir}" holds "999", which the earlier crawl's state does not record as written by it (it records 1..22): not ours to remove (--overwrite to replace it)\n`,
    );
    assert.equal(s.requests.length, requests, 'no request was made');
    assert.deepEqual(snapshot(dir), before, 'nothing in the directory changed');

    const forced = await crawl(['--delay', '0', '--quiet', '--overwrite', `${s.origin}/small.html`, dir, '1']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(numberedFiles(dir), ['1', '2', '3']);
    assert.match(forced.stderr, /removed 20 page files of an earlier crawl/, '19 of ours and the 999 given up with --overwrite');
  });

  test('the earlier crawl\'s files stay ours across SIGINT and --resume of the crawl replacing them, and are removed at its end; after that they are not ours', async (t) => {
    const s = await site(t, 10);
    const dir = temp();
    const first = await crawl(['--delay', '0', '--quiet', `${s.origin}/index.html`, dir, '1']);
    assert.equal(first.code, 0, first.stderr);
    // The replacing crawl saves its first page, then SIGINT ends its politeness wait.
    const p = startProgram('crawler', ['--delay', '1', `${s.origin}/small.html`, dir, '1'], { timeoutMs: 20_000 });
    let out = '';
    p.child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Fetched:')) p.child.kill('SIGINT');
    });
    const stopped = await p.done;
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.deepEqual(numberedFiles(dir), ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10'], 'nothing removed by a crawl that did not end');
    const resumed = await crawl(['--delay', '0', '--quiet', '--resume', `${s.origin}/small.html`, dir, '1']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /removed 7 page files of an earlier crawl/);
    assert.deepEqual(pageList(dir), [`1 ${s.origin}/small.html 0`, `2 ${s.origin}/p1.html 1`, `3 ${s.origin}/p2.html 1`]);
    // 7 was removed: a file put there now is a user's, and the next re-crawl must not take it.
    writeFileSync(join(dir, '7'), 'mine now\n');
    const again = await crawl(['--delay', '0', '--quiet', `${s.origin}/small.html`, dir, '0']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /holds "7", which the earlier crawl's state does not record as written by it \(it records 1\.\.3\)/);
    assert.equal(readFileSync(join(dir, '7'), 'utf8'), 'mine now\n');
  });
});

describe('a failed start loses nothing', { concurrency: true }, () => {
  test('a seed PANIC (404, refused, robots.txt 503) leaves a directory that held nothing of ours as it was: no marker, state, lock or journal', async (t) => {
    const s = await site(t, 2);
    const blocked = await startSite({ '/robots.txt': { status: 503, body: 'busy' }, '/index.html': { body: page('index') } });
    t.after(() => blocked.close());
    const refused = await refusedPort();
    const seeds = [`${s.origin}/missing.html`, `http://127.0.0.1:${refused}/index.html`, `${blocked.origin}/index.html`];
    for (const seed of seeds) {
      const dir = temp();
      writeFileSync(join(dir, 'notes.txt'), 'mine\n');
      const r = await crawl(['--delay', '0', '--report', join(temp(), 'report.html'), seed, dir, '1']);
      assert.equal(r.code, 1, `${seed}: ${r.stderr}`);
      assert.match(r.stderr, /PANIC: cannot crawl/);
      assert.deepEqual(readdirSync(dir), ['notes.txt'], `${seed}: the directory as it was found`);
    }
  });

  test('a seed PANIC in an earlier crawl\'s directory leaves its pages and state byte for byte, and --resume still continues it', async (t) => {
    let slow = true;
    const s = await site(t, 6, {
      // The earlier crawl is stopped (SIGKILL) at p5, its last page, with its state on disk.
      '/p5.html': { handle: (_req, res) => void (slow ? undefined : res.writeHead(200, { 'content-type': 'text/html' }).end(page('p5'))) },
    });
    const dir = temp();
    const report = join(temp(), 'report.html');
    // --delay 0.15: pages complete more than the group commit's 100 ms apart, so each is committed.
    const p = startProgram('crawler', ['--delay', '0.15', '--report', report, '--quiet', `${s.origin}/index.html`, dir, '1'], { timeoutMs: 20_000 });
    while (!s.paths().includes('/p5.html')) await sleep(20);
    await sleep(200);
    p.child.kill('SIGKILL');
    await p.done;
    const before = snapshot(dir);
    const lock = [...before.keys()].filter((n) => n.startsWith('.crawler-lock-'));
    assert.equal(lock.length, 1, 'the killed crawl left its lock');
    for (const n of ['.crawler', '.crawler-state.db', '.crawler-report.jsonl']) assert.ok(before.has(n), `${n} there`);

    const r = await crawl(['--delay', '0', '--report', report, `${s.origin}/missing.html`, dir, '1']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /PANIC: cannot crawl/);
    const after = snapshot(dir);
    for (const n of lock) before.delete(n); // taken over, then released
    // SQLite's log and index of the killed crawl were folded into its file when the record was read.
    for (const n of ['.crawler-state.db', '.crawler-state.db-wal', '.crawler-state.db-shm']) {
      before.delete(n);
      after.delete(n);
    }
    assert.deepEqual(after, before, 'pages, marker and report journal as they were');

    slow = false;
    const resumed = await crawl(['--delay', '0', '--report', report, '--resume', `${s.origin}/index.html`, dir, '1']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /crawler: resuming: [1-5] pages saved/);
    assert.deepEqual(pageList(dir).map((l) => l.split(' ')[1]), ['index', 'p1', 'p2', 'p3', 'p4', 'p5'].map((n) => `${s.origin}/${n}.html`));
  });
});
