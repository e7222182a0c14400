/**
 * File-system faults for the tests of the programs' output directories:
 * tmpfs mounts to fill up or make read-only, and running a program as
 * nobody so that permissions bind when the tests run as root.
 */
import { spawnSync } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './conformance.js';

/** True when the tests run as root (file permissions then do not bind). */
export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Mounts a tmpfs of `size` (e.g. "256k") at `dir` (options such as "ro"
 * added). Returns undefined on success, else why it could not (not root,
 * no mount(8), a sandbox that forbids it): the caller skips with that.
 */
export function mountTmpfs(dir: string, size: string, extra: string[] = []): string | undefined {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', [`size=${size}`, ...extra].join(','), 'tmpfs', dir], { encoding: 'utf8' });
  if (r.error !== undefined) return `mount(8) not available: ${r.error.message}`;
  if (r.status !== 0) return `cannot mount a tmpfs at ${dir} (needs root or CAP_SYS_ADMIN): ${r.stderr.trim() || `exit ${r.status}`}`;
  return undefined;
}

/** Gives the tmpfs mounted at `dir` a new size, keeping its files; returns why it could not, or undefined. */
export function resizeTmpfs(dir: string, size: string): string | undefined {
  const r = spawnSync('mount', ['-o', `remount,size=${size}`, dir], { encoding: 'utf8' });
  if (r.error !== undefined) return `mount(8) not available: ${r.error.message}`;
  return r.status === 0 ? undefined : `cannot resize the tmpfs at ${dir}: ${r.stderr.trim() || `exit ${r.status}`}`;
}

/** Unmounts `dir` (lazily, so that a test that failed half-way cannot leave it busy). */
export function unmount(dir: string): void {
  spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
}

/** Free bytes on the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const st = statfsSync(dir);
  return st.bavail * st.bsize;
}

/**
 * The command prefix that runs a program as `nobody` (uid/gid 65534), so
 * that directory permissions bind even when the tests run as root; or why
 * that is not possible here.
 */
export function asNobody(): { wrap: string[] } | { why: string } {
  if (!isRoot()) return { why: 'not root: no need to change user (and no way to)' };
  const wrap = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  const probe = spawnSync(wrap[0] as string, [...wrap.slice(1), join(PROJECT_ROOT, 'crawler'), '--help'], { encoding: 'utf8' });
  if (probe.error !== undefined) return { why: `setpriv not available: ${probe.error.message}` };
  if (probe.status !== 0) return { why: `cannot run ./crawler as nobody (setpriv exit ${probe.status}: ${probe.stderr.trim().split('\n')[0]})` };
  return { wrap };
}
