/**
 * One crawl per directory (spec decision "One crawl per directory"): a run
 * holds a lock on its pageDirectory (KeywordHunter: its OutputDir) from
 * start to end, and a second run is refused before any request, with the
 * holder's PID. Workers of one shared crawl (`--frontier`) may share a
 * directory: their locks are shared with each other, and exclusive against
 * anything else.
 *
 * Node has no flock(2) without a native addon, so the lock is a file, one
 * per holder: `.crawler-lock-PID-START`, made to appear whole (written under
 * a temporary name, then linked into place: link(2) never replaces), holding
 * a first line of our own and one JSON line (PID, start time, boot ID,
 * program, shared crawl). A holder is alive when its PID runs and, where
 * /proc tells, started at the recorded time (a PID used again by another
 * process is no holder) in the same boot (a lock older than a reboot is
 * dead). A dead holder's file is removed by whoever finds it: its name
 * belongs to that process alone, so removing it never races with a live one.
 *
 * Taking the lock: write our file, then read every other holder's. Of two
 * runs starting together, at least the later writer sees the other; when
 * both see each other, the one that started later gives up, and the earlier
 * one waits (a bounded time) for it to go. A file by one of our names but
 * without our first line is not a lock: it is left alone.
 *
 * The file is removed when the run releases the lock, and, as a last resort,
 * when the process exits some other way (a second SIGINT, a closed pipe):
 * only `kill -9` (or a crash of the machine) leaves it, for the next run to
 * take over.
 */
// Synchronous file calls: they run before the first request and after the last (see tse-pagedir.ts).
import { closeSync, constants, fstatSync, linkSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CrawlerError, type ErrorCode } from '../errors.js';

/** Every lock file's name starts so (and is `.crawler-lock-PID-START`). */
export const LOCK_PREFIX = '.crawler-lock-';
const LOCK_NAME_RE = /^\.crawler-lock-([1-9][0-9]*)-([0-9]+)$/;
/** The first line of every lock file: a file by a lock's name without it is someone else's. */
export const LOCK_HEAD = 'polite-crawler directory lock\n';
/** Longest lock file we read (ours are some 200 bytes). */
const MAX_LOCK_BYTES = 4096;
/** How long an earlier starter waits for a later one that saw it to give up (ms). */
export const CONTENTION_WAIT_MS = 1000;
const POLL_MS = 20;

/** What a lock file records of its holder. */
export interface LockHolder {
  pid: number;
  /** The process's start: clock ticks since boot from /proc/PID/stat, or (without /proc) epoch ms. */
  start: string;
  /** True when `start` was read from /proc (and so can be checked against it). */
  procStart: boolean;
  /** The kernel's boot ID, when /proc gives it. */
  boot: string | undefined;
  /** The program holding it: crawler or KeywordHunter. */
  program: string;
  /** For a worker of a shared crawl: that crawl's identity (workers of one crawl share the lock). */
  shared: string | undefined;
}

/** Fields 3 onwards of /proc/PID/stat (after the command name, which may hold spaces and parentheses). */
function procStatFields(pid: number | 'self'): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The kernel's boot ID, or undefined without /proc. */
function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'latin1').trim();
  } catch {
    return undefined;
  }
}

/** This process as a lock holder. */
function thisProcess(program: string, shared: string | undefined): LockHolder {
  // Field 22 (starttime) is the 20th after the command name; field 3 is the 1st.
  const start = procStatFields('self')?.[19];
  return {
    pid: process.pid,
    start: start ?? String(Math.round(Date.now() - process.uptime() * 1000)),
    procStart: start !== undefined,
    boot: bootId(),
    program,
    shared,
  };
}

/**
 * Whether a recorded holder is still running: its PID is in use, by a
 * process that is not a zombie and that (where /proc tells) started when the
 * record says, in this boot.
 */
export function holderAlive(h: LockHolder, currentBoot: string | undefined = bootId()): boolean {
  if (h.boot !== undefined && currentBoot !== undefined && h.boot !== currentBoot) return false;
  try {
    process.kill(h.pid, 0);
  } catch (err) {
    // EPERM: it runs, as another user.
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const fields = procStatFields(h.pid);
  if (fields === undefined) return true; // no /proc: the PID runs, which is all that can be known
  if (fields[0] === 'Z' || fields[0] === 'X') return false; // killed, not yet reaped by its parent
  return !h.procStart || fields[19] === h.start;
}

/** The holder a lock file records, or undefined when it is not a lock of ours (or is damaged). */
function readHolder(path: string, pid: number, start: string): LockHolder | undefined {
  let text: string;
  try {
    // O_NOFOLLOW: a link planted under a lock's name is not read through; and only a small regular file is read.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const st = fstatSync(fd);
      if (!st.isFile() || st.size > MAX_LOCK_BYTES) return undefined;
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (!text.startsWith(LOCK_HEAD)) return undefined;
  let rec: Partial<LockHolder>;
  try {
    rec = JSON.parse(text.slice(LOCK_HEAD.length)) as Partial<LockHolder>;
  } catch {
    return undefined;
  }
  // The name and the record must agree: a PID is never taken from a file that merely looks like ours.
  if (rec.pid !== pid || rec.start !== start || typeof rec.program !== 'string') return undefined;
  return {
    pid,
    start,
    procStart: rec.procStart === true,
    boot: typeof rec.boot === 'string' ? rec.boot : undefined,
    program: rec.program,
    shared: typeof rec.shared === 'string' ? rec.shared : undefined,
  };
}

/** Removes `path`; a file already gone is fine. */
function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already (another run removed the same dead holder's file)
  }
}

/** Which of two holders started first (by start, then PID): the later one gives way. */
function startedBefore(a: LockHolder, b: LockHolder): boolean {
  const sa = BigInt(a.start);
  const sb = BigInt(b.start);
  return sa !== sb ? sa < sb : a.pid < b.pid;
}

export interface DirLockOptions {
  /** The program taking the lock (named to a run it refuses). */
  program: string;
  /** What the directory is to the user, for messages: `pageDirectory` or `OutputDir`. */
  label: string;
  /** The error code of a refusal. */
  code: ErrorCode;
  /** The identity of the shared crawl this process is a worker of: its workers may share the directory. */
  shared?: string | undefined;
  /** How long an earlier starter waits for a later one to give way (default CONTENTION_WAIT_MS). */
  contentionMs?: number;
}

/** A held lock on a directory. */
export class DirLock {
  private released = false;
  private readonly dead: LockHolder[] = [];
  private readonly onExit = (): void => this.release();

  private constructor(
    /** The lock file. */
    readonly path: string,
  ) {
    // The last resort: a process that exits before the run releases the lock (a second SIGINT, a closed pipe).
    process.on('exit', this.onExit);
  }

  /** The dead holders whose locks were taken over. */
  get takenOver(): readonly LockHolder[] {
    return this.dead;
  }

  /**
   * Takes the lock on `dir`, or throws a CrawlerError (`options.code`)
   * naming the live holder's PID. Locks left by dead processes are removed
   * and listed in `takenOver`.
   */
  static async acquire(dir: string, options: DirLockOptions): Promise<DirLock> {
    const me = thisProcess(options.program, options.shared);
    const name = `${LOCK_PREFIX}${me.pid}-${me.start}`;
    writeLockFile(dir, name, me, options);
    const lock = new DirLock(join(dir, name));
    const deadline = performance.now() + (options.contentionMs ?? CONTENTION_WAIT_MS);
    try {
      for (;;) {
        const holder = liveConflict(dir, name, me, lock.dead);
        if (holder === undefined) return lock;
        // A holder that started after us and saw our file gives way at once; one that did not see it never will.
        if (startedBefore(holder, me) || performance.now() >= deadline) throw refusal(dir, holder, options);
        await sleep(POLL_MS);
      }
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  /** One line for stderr when dead holders' locks were taken over, else undefined. */
  takeoverNote(dir: string, label: string): string | undefined {
    if (this.takenOver.length === 0) return undefined;
    const pids = this.takenOver.map((h) => `${h.program} (PID ${h.pid})`).join(', ');
    return `${label} "${dir}" was locked by ${pids}, which is no longer running: lock taken over`;
  }

  /** Removes the lock file (once; later calls do nothing). */
  release(): void {
    if (this.released) return;
    this.released = true;
    process.removeListener('exit', this.onExit);
    unlinkQuietly(this.path);
  }
}

/**
 * Writes our lock file whole: under a temporary name first, then linked to
 * `name` (link(2) never replaces). A file already there by our name is this
 * process's own lock (taken twice: refused), a dead process's of another
 * boot (replaced), or not ours (an error; it is left alone).
 */
function writeLockFile(dir: string, name: string, me: LockHolder, options: DirLockOptions): void {
  const text = LOCK_HEAD + JSON.stringify(me) + '\n';
  const temp = join(dir, `${name}.new`);
  const path = join(dir, name);
  const fail = (err: unknown): CrawlerError =>
    new CrawlerError(options.code, `${options.label} "${dir}": cannot write the lock file ${name} (${(err as NodeJS.ErrnoException).code ?? String(err)})`, { cause: err });
  try {
    unlinkQuietly(temp); // left by a crash of a process with our PID and start, in another boot
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    for (let tries = 0; ; tries++) {
      try {
        linkSync(temp, path);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) throw fail(err);
        const there = readHolder(path, me.pid, me.start);
        if (there === undefined) throw fail(err);
        if (holderAlive(there, me.boot)) throw refusal(dir, there, options);
        unlinkQuietly(path);
      }
    }
  } catch (err) {
    throw err instanceof CrawlerError ? err : fail(err);
  } finally {
    unlinkQuietly(temp);
  }
}

/**
 * The first live holder, other than us, that we may not share the directory
 * with; dead holders' files (and their temporary files) are removed on the
 * way and added to `takenOver`.
 */
function liveConflict(dir: string, mine: string, me: LockHolder, takenOver: LockHolder[]): LockHolder | undefined {
  const boot = me.boot;
  for (const entry of readdirSync(dir)) {
    if (!entry.startsWith(LOCK_PREFIX) || entry === mine) continue;
    // A temporary file (`NAME.new`) is left only by a process that died while taking a lock.
    const temporary = entry.endsWith('.new');
    const m = LOCK_NAME_RE.exec(temporary ? entry.slice(0, -4) : entry);
    if (m === null) continue;
    const holder = readHolder(join(dir, entry), Number(m[1]), m[2] as string);
    if (holder === undefined) continue; // not a lock of ours
    if (!holderAlive(holder, boot)) {
      unlinkQuietly(join(dir, entry));
      if (!temporary) takenOver.push(holder);
      continue;
    }
    if (temporary) continue; // a live process taking a lock: its lock file is seen on its own
    if (me.shared !== undefined && holder.shared === me.shared) continue; // a worker of the same shared crawl
    return holder;
  }
  return undefined;
}

/**
 * A live holder of a lock on `dir`, found without taking a lock or touching
 * anything (a dead holder's file is left for the directory's next crawl):
 * for a run that only reads the directory (crawler --since), which must not
 * read a crawl while it is being written. Undefined when there is none.
 */
export function liveHolderOf(dir: string): LockHolder | undefined {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const boot = bootId();
  for (const entry of names) {
    const m = entry.endsWith('.new') ? null : LOCK_NAME_RE.exec(entry);
    if (m === null) continue;
    const holder = readHolder(join(dir, entry), Number(m[1]), m[2] as string);
    if (holder !== undefined && holderAlive(holder, boot)) return holder;
  }
  return undefined;
}

/** The one-line refusal: the cause, the holder's PID, and what to do. */
function refusal(dir: string, holder: LockHolder, options: DirLockOptions): CrawlerError {
  const worker = holder.shared === undefined ? '' : `, a worker of ${options.shared === undefined ? 'a' : 'another'} shared crawl`;
  return new CrawlerError(
    options.code,
    `${options.label} "${dir}" is in use by ${holder.program} (PID ${holder.pid}${worker}): wait for it to end, or stop it, or choose another directory`,
  );
}
