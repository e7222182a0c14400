/**
 * The directory lock (src/sink/dir-lock.ts), in process: one holder at a
 * time, the holder named by its PID; a lock whose holder is dead (exited,
 * its PID used again by another process, or from an earlier boot) is taken
 * over and said so; workers of one shared crawl share it; files that merely
 * look like locks are neither obeyed nor touched; of two runs that see each
 * other, the later starter gives way. Child processes stand in for other
 * holders (a live `sleep`, one that has exited), and one child takes the
 * lock and exits without releasing it: the exit hook removes the file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { isCrawlerError } from '../../src/errors.js';
import { DirLock, holderAlive, LOCK_HEAD, LOCK_PREFIX, type DirLockOptions } from '../../src/sink/dir-lock.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('dir-lock-');

const OPTIONS: DirLockOptions = { program: 'crawler', label: 'pageDirectory', code: 'ERR_PAGE_DIRECTORY' };
const BOOT = readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();

/** A process's start time as /proc/PID/stat gives it (field 22). */
function procStart(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] as string;
}

interface Fake {
  pid: number;
  start: string;
  boot?: string;
  program?: string;
  shared?: string;
}

/** Writes the lock file another holder would have written; returns its name. */
function plantLock(dir: string, h: Fake): string {
  const name = `${LOCK_PREFIX}${h.pid}-${h.start}`;
  const rec = { pid: h.pid, start: h.start, procStart: true, boot: h.boot ?? BOOT, program: h.program ?? 'crawler', ...(h.shared === undefined ? {} : { shared: h.shared }) };
  writeFileSync(join(dir, name), LOCK_HEAD + JSON.stringify(rec) + '\n');
  return name;
}

function lockFiles(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.startsWith(LOCK_PREFIX)).sort();
}

/** A PID whose process has exited (and been reaped). */
function deadPid(): number {
  const r = spawnSync('true');
  assert.equal(r.status, 0);
  return r.pid as number;
}

/** A live child process (sleep) and its start time; killed when the test ends. */
async function liveChild(t: { after: (fn: () => void) => void }): Promise<Fake> {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await new Promise((r) => child.once('spawn', r));
  const pid = child.pid as number;
  return { pid, start: procStart(pid) };
}

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(isCrawlerError(err, 'ERR_PAGE_DIRECTORY'), `a CrawlerError: ${String(err)}`);
    assert.doesNotMatch(err.message, /\n/, 'one line');
    return err.message;
  }
  assert.fail('the lock was given');
}

describe('DirLock', () => {
  test('one lock file while held, holding our PID; gone after release (twice is fine)', async () => {
    const dir = temp();
    const lock = await DirLock.acquire(dir, OPTIONS);
    const files = lockFiles(dir);
    assert.deepEqual(files, [`${LOCK_PREFIX}${process.pid}-${procStart(process.pid)}`]);
    const text = readFileSync(join(dir, files[0] as string), 'utf8');
    assert.ok(text.startsWith(LOCK_HEAD));
    assert.equal(JSON.parse(text.slice(LOCK_HEAD.length)).pid, process.pid);
    assert.deepEqual(lock.takenOver, []);
    assert.equal(lock.takeoverNote(dir, 'pageDirectory'), undefined);
    lock.release();
    lock.release();
    assert.deepEqual(readdirSync(dir), [], 'nothing left, not even a temporary file');
  });

  test('a second lock while the first is held is refused with one line naming the holder\'s PID; the first stays', async () => {
    const dir = temp();
    const lock = await DirLock.acquire(dir, OPTIONS);
    const before = lockFiles(dir);
    const message = await refusal(DirLock.acquire(dir, OPTIONS));
    assert.match(message, new RegExp(`^pageDirectory "${dir}" is in use by crawler \\(PID ${process.pid}\\): wait for it to end, or stop it, or choose another directory$`));
    assert.deepEqual(lockFiles(dir), before, 'the holder\'s lock is untouched');
    lock.release();
    const again = await DirLock.acquire(dir, OPTIONS);
    again.release();
  });

  test('a live holder that started before us: refused at once, naming its PID and program', async () => {
    const dir = temp();
    // Our parent (the test runner) started before this process and runs until it ends.
    const parent = { pid: process.ppid, start: procStart(process.ppid), program: 'KeywordHunter' };
    const name = plantLock(dir, parent);
    const t0 = performance.now();
    const message = await refusal(DirLock.acquire(dir, { ...OPTIONS, label: 'OutputDir', contentionMs: 5000 }));
    assert.ok(performance.now() - t0 < 2000, 'no wait for an earlier starter');
    assert.match(message, new RegExp(`^OutputDir ".*" is in use by KeywordHunter \\(PID ${process.ppid}\\)`));
    assert.deepEqual(lockFiles(dir), [name], 'its lock is untouched, ours is gone');
  });

  test('a live holder that started after us: waited for (bounded), then refused; one that gives way meanwhile is not', async (t) => {
    const dir = temp();
    const child = await liveChild(t);
    const name = plantLock(dir, child);
    const t0 = performance.now();
    const message = await refusal(DirLock.acquire(dir, { ...OPTIONS, contentionMs: 300 }));
    const waited = performance.now() - t0;
    assert.ok(waited >= 300, `waited ${waited.toFixed(0)} ms for the later starter to give way`);
    assert.match(message, new RegExp(`\\(PID ${child.pid}\\)`));
    assert.deepEqual(lockFiles(dir), [name]);
    // The later starter saw us and gives way: its file goes while we wait.
    setTimeout(() => unlinkSync(join(dir, name)), 100);
    const lock = await DirLock.acquire(dir, { ...OPTIONS, contentionMs: 5000 });
    assert.deepEqual(lock.takenOver, [], 'nothing was taken over: it went by itself');
    lock.release();
  });

  test('a dead holder (its process exited) is taken over, and the note says so', async () => {
    const dir = temp();
    const pid = deadPid();
    const name = plantLock(dir, { pid, start: '12345' });
    const lock = await DirLock.acquire(dir, OPTIONS);
    assert.ok(!existsSync(join(dir, name)), 'the dead holder\'s file is removed');
    assert.deepEqual(lock.takenOver.map((h) => h.pid), [pid]);
    assert.equal(lock.takeoverNote(dir, 'pageDirectory'), `pageDirectory "${dir}" was locked by crawler (PID ${pid}), which is no longer running: lock taken over`);
    lock.release();
    assert.deepEqual(readdirSync(dir), []);
  });

  test('a PID used again by another process, and a lock from an earlier boot, are dead holders', async (t) => {
    const child = await liveChild(t);
    const reused = { pid: child.pid, start: String(Number(child.start) - 1) };
    assert.equal(holderAlive({ ...reused, procStart: true, boot: BOOT, program: 'crawler', shared: undefined }), false, 'PID running, but started at another time');
    const otherBoot = { ...child, boot: '00000000-0000-0000-0000-000000000000' };
    assert.equal(holderAlive({ ...otherBoot, procStart: true, program: 'crawler', shared: undefined }), false);
    assert.equal(holderAlive({ ...child, procStart: true, boot: BOOT, program: 'crawler', shared: undefined }), true, 'the live child itself');
    const dir = temp();
    plantLock(dir, reused);
    plantLock(dir, { ...otherBoot, start: String(Number(child.start) + 1) });
    const lock = await DirLock.acquire(dir, OPTIONS);
    assert.equal(lock.takenOver.length, 2);
    assert.match(lock.takeoverNote(dir, 'pageDirectory') ?? '', new RegExp(`crawler \\(PID ${child.pid}\\), crawler \\(PID ${child.pid}\\), which is no longer running`));
    lock.release();
    assert.deepEqual(readdirSync(dir), []);
  });

  test('workers of one shared crawl share the lock; a private run or another shared crawl is refused', async () => {
    const dir = temp();
    const worker = { pid: process.ppid, start: procStart(process.ppid), shared: 'crawl-A' };
    plantLock(dir, worker);
    const mate = await DirLock.acquire(dir, { ...OPTIONS, shared: 'crawl-A' });
    assert.equal(lockFiles(dir).length, 2, 'each worker has its own lock file');
    mate.release();
    assert.match(await refusal(DirLock.acquire(dir, { ...OPTIONS, shared: 'crawl-B' })), /in use by crawler \(PID \d+, a worker of another shared crawl\)/);
    assert.match(await refusal(DirLock.acquire(dir, OPTIONS)), /in use by crawler \(PID \d+, a worker of a shared crawl\)/);
    assert.equal(lockFiles(dir).length, 1);
  });

  test('files that only look like locks are neither obeyed nor touched: other text, a name that disagrees, a symlink', async () => {
    const dir = temp();
    const target = join(temp(), 'target');
    writeFileSync(target, LOCK_HEAD + JSON.stringify({ pid: process.ppid, start: procStart(process.ppid), program: 'crawler' }) + '\n');
    const foreign: Record<string, string> = {
      [`${LOCK_PREFIX}${process.ppid}-${procStart(process.ppid)}`]: 'my notes about a lock\n',
      [`${LOCK_PREFIX}${process.ppid}-1`]: LOCK_HEAD + JSON.stringify({ pid: process.ppid, start: procStart(process.ppid), program: 'crawler' }) + '\n',
      [`${LOCK_PREFIX}notes`]: 'mine\n',
    };
    for (const [n, text] of Object.entries(foreign)) writeFileSync(join(dir, n), text);
    const link = `${LOCK_PREFIX}${process.ppid}-${procStart(process.ppid)}0`;
    symlinkSync(target, join(dir, link));
    const lock = await DirLock.acquire(dir, OPTIONS);
    assert.deepEqual(lock.takenOver, []);
    lock.release();
    for (const [n, text] of Object.entries(foreign)) assert.equal(readFileSync(join(dir, n), 'utf8'), text, `${n} untouched`);
    assert.ok(lstatSync(join(dir, link)).isSymbolicLink(), 'the link is untouched');
  });

  test('a temporary lock file left by a dead process is removed; a live one\'s is left to it', async (t) => {
    const dir = temp();
    const dead = plantLock(dir, { pid: deadPid(), start: '777' });
    const live = plantLock(dir, await liveChild(t));
    const deadTemp = `${dead}.new`;
    const liveTemp = `${live}.new`;
    // As a crash between writing the temporary file and linking it leaves them.
    writeFileSync(join(dir, deadTemp), readFileSync(join(dir, dead)));
    writeFileSync(join(dir, liveTemp), readFileSync(join(dir, live)));
    unlinkSync(join(dir, dead));
    unlinkSync(join(dir, live));
    const lock = await DirLock.acquire(dir, OPTIONS);
    assert.deepEqual(lock.takenOver, [], 'a temporary file was no lock yet');
    lock.release();
    assert.deepEqual(readdirSync(dir), [liveTemp]);
  });

  test('a process that exits without releasing (process.exit) leaves no lock; one killed with SIGKILL does, and is taken over', async () => {
    const dir = temp();
    const module = fileURLToPath(new URL('../../src/sink/dir-lock.js', import.meta.url));
    const script = (end: string): string =>
      `import { DirLock } from ${JSON.stringify(module)};
       await DirLock.acquire(${JSON.stringify(dir)}, { program: 'crawler', label: 'pageDirectory', code: 'ERR_PAGE_DIRECTORY' });
       process.stdout.write('locked\\n');
       ${end}`;
    const exited = spawnSync(process.execPath, ['--input-type=module', '-e', script('process.exit(3);')], { encoding: 'utf8' });
    assert.equal(exited.status, 3, exited.stderr);
    assert.equal(exited.stdout, 'locked\n');
    assert.deepEqual(readdirSync(dir), [], 'the exit hook removed the lock');
    const child = spawn(process.execPath, ['--input-type=module', '-e', script('setInterval(() => {}, 1000);')], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((r) => child.stdout.once('data', r));
    assert.equal(lockFiles(dir).length, 1);
    assert.match(await refusal(DirLock.acquire(dir, { ...OPTIONS, contentionMs: 0 })), new RegExp(`\\(PID ${child.pid}\\)`));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
    await sleep(10);
    assert.equal(lockFiles(dir).length, 1, 'SIGKILL leaves the lock');
    const lock = await DirLock.acquire(dir, OPTIONS);
    assert.deepEqual(lock.takenOver.map((h) => h.pid), [child.pid]);
    lock.release();
    assert.deepEqual(readdirSync(dir), []);
  });
});
