/**
 * `npm run build`'s second step: one file per program, bundled by esbuild
 * from tsc's output (dist/src) into dist/bin/NAME.bundle.cjs, so that a run
 * loads one file instead of ~57 ES modules (resolving, linking and compiling
 * each cost more than the code itself in a short run; docs/performance.md has
 * the figures). CommonJS, because node then loads it without starting its
 * ES module loader, and an external package is required where it is used:
 * pg, behind the PostgreSQL store's dynamic import, is still loaded only by
 * a crawl that uses it. pg stays external, found in node_modules at run
 * time; better-sqlite3's JavaScript is bundled, its native addon is not.
 *
 * The package's bins are dist/bin/NAME.cjs, a small launcher
 * (src/cli/launch.ts) that compiles the bundle with the V8 code cache
 * beside it, NAME.bundle.v8cache. The cache is made here, by each program
 * crawling a one-page site on loopback through its launcher; a bundle's
 * first line is its build stamp (a hash of the bundle), which the cache's
 * header must name.
 *
 * The launchers (./crawler, the package's bins) run the bundle only when it
 * is at least as new as tsc's output, so a `tsc` without this step never
 * runs stale code.
 */
import { build, type BuildOptions } from 'esbuild';
import { LAUNCH_NODE_FLAGS } from '../src/cli/node-flags.js';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLE_DIR = join(root, 'dist', 'bin');
const out = BUNDLE_DIR;

/** The programs: the bin's name (dist/bin/NAME.cjs, its bundle NAME.bundle.cjs) and tsc's entry file. */
export const PROGRAMS = { crawler: 'dist/src/cli/crawler-bin.js', 'keyword-hunter': 'dist/src/cli/keyword-hunter-bin.js' } as const;

/** Threads the programs start (worker_threads), each bundled beside them (src/thread/thread-file.ts finds them): the archive's and the page files'. */
export const THREADS = { 'record-thread': 'dist/src/archive/record-thread.js', 'page-thread': 'dist/src/sink/page-thread.js' } as const;

const COMMON: BuildOptions = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // better-sqlite3's JavaScript is bundled (src/frontier/sqlite-open.ts uses it beside the addon of
  // the same version); `bindings` is only its search for an addon we always name by path.
  external: ['bindings', 'pg', 'pg-native'],
  define: { BUNDLED_BETTER_SQLITE3: JSON.stringify((JSON.parse(readFileSync(join(root, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version) },
  // import() of what stays outside (node:tls, pg) becomes a require: no ES module loader in a run.
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
  legalComments: 'none',
};

export async function bundle(): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  const bundles = Object.fromEntries(Object.entries(PROGRAMS).map(([name, file]) => [`${name}.bundle`, file]));
  await build({
    ...COMMON,
    entryPoints: Object.fromEntries(Object.entries({ ...bundles, ...THREADS }).map(([name, file]) => [name, join(root, file)])),
    outdir: out,
    outExtension: { '.js': '.cjs' },
    // package-root.ts reads import.meta.url only outside a bundle (there it finds the package by __filename).
    logOverride: { 'empty-import-meta': 'silent' },
  });
  for (const name of Object.keys(PROGRAMS)) {
    stamp(join(out, `${name}.bundle.cjs`));
    await build({
      ...COMMON,
      stdin: { contents: `import { runBundle } from './dist/src/cli/launch.js';\nrunBundle(__filename.replace(/\\.cjs$/, '.bundle.cjs'));\n`, resolveDir: root, sourcefile: `${name}.cjs` },
      outfile: join(out, `${name}.cjs`),
      // env -S splits the line into node and its options (GNU coreutils 8.30, BSD env, npm's cmd-shim).
      banner: { js: `#!/usr/bin/env -S node ${LAUNCH_NODE_FLAGS.join(' ')}` },
    });
    chmodSync(join(out, `${name}.cjs`), 0o755);
  }
  await makeCodeCaches();
}

/** Replaces the bundle's first line (esbuild keeps the entry's `#!`) with its build stamp, the same number of lines. */
function stamp(file: string): void {
  const source = readFileSync(file, 'utf8');
  const body = source.startsWith('#!') ? source.slice(source.indexOf('\n')) : `\n${source}`;
  writeFileSync(file, `// build ${createHash('sha256').update(body).digest('hex').slice(0, 32)}${body}`);
}

/**
 * Runs each bin once against a one-page site on loopback, so that its
 * launcher writes the code cache with every function a short crawl
 * compiles. A failure is said, not fatal: the bins then make their cache
 * on their first run.
 */
async function makeCodeCaches(): Promise<void> {
  const page = '<!DOCTYPE html>\n<html><head><title>one</title></head><body><p>one page, the needle</p></body></html>\n';
  const server = createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end(page);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const seed = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const scratch = mkdtempSync(join(tmpdir(), 'bundle-cache-'));
  const runs: Record<keyof typeof PROGRAMS, string[]> = {
    crawler: ['--delay', '0', seed, scratch, '0'],
    'keyword-hunter': [seed, 'needle', join(scratch, 'found')],
  };
  try {
    for (const [name, args] of Object.entries(runs)) {
      // The environment's NODE_OPTIONS would change V8's flags, and so the cache's.
      const env = { ...process.env, NODE_OPTIONS: '' };
      await promisify(execFile)(process.execPath, [join(out, `${name}.cjs`), ...args], { env, timeout: 60_000 }).catch((err: unknown) => {
        console.warn(`bundle: no code cache for ${name} (${err instanceof Error ? err.message : String(err)}); it is made on the first run`);
      });
    }
  } finally {
    server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  bundle().catch((err: unknown) => {
    console.error(`bundle: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
