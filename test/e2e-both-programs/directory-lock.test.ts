/**
 * One crawl per directory, end to end with real processes (spec decision
 * "One crawl per directory"; issue 28, item 1): while ./crawler holds its
 * pageDirectory (./KeywordHunter its OutputDir), a second run into it,
 * of either program, is refused before any request with one line naming
 * the holder's PID, exit 1; once the holder is killed with SIGKILL, a new
 * run takes the lock over and says so on stderr. The lock file is gone after
 * every end: done, refused, PANIC, SIGINT (exit 130). Workers of one shared
 * crawl still share a directory.
 *
 * The holder waits on a page the server never answers, so that any request
 * the server sees while it waits is the second run's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { crawl } from '../helpers/crawler-e2e.js';
import { readPages } from '../helpers/page-files.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';
import { runProgram, startProgram, type Program, type RunResult, type StartedProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { LOCK_PREFIX } from '../../src/sink/dir-lock.js';

const { temp } = useTempDirs('one-crawl-per-dir-');

/** A site whose /hang.html is never answered (the holder waits there), linked from the seed. */
async function hangingSite(t: { after: (fn: () => Promise<void>) => void }): Promise<SiteServer> {
  const s = await startSite({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
    '/index.html': { body: page('index', ['hang.html']) },
    '/hang.html': { handle: () => undefined },
    '/other.html': { body: page('other') },
  });
  t.after(() => s.close());
  return s;
}

function lockFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith(LOCK_PREFIX));
}

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const end = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > end) assert.fail(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Exit 1, nothing on stdout, one line on stderr that names `pid` and what to do. */
function assertRefused(r: RunResult, program: Program, label: string, holder: string, pid: number): void {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
  assert.match(r.stderr, new RegExp(`^${program}: ${label} ".*" is in use by ${holder} \\(PID ${pid}\\): wait for it to end, or stop it, or choose another directory\\n$`));
}

/** The holder, started and waiting on /hang.html (its lock taken long before). */
async function holding(program: Program, args: string[], s: SiteServer): Promise<StartedProgram & { pid: number }> {
  const p = startProgram(program, args, { timeoutMs: 60_000 });
  await until('the holder to wait on /hang.html', () => s.paths().includes('/hang.html'));
  return { ...p, pid: p.child.pid as number };
}

async function killed(p: StartedProgram): Promise<void> {
  p.child.kill('SIGKILL');
  assert.equal((await p.done).signal, 'SIGKILL');
}

describe('crawler: one crawl per pageDirectory', () => {
  test('a second crawl (or KeywordHunter) into it is refused before any request, naming the PID; after kill -9 of the holder a new crawl takes over and says so', async (t) => {
    const s = await hangingSite(t);
    const dir = temp();
    const holder = await holding('crawler', ['--delay', '0', `${s.origin}/index.html`, dir, '1'], s);
    assert.equal(lockFiles(dir).length, 1);
    const requests = s.requests.length;
    const second = await crawl(['--delay', '0', `${s.origin}/other.html`, dir, '0']);
    assertRefused(second, 'crawler', 'pageDirectory', 'crawler', holder.pid);
    const hunter = await runProgram('KeywordHunter', [`${s.origin}/other.html`, 'needle', dir]);
    assertRefused(hunter, 'KeywordHunter', 'OutputDir', 'crawler', holder.pid);
    assert.equal(s.requests.length, requests, 'neither made a request');
    assert.equal(lockFiles(dir).length, 1, 'the holder\'s lock is left as it was');

    await killed(holder);
    assert.equal(lockFiles(dir).length, 1, 'SIGKILL leaves the lock behind');
    s.routes.set('/hang.html', { body: page('answered at last') });
    const next = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(next.code, 0, next.stderr);
    const notes = next.stderr.split('\n').filter((l) => l.includes('lock'));
    assert.deepEqual(notes, [`crawler: pageDirectory "${dir}" was locked by crawler (PID ${holder.pid}), which is no longer running: lock taken over`]);
    assert.deepEqual(readPages(dir).map((p) => new URL(p.url).pathname), ['/index.html', '/hang.html']);
    assert.deepEqual(lockFiles(dir), [], 'no lock after the end');
  });

  test('the lock is gone after SIGINT (exit 130), a PANIC, and a refusal', async (t) => {
    const s = await hangingSite(t);
    const dir = temp();
    // --delay 5: after robots.txt the seed waits its turn, and SIGINT ends the wait at once.
    const p = startProgram('crawler', ['--delay', '5', `${s.origin}/index.html`, dir, '1'], { timeoutMs: 20_000 });
    await until('robots.txt', () => s.paths().includes('/robots.txt'));
    await sleep(100);
    p.child.kill('SIGINT');
    const stopped = await p.done;
    assert.equal(stopped.code, 130, stopped.stderr);
    assert.deepEqual(lockFiles(dir), []);
    const panic = await crawl(['--delay', '0', `${s.origin}/missing.html`, dir, '1']);
    assert.equal(panic.code, 1);
    assert.match(panic.stderr, /PANIC/);
    assert.deepEqual(lockFiles(dir), []);
    writeFileSync(join(dir, '999'), 'mine');
    const refused = await crawl(['--delay', '0', `${s.origin}/index.html`, dir, '1']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /holds "999"/);
    assert.deepEqual(lockFiles(dir), []);
  });

  test('workers of one shared crawl still share a pageDirectory: both end with exit 0, every page saved once', async (t) => {
    const s = await startSite({
      '/index.html': { body: page('index', ['a.html', 'b.html', 'c.html']) },
      '/a.html': { body: page('a', ['d.html']) },
      '/b.html': { body: page('b') },
      '/c.html': { body: page('c') },
      '/d.html': { body: page('d') },
    });
    t.after(() => s.close());
    const dir = temp();
    const frontier = `sqlite:${join(temp(), 'frontier.db')}`;
    const args = ['--frontier', frontier, '--delay', '0.05', '--quiet', `${s.origin}/index.html`, dir, '2'];
    const ends = await Promise.all([startProgram('crawler', args).done, startProgram('crawler', args).done]);
    for (const end of ends) {
      assert.equal(end.code, 0, end.stderr);
      assert.doesNotMatch(end.stderr, /in use|taken over/);
    }
    const pages = readPages(dir);
    assert.deepEqual(pages.map((p) => new URL(p.url).pathname).sort(), ['/a.html', '/b.html', '/c.html', '/d.html', '/index.html']);
    assert.deepEqual(pages.map((p) => p.id), [1, 2, 3, 4, 5]);
    assert.deepEqual(lockFiles(dir), []);
  });
});

describe('KeywordHunter: one search per OutputDir', () => {
  test('a second search (or a crawl) into it is refused before any request, naming the PID; after kill -9 a new search takes over and says so', async (t) => {
    const s = await hangingSite(t);
    const dir = temp();
    const holder = await holding('KeywordHunter', [`${s.origin}/index.html`, 'needle', dir], s);
    assert.equal(lockFiles(dir).length, 1);
    const requests = s.requests.length;
    const second = await runProgram('KeywordHunter', [`${s.origin}/other.html`, 'needle', dir]);
    assertRefused(second, 'KeywordHunter', 'OutputDir', 'KeywordHunter', holder.pid);
    const crawler = await crawl(['--delay', '0', `${s.origin}/other.html`, dir, '0']);
    assertRefused(crawler, 'crawler', 'pageDirectory', 'KeywordHunter', holder.pid);
    assert.equal(s.requests.length, requests, 'neither made a request');

    await killed(holder);
    assert.equal(lockFiles(dir).length, 1, 'SIGKILL leaves the lock behind');
    const next = await runProgram('KeywordHunter', [`${s.origin}/other.html`, 'other', dir]);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, /^FOUND_KEYWORD:/m);
    assert.deepEqual(
      next.stderr.split('\n').filter((l) => l.includes('lock')),
      [`KeywordHunter: OutputDir "${dir}" was locked by KeywordHunter (PID ${holder.pid}), which is no longer running: lock taken over`],
    );
    assert.deepEqual(readdirSync(dir).sort(), ['index.html', 'other.html'], 'the pages of both searches, and no lock');
  });
});
