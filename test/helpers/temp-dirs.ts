/**
 * The one place the tests make temporary directories (mkdtemp under the OS
 * temp dir). A test file calls useTempDirs() once at its top level: its
 * directories (and the tmpfs mounts made with tmpfs()) are removed when the file's
 * tests end. A helper that cleans up by itself uses makeTempDir.
 */
import { after, type TestContext } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountTmpfs, unmount } from './fs-faults.js';

/** A new empty directory under the OS temp dir; the caller removes it. */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface TempDirs {
  /** A new empty directory under the OS temp dir, removed after the file's tests. */
  temp(prefix?: string): string;
  /**
   * A new directory on a tmpfs of `size` ("64k", "8m"; `extra` mount
   * options such as "ro"), unmounted after the file's tests; undefined when
   * none can be mounted here (not root, no mount(8)): the test `t` is then
   * skipped with the reason printed.
   */
  tmpfs(t: TestContext, size: string, options?: { prefix?: string; extra?: string[] }): string | undefined;
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
    tmpfs(t, size, options = {}) {
      const d = makeTempDir(options.prefix ?? prefix);
      dirs.push(d);
      const why = mountTmpfs(d, size, options.extra);
      if (why !== undefined) {
        t.skip(why);
        return undefined;
      }
      mounts.push(d);
      return d;
    },
  };
}
