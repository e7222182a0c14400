/**
 * `npm run build`'s second step: one file per program, bundled by esbuild
 * from tsc's output (dist/src) into dist/bin/NAME.cjs, so that a run loads
 * one file instead of ~57 ES modules (resolving, linking and compiling each
 * cost more than the code itself in a short run; bench/README.md has the
 * figures). CommonJS, because node then loads the entry point without
 * starting its ES module loader, and an external package is required where
 * it is used: pg, behind the PostgreSQL store's dynamic import, is still
 * loaded only by a crawl that uses it. better-sqlite3 (a native module) and
 * pg stay external, found in node_modules at run time.
 *
 * The launchers (./crawler, the package's bins) run the bundle only when it
 * is at least as new as tsc's output, so a `tsc` without this step never
 * runs stale code.
 */
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLE_DIR = join(root, 'dist', 'bin');
const out = BUNDLE_DIR;

/** The programs: the bundle's name (dist/bin/NAME.cjs) and tsc's entry file. */
export const PROGRAMS = { crawler: 'dist/src/cli/crawler-bin.js', 'keyword-hunter': 'dist/src/cli/keyword-hunter-bin.js' } as const;

/** Threads the programs start (worker_threads), each bundled beside them: the archive's thread (src/archive/record-thread-client.ts finds it). */
export const THREADS = { 'record-thread': 'dist/src/archive/record-thread.js' } as const;

export async function bundle(): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries({ ...PROGRAMS, ...THREADS }).map(([name, file]) => [name, join(root, file)])),
    outdir: out,
    outExtension: { '.js': '.cjs' },
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'pg', 'pg-native'],
    logLevel: 'warning',
    legalComments: 'none',
    // record-thread-client.ts reads import.meta.url only outside a bundle (it finds the bundled thread by __filename).
    logOverride: { 'empty-import-meta': 'silent' },
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  bundle().catch((err: unknown) => {
    console.error(`bundle: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
