/**
 * Temporary directories (and tmpfs mounts) for one test file, removed when
 * the file's tests end. Call once at the top level of a test file.
 */
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unmount } from './fault-server.js';

export interface TempDirs {
  /** A new empty directory under the OS temp dir. */
  temp(prefix: string): string;
  /** Mount points to unmount (before the directories are removed). */
  mounts: string[];
}

export function useTempDirs(): TempDirs {
  const dirs: string[] = [];
  const mounts: string[] = [];
  after(() => {
    for (const m of mounts) unmount(m);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return {
    temp(prefix) {
      const d = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    mounts,
  };
}
