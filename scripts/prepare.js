#!/usr/bin/env node
// npm's `prepare` (npm ci, npm install in a checkout, npm pack): the build,
// `tsc` and then the bundle (dist/scripts/bundle.js, esbuild), when the dev
// tools are here. An install from the packed tarball ships dist/ already
// built and has neither typescript nor tsconfig.json: it skips both.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';

const require = createRequire(import.meta.url);
const find = (id) => {
  try {
    return require.resolve(id);
  } catch {
    return undefined;
  }
};
const tsc = find('typescript/bin/tsc');
if (tsc === undefined || !existsSync('tsconfig.json')) {
  console.warn('prepare: no typescript or no tsconfig.json here, so not building (a packed install ships dist/ already built)');
  process.exit(0);
}
const run = (args) => spawnSync(process.execPath, args, { stdio: 'inherit' }).status ?? 1;
let status = run([tsc, '-p', 'tsconfig.json']);
if (status === 0) {
  if (find('esbuild') === undefined) console.warn('prepare: esbuild is not installed, so no bundle: ./crawler and ./KeywordHunter run tsc\'s output (slower to start)');
  else status = run(['dist/scripts/bundle.js']);
}
process.exit(status);
