/**
 * The one place the tests make temporary directories (mkdtemp under the OS
 * temp dir). A test file calls useTempDirs() once at its top level: its
 * directories (and the tmpfs mounts it lists) are removed when the file's
 * tests end. A helper that cleans up by itself uses makeTempDir.
 */
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unmount } from './fs-faults.js';

/** A new empty directory under the OS temp dir; the caller removes it. */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TempDirs {
  /** A new empty directory under the OS temp dir, removed after the file's tests. */
  temp(prefix?: string): string;
  /** Mount points to unmount (before the directories are removed). */
  mounts: string[];
}

/** Temporary directories for one test file; `prefix` names them unless temp() is given another. */
export function useTempDirs(prefix = 'polite-crawler-test-'): TempDirs {
  const dirs: string[] = [];
  const mounts: string[] = [];
  after(() => {
    for (const m of mounts.splice(0)) unmount(m);
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    temp(p = prefix) {
      const d = makeTempDir(p);
      dirs.push(d);
      return d;
    },
    mounts,
  };
}
