#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with Node's test runner.
// Node 20's --test takes files, not globs, so this finds them; the runner prints
// the summary (tests, pass, fail, skipped) that CI reads.
//   node scripts/run-tests.js [SUBSTR...]         the tests (whose path holds a SUBSTR)
//   node scripts/run-tests.js --perf [SUBSTR...]  only the tuning checks of test/perf
// test/perf (V8 flags, the code cache, what a run loads, speed and memory
// bounds) checks tuning, not behaviour: `npm test` leaves it out, and
// `npm run test:perf` (the bench, a nightly run) runs it alone.
// A compiled test whose source is gone (a file moved or deleted since the last
// build; tsc never removes its output) is left out, and stderr says so.
// Global setup: a throwaway PostgreSQL cluster (scripts/pg-cluster.js) whose URL
// the tests get in PC_TEST_PG_URL, or PC_TEST_PG_SKIP saying why there is none.
// It is stopped and removed afterwards, also on failure, SIGINT or SIGTERM: the
// tests run in an async child so that those signals reach this process.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { postgresForTests } from './pg-cluster.js';

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const PERF = join('dist', 'test', 'perf') + sep;
const args = process.argv.slice(2);
const perf = args.includes('--perf');
const only = args.filter((a) => a !== '--perf');
/** The source of a compiled test: dist/test/x/y.test.js -> test/x/y.test.ts. */
const sourceOf = (file) => relative('dist', file).replace(/\.js$/, '.ts');
const compiled = find(join('dist', 'test'));
const stale = compiled.filter((f) => !existsSync(sourceOf(f)));
for (const f of stale) console.error(`run-tests: left out ${f}: its source ${sourceOf(f)} is gone (rm -rf dist/test, then build, clears it)`);
const matching = compiled.filter((f) => !stale.includes(f) && (only.length === 0 || only.some((o) => f.includes(o))));
const files = matching.filter((f) => f.startsWith(PERF) === perf);
if (files.length === 0) {
  if (!perf && matching.length > 0) console.error('run-tests: only tuning checks match; they run with --perf (npm run test:perf)');
  else console.error(`run-tests: no test files found under ${perf ? PERF : 'dist/test'} (did the build run?)`);
  process.exit(1);
}

/** @type {NodeJS.Signals | undefined} the first SIGINT/SIGTERM; a second one kills the tests outright */
let interrupted;
/** @type {import('node:child_process').ChildProcess | undefined} */
let child;
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(sig, () => {
    child?.kill(interrupted === undefined ? sig : 'SIGKILL');
    interrupted ??= sig;
  });
}
const pg = await postgresForTests(process.env);
let status = 1;
try {
  if (interrupted === undefined) {
    child = spawn(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit', env: pg.env });
    const tests = child;
    status = await new Promise((resolve) => {
      tests.on('error', () => resolve(1));
      tests.on('close', (code) => resolve(code ?? 1));
    });
  }
} finally {
  pg.stop();
}
process.exit(interrupted === undefined ? status : 128 + constants.signals[interrupted]);
