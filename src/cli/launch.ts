/**
 * The package's bins (dist/bin/crawler.cjs, dist/bin/keyword-hunter.cjs,
 * made by scripts/bundle.ts): each runs its program's bundle
 * (dist/bin/NAME.bundle.cjs) as CommonJS, compiled with the V8 code cache
 * beside it (NAME.bundle.v8cache), so that the bundle's functions come
 * deserialised instead of parsed and compiled, which is most of a short
 * run's compile time (docs/performance.md, Start-up).
 *
 * The cache is made by `npm run build` (a one-page crawl of each program)
 * and remade by a run without node flags (but the launchers' own,
 * node-flags.ts) that finds it missing, stale or rejected, written
 * beside the bundle through a temporary file and a rename (a directory we
 * cannot write is no error: the run just compiles). A cache that does not
 * fit is never used:
 * - its header names the bundle's build stamp (the bundle's first line),
 *   node's version and the architecture: another build or another node is
 *   not even handed to V8;
 * - V8 rejects data of another V8 version, other flags or another source
 *   length (`cachedDataRejected`), and the run compiles the source;
 * - V8 verifies the data's checksum only with --verify-snapshot-checksum (a
 *   flipped byte is otherwise a fatal error inside the deserialiser), so the
 *   flag is on while the bundle is compiled and while a cache is made, and
 *   off again before anything else runs: node's built-in modules carry code
 *   caches made without it, which the flag would make V8 reject.
 *
 * Once the bundle has loaded, V8's interrupt budget is lowered so that the
 * hot path is optimised sooner (early-tiering.ts); the cache is made under
 * the default budget, so the flag hash it carries is the one the next run
 * compiles under.
 *
 * `NODE_DEBUG=code-cache` says which way a run went (tests read it).
 * Only ever run bundled, as CommonJS: scripts/bundle.ts makes each bin of
 * this file and a line naming the bin's bundle.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { debuglog } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { Script } from 'node:vm';
import { LAUNCH_NODE_FLAGS } from './node-flags.js';
import { tierEarly, withDefaultTiering } from './early-tiering.js';

const MAGIC = 'polite-crawler code cache 1';
const debug = debuglog('code-cache');

/** The cache file of a bundle: NAME.bundle.cjs -> NAME.bundle.v8cache. */
export function cacheFileOf(bundle: string): string {
  return bundle.replace(/\.cjs$/, '.v8cache');
}

/** The bundle's build stamp: its first line, `// build ...` (scripts/bundle.ts writes it). */
function buildStamp(source: string): string {
  const end = source.indexOf('\n');
  return source.slice(0, end < 0 ? source.length : end);
}

/** The header line a cache of `source` must start with, on this node. */
function cacheHeader(source: string): string {
  return `${MAGIC} ${process.version} ${process.arch} ${buildStamp(source)}\n`;
}

/** The cache's V8 data when its header fits `source` on this node, else undefined. */
function readCache(file: string, source: string): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return undefined;
  }
  const header = Buffer.from(cacheHeader(source));
  return data.length > header.length && data.subarray(0, header.length).equals(header) ? data.subarray(header.length) : undefined;
}

/** Writes the cache of `script` (compiled from `source`); any failure leaves the old file, or none. */
export function writeCache(file: string, source: string, script: Script): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, Buffer.concat([Buffer.from(cacheHeader(source)), withDefaultTiering(() => withChecksums(() => script.createCachedData()))]));
    renameSync(tmp, file);
    debug('written %s', file);
  } catch (err) {
    rmSync(tmp, { force: true });
    debug('not written: %s', (err as Error).message);
  }
}

/** What compileBundle did with the cache. */
export type CacheUse = 'accepted' | 'rejected' | 'none';

/**
 * Compiles `source` (the file `file`) as a CommonJS module's wrapper
 * function, with `cache` when it fits.
 */
export function compileBundle(file: string, source: string, cache: Buffer | undefined): { script: Script; use: CacheUse } {
  // The bundle's `#!` line (kept by esbuild) is no comment inside the wrapper; `//` keeps every column.
  const body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  const script = withChecksums(() => new Script(Module.wrap(body), { filename: file, ...(cache === undefined ? {} : { cachedData: cache }) }));
  return { script, use: cache === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'accepted' };
}

/** Runs `step` with V8's code cache checksums made and verified, and only then (see the file's comment). */
function withChecksums<T>(step: () => T): T {
  setFlagsFromString('--verify-snapshot-checksum');
  try {
    return step();
  } finally {
    setFlagsFromString('--no-verify-snapshot-checksum');
  }
}

/**
 * Runs the bundle `file` as the program: compiled with its code cache when
 * that fits, and the cache (re)made at exit when it did not.
 */
export function runBundle(file: string): void {
  const source = readFileSync(file, 'utf8');
  const cacheFile = cacheFileOf(file);
  const { script, use } = compileBundle(file, source, readCache(cacheFile, source));
  debug('%s %s', use, cacheFile);
  // At exit the script's functions that ran are compiled too, so the cache holds them. Only a
  // run without node flags (but the launchers' own, which leave V8's flags as they are) writes:
  // V8 rejects a cache made under other flags, so runs with and without them would otherwise
  // replace each other's cache on every run.
  const plain = process.execArgv.every((a) => LAUNCH_NODE_FLAGS.includes(a)) && (process.env['NODE_OPTIONS'] ?? '') === '';
  if (use !== 'accepted' && plain) process.once('exit', () => writeCache(cacheFile, source, script));
  const module = new Module(file);
  module.filename = file;
  const require = createRequire(file);
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, require, module, file, dirname(file));
  tierEarly();
}
