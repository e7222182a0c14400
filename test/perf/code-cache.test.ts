/**
 * The bins' V8 code cache (src/cli/launch.ts, made by scripts/bundle.ts):
 * the fast path is the one a built checkout takes, and a cache that does not
 * fit (damaged, of another build, of another node) is never used: the run
 * compiles the bundle, works as before and remakes the cache. Each test runs
 * a copy of KeywordHunter's bin, bundle and cache in a directory of its own
 * (KeywordHunter needs nothing from node_modules), so the build's files are
 * never touched. `NODE_DEBUG=code-cache` says which way a run went.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('code-cache-test-');
const BUILT = join(PROJECT_ROOT, 'dist', 'bin');
const FILES = ['keyword-hunter.cjs', 'keyword-hunter.bundle.cjs', 'keyword-hunter.bundle.v8cache'];
const built = FILES.every((f) => existsSync(join(BUILT, f)));

/** A copy of the built bin, bundle and cache; returns the bin's path. */
function copyOfBin(): string {
  const bin = join(dirs.temp(), 'dist', 'bin');
  mkdirSync(bin, { recursive: true });
  for (const f of FILES) copyFileSync(join(BUILT, f), join(bin, f));
  return join(bin, FILES[0]!);
}

const cacheOf = (bin: string): string => bin.replace(/\.cjs$/, '.bundle.v8cache');

/** One page holding the keyword. */
async function site(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/') res.writeHead(200, { 'content-type': 'text/html' }).end('<p>the needle</p>\n');
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Runs the bin on `url` and returns what its code cache did (the debug lines), after checking that it found the keyword. */
async function hunt(bin: string, url: string): Promise<string> {
  const child = spawn(process.execPath, [bin, url, 'needle', join(dirs.temp(), 'out')], { env: { ...process.env, NODE_DEBUG: 'code-cache', NODE_OPTIONS: '' } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(code, 0, `exit 0; stderr: ${err}`);
  assert.match(out, /^FOUND_KEYWORD:.*respath=\/;line=<p>the needle<\/p>$/m, `the keyword is found; stdout: ${out}`);
  return err;
}

/** The cache file with V8's data changed by `damage` (the header line kept). */
function damageCache(bin: string, damage: (data: Buffer) => Buffer): void {
  const file = cacheOf(bin);
  const all = readFileSync(file);
  const headerEnd = all.indexOf(0x0a) + 1;
  writeFileSync(file, Buffer.concat([all.subarray(0, headerEnd), damage(Buffer.from(all.subarray(headerEnd)))]));
}

/** The cache file with its header line rewritten by `edit`. */
function editHeader(bin: string, edit: (header: string) => string): void {
  const file = cacheOf(bin);
  const all = readFileSync(file);
  const headerEnd = all.indexOf(0x0a);
  writeFileSync(file, Buffer.concat([Buffer.from(edit(all.subarray(0, headerEnd).toString('latin1')), 'latin1'), all.subarray(headerEnd)]));
}

describe('the bins\' code cache', { concurrency: true, skip: built ? false : `not built: ${FILES.join(', ')} in ${BUILT} (npm run build)` }, () => {
  test('a run with node flags uses no cache made without them, and does not replace it', async () => {
    const bin = copyOfBin();
    const before = readFileSync(cacheOf(bin));
    const r = spawnSync(process.execPath, ['--max-semi-space-size=8', bin, '--help'], { encoding: 'utf8', env: { ...process.env, NODE_DEBUG: 'code-cache', NODE_OPTIONS: '' } });
    assert.equal(r.status, 0);
    assert.match(r.stderr, /CODE-CACHE \d+: rejected /);
    assert.doesNotMatch(r.stderr, /written/);
    assert.deepEqual(readFileSync(cacheOf(bin)), before);
  });

  test('the build\'s cache is accepted (the fast path), on --help and on a crawl, and is not rewritten', async () => {
    const bin = copyOfBin();
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env: { ...process.env, NODE_DEBUG: 'code-cache', NODE_OPTIONS: '' } });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: KeywordHunter/);
    assert.match(help.stderr, /CODE-CACHE \d+: accepted /);
    const { url, server } = await site();
    try {
      const debug = await hunt(bin, url);
      assert.match(debug, /CODE-CACHE \d+: accepted /);
      assert.doesNotMatch(debug, /written/);
    } finally {
      server.close();
    }
  });

  test('run by its #! line (node with the launchers\' flags, node-flags.ts), the bin takes the build\'s cache, and makes a missing one that a plain run takes', async () => {
    const bin = copyOfBin();
    const env = { ...process.env, NODE_DEBUG: 'code-cache', NODE_OPTIONS: '' };
    const accepted = spawnSync(bin, ['--help'], { encoding: 'utf8', env });
    assert.equal(accepted.status, 0, accepted.stderr);
    assert.match(accepted.stderr, /CODE-CACHE \d+: accepted /);
    rmSync(cacheOf(bin));
    const made = spawnSync(bin, ['--help'], { encoding: 'utf8', env });
    assert.match(made.stderr, /CODE-CACHE \d+: written /, made.stderr);
    const plain = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env });
    assert.match(plain.stderr, /CODE-CACHE \d+: accepted /, plain.stderr);
  });

  const cases: [string, (bin: string) => void, RegExp][] = [
    // Without V8's checksum a flipped byte is a fatal error inside its deserialiser (launch.ts).
    ['a flipped byte in the middle of V8\'s data', (bin) => damageCache(bin, (d) => ((d[d.length >> 1]! ^= 0xff), d)), /rejected/],
    ['V8\'s data cut short', (bin) => damageCache(bin, (d) => d.subarray(0, d.length - 1000)), /rejected/],
    ['garbage instead of V8\'s data', (bin) => damageCache(bin, (d) => Buffer.alloc(d.length, 0x5a)), /rejected/],
    ['a cache of another build of the bundle', (bin) => editHeader(bin, (h) => h.replace(/build [0-9a-f]+/, 'build 0123456789abcdef0123456789abcdef')), /none/],
    ['a cache of another node', (bin) => editHeader(bin, (h) => h.replace(process.version, 'v19.0.0')), /none/],
    ['an empty file', (bin) => writeFileSync(cacheOf(bin), ''), /none/],
    ['no cache file', (bin) => rmSync(cacheOf(bin)), /none/],
  ];
  for (const [what, spoil, how] of cases) {
    test(`${what}: not used, the run works, and the cache is made again`, async () => {
      const bin = copyOfBin();
      spoil(bin);
      const { url, server } = await site();
      try {
        const first = await hunt(bin, url);
        assert.match(first, new RegExp(`CODE-CACHE \\d+: ${how.source} `), first);
        assert.match(first, /CODE-CACHE \d+: written /, first);
        assert.match(await hunt(bin, url), /CODE-CACHE \d+: accepted /, 'the next run takes the fast path');
      } finally {
        server.close();
      }
    });
  }
});
