/**
 * `--version` on both programs: one line, the program's name and the
 * package's version from package.json, exit 0, from tsc's output and from
 * the bundled bin alike; a bin whose package.json is missing says so in one
 * line and exits 1, while its --help still works.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import { runProgram, type Program } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('version-test-');
const VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const BINS: Record<Program, { bin: string; tsc: string }> = {
  crawler: { bin: 'crawler', tsc: 'crawler-bin' },
  KeywordHunter: { bin: 'keyword-hunter', tsc: 'keyword-hunter-bin' },
};
const bundle = (p: Program): string => join(PROJECT_ROOT, 'dist', 'bin', `${BINS[p].bin}.bundle.cjs`);
const tscBin = (p: Program): string => join(PROJECT_ROOT, 'dist', 'src', 'cli', `${BINS[p].tsc}.js`);
/** The bundles are built and not older than tsc's output (npm run build; a bare tsc leaves them stale). */
const bundled = (Object.keys(BINS) as Program[]).every((p) => existsSync(bundle(p)) && statSync(bundle(p)).mtimeMs >= statSync(tscBin(p)).mtimeMs);

test('the version is a semantic version in package.json', () => {
  assert.match(VERSION, /^\d+\.\d+\.\d+/);
});

for (const program of Object.keys(BINS) as Program[]) {
  test(`${program} --version prints "${program} VERSION" and exits 0, and --help lists it`, async () => {
    const r = await runProgram(program, ['--version']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${program} ${VERSION}\n`);
    assert.equal(r.stderr, '');
    const help = await runProgram(program, ['--help']);
    assert.match(help.stdout, /^ {6}--version +print the program's name and version and exit$/m);
  });

  test(`${program} --version from tsc's output and from the bundled bin alike`, { skip: bundled ? false : 'dist/bin not built or older than tsc\'s output (npm run build)' }, () => {
    for (const file of [tscBin(program), join(PROJECT_ROOT, 'dist', 'bin', `${BINS[program].bin}.cjs`)]) {
      const r = spawnSync(process.execPath, [file, '--version'], { encoding: 'utf8', cwd: dirs.temp() });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, `${program} ${VERSION}\n`, file);
    }
  });
}

test('a bin without its package.json: --version says so in one line and exits 1; --help still works', { skip: bundled ? false : 'dist/bin not built or older than tsc\'s output (npm run build)' }, () => {
  const root = dirs.temp();
  const bin = join(root, 'dist', 'bin');
  mkdirSync(bin, { recursive: true });
  for (const f of ['keyword-hunter.cjs', 'keyword-hunter.bundle.cjs']) copyFileSync(join(PROJECT_ROOT, 'dist', 'bin', f), join(bin, f));
  const r = spawnSync(process.execPath, [join(bin, 'keyword-hunter.cjs'), '--version'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `KeywordHunter: cannot read the version from ${join(root, 'package.json')}: ENOENT: no such file or directory, open '${join(root, 'package.json')}' (reinstall the package)\n`);
  const help = spawnSync(process.execPath, [join(bin, 'keyword-hunter.cjs'), '--help'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: KeywordHunter/);
});
