/**
 * crawler's pageDirectory under file-system trouble:
 * - a symlink planted where a page file (or the marker, or the state file)
 *   is about to be written is replaced, never followed: its target is
 *   unchanged and the page is a regular file;
 * - a read-only pageDirectory is refused up front (exit 1, a clear message,
 *   no request). Tests run as root, where chmod 0555 does not bind, so this
 *   is checked twice: on a read-only tmpfs (EROFS binds root too) and with a
 *   0555 directory while running ./crawler as nobody (setpriv); each is
 *   skipped, with the reason printed, where it cannot be set up;
 * - a disk that fills up mid-crawl (a small tmpfs filled up to a known
 *   amount) stops the crawl with one clear line and exit 1, every page
 *   written before it intact, no temporary file left, and `--resume` once
 *   space is freed ends with exactly the pages of an undisturbed crawl.
 */
// run-tests: long (11 s: crawls on a full disk)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { asNobody, freeBytes, isRoot } from '../helpers/fs-faults.js';
import { readPages } from '../helpers/page-files.js';
import { page } from '../helpers/site-server.js';
import { runMeasured } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp, tmpfs } = useTempDirs();

/** A chain site: /c0.html -> /c1.html -> ... -> /c{n-1}.html, each with `pad` bytes of padding. */
function chain(srv: FaultServer, n: number, pad: number): Map<string, string> {
  const bodies = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const body = page(`c${i}`, i + 1 < n ? [`/c${i + 1}.html`] : [], `<p>${'z'.repeat(pad)}</p>\n`);
    srv.page(`/c${i}.html`, body);
    bodies.set(srv.url(`/c${i}.html`), body);
  }
  return bodies;
}

/**
 * Runs `fill` when the crawl first asks for /robots.txt (its first request, once its state is set
 * up), before the server answers it: the crawl cannot write a page before the disk is filled.
 */
function fillAtRobots(srv: FaultServer, fill: () => void): void {
  let filled = false;
  srv.fallback = (target) => {
    if (target === '/robots.txt' && !filled) {
      filled = true;
      fill();
    }
    return undefined; // answered as before: 404, every path allowed
  };
}

/** A write that failed in a private crawl: the cause first, on one line, then the line that says how to go on (--resume). */
function assertCleanWriteError(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, `the cause, then what to do: ${stderr}`);
  assert.match(lines[0] as string, pattern);
  assert.equal(lines[1], 'The pages saved so far are kept. Once the cause is fixed (free some space, say), the same command with --resume continues the crawl.');
  assert.doesNotMatch(stderr, /internal error|\n\s+at |Error:/, 'no internal error or stack trace');
}

function assertCleanOneLineError(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr: ${stderr}`);
  assert.match(lines[0] as string, pattern);
  assert.doesNotMatch(stderr, /internal error|\n\s+at |Error:/, 'no internal error or stack trace');
}

describe('crawler: planted symlinks are replaced, never followed', () => {
  test('symlinks at 1 (to a file), 2 (to a directory), 3 (dangling), .crawler and the state file: targets unchanged, pages are regular files', async () => {
    const srv = await startFaultServer();
    try {
      const bodies = chain(srv, 3, 100);
      const root = temp('files-pd-symlink-');
      const pd = join(root, 'pages');
      mkdirSync(pd);
      const victim = join(root, 'victim');
      const victimMarker = join(root, 'victim-marker');
      const victimState = join(root, 'victim-state');
      const victimDir = join(root, 'victim-dir');
      writeFileSync(victim, 'VICTIM\n');
      writeFileSync(victimMarker, 'VICTIM MARKER\n');
      writeFileSync(victimState, 'VICTIM STATE\n');
      mkdirSync(victimDir);
      symlinkSync(victim, join(pd, '1'));
      symlinkSync(victimDir, join(pd, '2'));
      symlinkSync(join(root, 'created-through-link'), join(pd, '3'));
      symlinkSync(victimMarker, join(pd, '.crawler'));
      symlinkSync(victimState, join(pd, '.crawler-state.db'));
      // Without --overwrite a directory holding numbered files but not our marker is refused, and nothing is touched.
      const refused = await runMeasured('crawler', ['--delay', '0', srv.url('/c0.html'), pd, '2']);
      assert.equal(refused.code, 1, refused.stderr);
      assert.equal(srv.requests.length, 0, 'no request was made');
      for (const name of ['1', '2', '3', '.crawler', '.crawler-state.db']) assert.ok(lstatSync(join(pd, name)).isSymbolicLink(), `${name} untouched`);
      const r = await runMeasured('crawler', ['--delay', '0', '--overwrite', srv.url('/c0.html'), pd, '2']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(victim, 'utf8'), 'VICTIM\n', 'the file behind 1 is unchanged');
      assert.equal(readFileSync(victimMarker, 'utf8'), 'VICTIM MARKER\n', 'the file behind .crawler is unchanged');
      assert.equal(readFileSync(victimState, 'utf8'), 'VICTIM STATE\n', 'the file behind the state file is unchanged');
      assert.deepEqual(readdirSync(victimDir), [], 'nothing written into the directory behind 2');
      assert.ok(!existsSync(join(root, 'created-through-link')), 'nothing created through the dangling link 3');
      for (const name of ['1', '2', '3', '.crawler']) assert.ok(lstatSync(join(pd, name)).isFile(), `${name} is a regular file now`);
      const pages = readPages(pd);
      assert.deepEqual(pages.map((p) => p.url), [...bodies.keys()]);
      for (const p of pages) assert.equal(p.body.toString('utf8'), bodies.get(p.url));
    } finally {
      await srv.close();
    }
  });
});

describe('crawler: a read-only pageDirectory is refused before any request', () => {
  test('on a read-only tmpfs (EROFS, binding root too): exit 1, "is not writable", no request', async (t) => {
    const pd = tmpfs(t, '64k', { prefix: 'files-pd-ro-', extra: ['ro'] });
    if (pd === undefined) return;
    const srv = await startFaultServer();
    try {
      chain(srv, 1, 0);
      const r = await runMeasured('crawler', ['--delay', '0', srv.url('/c0.html'), pd, '1']);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assertCleanOneLineError(r.stderr, /^crawler: pageDirectory ".*" is not writable/);
      assert.equal(srv.requests.length, 0, 'no request was made');
    } finally {
      await srv.close();
    }
  });

  test('chmod 0555 (run as nobody when the tests run as root): exit 1, "is not writable", no request', async (t) => {
    const user = isRoot() ? asNobody() : { wrap: [] as string[] };
    if ('why' in user) {
      t.skip(`chmod 0555 does not bind root and ${user.why}`);
      return;
    }
    const root = temp('files-pd-0555-');
    chmodSync(root, 0o755); // mkdtemp makes it 0700: nobody must be able to reach the page directory
    const pd = join(root, 'pages');
    mkdirSync(pd);
    chmodSync(pd, 0o555);
    const srv = await startFaultServer();
    try {
      chain(srv, 1, 0);
      const r = await runMeasured('crawler', ['--delay', '0', srv.url('/c0.html'), pd, '1'], { wrap: user.wrap });
      assert.equal(r.code, 1, r.stderr);
      assertCleanOneLineError(r.stderr, /^crawler: pageDirectory ".*" is not writable/);
      assert.equal(srv.requests.length, 0, 'no request was made');
      assert.deepEqual(readdirSync(pd), []);
    } finally {
      chmodSync(pd, 0o755);
      await srv.close();
    }
  });
});

describe('crawler: the disk fills up mid-crawl', () => {
  const PAGES = 8;
  const PAD = 200 * 1024; // large pages: the state database's few KB per page never decide where the disk runs out
  const PAGE_FOOTPRINT = 53 * 4096; // a page file of ~205 KB on tmpfs's 4 KiB pages, with room to spare

  test('stops at the first failed save with one clear line and exit 1; pages before it intact; --resume after freeing space completes the crawl', async (t) => {
    const pd = tmpfs(t, '8m', { prefix: 'files-pd-full-' });
    if (pd === undefined) return;
    const srv = await startFaultServer();
    try {
      const bodies = chain(srv, PAGES, PAD);
      const filler = join(pd, 'filler.not-a-page');
      // Once the crawl has set up its state, fill the disk so that the marker and three pages fit,
      // with 100 KiB to spare for the state database.
      fillAtRobots(srv, () => writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes(pd) - (4096 + 3 * PAGE_FOOTPRINT + 100 * 1024)))));
      const args = ['--delay', '0', '--depth-limit', '20', srv.url('/c0.html'), pd, String(PAGES)];
      const r = await runMeasured('crawler', args);
      assert.equal(r.code, 1, `exit 1 (stderr: ${r.stderr})`);
      assertCleanWriteError(r.stderr, /^crawler: the disk is full: cannot write .*\/4 \(ENOSPC\)$/);
      const before = readPages(pd);
      assert.deepEqual(before.map((p) => p.id), [1, 2, 3], 'pages 1 to 3 were saved before the disk was full');
      for (const p of before) assert.equal(p.body.toString('utf8'), bodies.get(p.url), `page ${p.id} intact`);
      assert.deepEqual(readdirSync(pd).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
      assert.ok(r.stdout.includes(`Fetched: ${srv.url('/c2.html')}`) && !r.stdout.includes(`Fetched: ${srv.url('/c3.html')}`), 'the log stops at the last saved page');

      rmSync(filler); // space freed
      const again = await runMeasured('crawler', ['--resume', ...args]);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /resuming: 3 pages saved/);
      const pages = readPages(pd);
      assert.deepEqual(pages.map((p) => `${p.id} ${p.url} ${p.depth}`), [...bodies.keys()].map((u, i) => `${i + 1} ${u} ${i}`), 'exactly the pages of an undisturbed crawl');
      for (const p of pages) assert.equal(p.body.toString('utf8'), bodies.get(p.url), `page ${p.id} intact`);
      assert.deepEqual(readdirSync(pd).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
    } finally {
      await srv.close();
    }
  });

  test('a longer crawl, whose page files are written on their own thread: the same guarantees at the page that could not be written', async (t) => {
    // With --write-thread on, past the 50th page the files are written beside the crawl. The crawl state
    // must then commit no page whose file is not in place: --resume would otherwise skip a missing page.
    const pd = tmpfs(t, '16m', { prefix: 'files-pd-full-thread-' });
    if (pd === undefined) return;
    const srv = await startFaultServer();
    try {
      const N = 160;
      const pad = (i: number): string => `<p>${String(i).repeat(30 * 1024)}</p>\n`.slice(0, 30 * 1024);
      const bodies = new Map<string, string>();
      const children = Array.from({ length: N }, (_, i) => `/c${i + 1}.html`);
      const seedBody = page('c0', children);
      srv.page('/c0.html', seedBody);
      bodies.set(srv.url('/c0.html'), seedBody);
      for (let i = 1; i <= N; i++) {
        const body = page(`c${i}`, [], pad(i));
        srv.page(`/c${i}.html`, body);
        bodies.set(srv.url(`/c${i}.html`), body);
      }
      const filler = join(pd, 'filler.not-a-page');
      // Well after the thread has started (at page 50; --delay makes page 110 come some 0.6 s later): room
      // for a few more pages, then the disk is full.
      void srv.waitFor('/c110.html', 30_000).then((seen) => {
        if (seen) writeFileSync(filler, Buffer.alloc(Math.max(0, freeBytes(pd) - 4 * 33 * 1024)));
      });
      const args = ['--delay', '0.01', '--write-thread', 'on', srv.url('/c0.html'), pd, '1'];
      const r = await runMeasured('crawler', args);
      assert.equal(r.code, 1, `exit 1 (stderr: ${r.stderr})`);
      // The thread's page file usually meets the full disk first; the crawl state's next group commit may.
      assertCleanWriteError(r.stderr, /^crawler: the disk is full: cannot write (.*\/[0-9]+ \(ENOSPC\)|the crawl state .* \(SQLITE_FULL\))$/);
      const named = /\/([0-9]+) \(ENOSPC\)/.exec(r.stderr);
      const failedId = named === null ? Infinity : Number(named[1]);
      if (named !== null) assert.ok(failedId > 100 && failedId <= N + 1, `the disk filled after page 100 (failed at ${failedId})`);
      const before = readPages(pd);
      for (const p of before) assert.equal(p.body.toString('utf8'), bodies.get(p.url), `page ${p.id} intact`);
      assert.deepEqual(readdirSync(pd).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');

      rmSync(filler);
      const again = await runMeasured('crawler', ['--resume', '--quiet', ...args]);
      assert.equal(again.code, 0, again.stderr);
      const resumedAt = Number(/resuming: ([0-9]+) pages saved/.exec(again.stderr)?.[1]);
      assert.ok(resumedAt < failedId, `the state committed no page from ${failedId} on (resumed at ${resumedAt})`);
      const pages = readPages(pd);
      assert.deepEqual(pages.map((p) => `${p.id} ${p.url} ${p.depth}`), [...bodies.keys()].map((u, i) => `${i + 1} ${u} ${i === 0 ? 0 : 1}`), 'exactly the pages of an undisturbed crawl');
      for (const p of pages) assert.equal(p.body.toString('utf8'), bodies.get(p.url), `page ${p.id} intact`);
    } finally {
      await srv.close();
    }
  });

  test(
    'the disk fills up while the crawl state is written: one clear line and exit 1, no stack trace',
    async (t) => {
      const pd = tmpfs(t, '4m', { prefix: 'files-pd-full-db-' });
      if (pd === undefined) return;
      const srv = await startFaultServer();
      try {
        // The seed links to 4,000 new URLs: its file is some 140 KB, the rows that queue its links several
        // times that, more than the state database's files have room for from their start.
        const links = Array.from({ length: 4000 }, (_, i) => `/x${i}.html`);
        const seed = page('seed', links);
        srv.page('/seed.html', seed);
        const footprint = Math.ceil(Buffer.byteLength(seed) / 4096) * 4096;
        // Room for the seed's file and 8 KiB more: its links' rows are the first write with no room.
        fillAtRobots(srv, () => writeFileSync(join(pd, 'filler.not-a-page'), Buffer.alloc(Math.max(0, freeBytes(pd) - footprint - 2 * 4096))));
        const r = await runMeasured('crawler', ['--delay', '0', srv.url('/seed.html'), pd, '1']);
        assert.equal(r.code, 1, r.stderr);
        assertCleanWriteError(r.stderr, /^crawler: the disk is full: cannot write the crawl state .* \(SQLITE_FULL\)$/);
      } finally {
        await srv.close();
      }
    },
  );
});
