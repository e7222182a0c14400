#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with Node's test runner.
// Node 20's --test takes files, not globs, so this finds them.
//   node scripts/run-tests.js [SUBSTR...]         the tests (whose path holds a SUBSTR)
//   node scripts/run-tests.js --perf [SUBSTR...]  only the tuning checks of test/perf
//   --concurrency=N  how many files the parallel lane runs at once (default twice
//                    the CPUs, 4 to 8; 1 runs every file alone, one after the other)
//   --times          after each lane, its 20 slowest files on stderr (scripts/file-times.js)
// test/perf (V8 flags, the code cache, what a run loads, speed and memory
// bounds) checks tuning, not behaviour: `npm test` leaves it out, and
// `npm run test:perf` (the bench, a nightly run) runs it alone, one file at a time.
// A compiled test whose source is gone (a file moved or deleted since the last
// build; tsc never removes its output) is left out, and stderr says so.
//
// Two lanes, one after the other, each a runner of its own (scripts/lane-run.js,
// node:test's run(): `node --test` would sort the files by path):
// - the parallel lane: most files, N at a time (--test-concurrency). Each file
//   is a process of its own; its servers listen on port 0 of loopback (a
//   refused or fixed port comes from below the ephemeral range,
//   helpers/refused-port.ts), its temporary folders, tmpfs mounts and
//   PostgreSQL databases (on the one cluster below) have names of their own.
//   Files share the CPU and nothing else, and most of their time is waiting.
// - the serial lane: the files whose source has a line starting with
//   `// run-tests: serial`, the reason following on that line, one at a time
//   with nothing else running: an upper bound on time that a stall behind
//   other files' CPU could break. With --perf every file is serial.
// In the parallel lane the files marked `// run-tests: long (N s: why)` start
// first, the longest first (Array.prototype.sort is stable: the rest keep
// their path order), so that no long file starts last and runs alone.
// Each lane prints with the spec reporter; the summary lines that each lane's
// runner ends with (ℹ tests, suites, pass, fail, cancelled, skipped, todo,
// duration_ms) are held back and summed, and one summary of the whole run is
// printed last, its duration_ms the wall time of both lanes. A lane's list of
// failing tests is printed where that lane ends, and all of them again just
// above the summary (a CI page shows a log's tail). The exit status is 1 when
// either lane failed.
//
// Global setup: a throwaway PostgreSQL cluster (scripts/pg-cluster.js) whose URL
// the tests get in PC_TEST_PG_URL, or PC_TEST_PG_SKIP saying why there is none.
// It is stopped and removed afterwards, also on failure, SIGINT or SIGTERM: the
// tests run in async children so that those signals reach this process.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { availableParallelism, constants } from 'node:os';
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
/** The mark of a file that runs in the serial lane: a line of its source starting so. */
const SERIAL_MARK = /^\/\/ run-tests: serial\b/m;
/** The mark of a long file, started first in the parallel lane: `// run-tests: long (N s: why)`, N its seconds alone. */
const LONG_MARK = /^\/\/ run-tests: long \((\d+) s\b/m;
/** Files at once in the parallel lane: they mostly wait, so twice the CPUs; 4 on the 2 CPUs the suite is timed on. */
const DEFAULT_CONCURRENCY = Math.min(8, Math.max(4, 2 * availableParallelism()));
const args = process.argv.slice(2);
const perf = args.includes('--perf');
const times = args.includes('--times');
const concurrencyArg = args.find((a) => a.startsWith('--concurrency='));
const concurrency = concurrencyArg === undefined ? DEFAULT_CONCURRENCY : Number(concurrencyArg.slice('--concurrency='.length));
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`run-tests: ${concurrencyArg}: the concurrency is a whole number, at least 1`);
  process.exit(1);
}
const only = args.filter((a) => a !== '--perf' && a !== '--times' && a !== concurrencyArg);
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
// The tuning checks measure speed: each runs alone.
const serial = perf || concurrency === 1 ? files : files.filter((f) => SERIAL_MARK.test(readFileSync(sourceOf(f), 'utf8')));
/** A file's stated time when its source has a line `// run-tests: long (N s ...)`, else 0. */
const longFor = (f) => Number(LONG_MARK.exec(readFileSync(sourceOf(f), 'utf8'))?.[1] ?? 0);
// The longest files start first: one of 50 s started last would run alone at the lane's end.
const parallel = files.filter((f) => !serial.includes(f)).map((f) => ({ f, s: longFor(f) }));
parallel.sort((a, b) => b.s - a.s);
const lanes = [
  { name: 'parallel', files: parallel.map((p) => p.f), concurrency },
  { name: 'serial', files: serial, concurrency: 1 },
].filter((lane) => lane.files.length > 0);

/** The summary lines a runner ends with, in their order. */
const SUMMARY = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms'];
/** @type {Map<string, number>} the sums of the lanes' summaries */
const totals = new Map(SUMMARY.map((k) => [k, 0]));
/** The lines of every lane's list of failing tests, printed again at the end. */
const failures = [];

/** @type {NodeJS.Signals | undefined} the first SIGINT/SIGTERM; a second one kills the tests outright */
let interrupted;
/** @type {import('node:child_process').ChildProcess | undefined} the lane running now */
let child;
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(sig, () => {
    child?.kill(interrupted === undefined ? sig : 'SIGKILL');
    interrupted ??= sig;
  });
}

/**
 * Runs one lane: its output passes through, but for its summary, whose
 * counts are added to totals. Resolves with the runner's exit status, 1 when
 * it printed no summary.
 * @param {{ name: string, files: string[], concurrency: number }} lane
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<number>}
 */
function runLane(lane, env) {
  const many = (n, what) => `${n} ${what}${n === 1 ? '' : 's'}`;
  console.error(`run-tests: the ${lane.name} lane: ${many(lane.files.length, 'file')}, ${lane.concurrency === 1 ? 'one at a time' : `${lane.concurrency} at a time`}`);
  // lane-run.js, not `node --test`, which would sort the files: they start in the lane's order.
  const tests = spawn(process.execPath, [join(import.meta.dirname, 'lane-run.js'), `--concurrency=${lane.concurrency}`, ...(times ? ['--times'] : []), ...lane.files], { stdio: ['ignore', 'pipe', 'inherit'], env });
  child = tests;
  /** @type {{ line: string, value: number }[]} lines that may be the lane's summary, held back until that is known */
  let held = [];
  let summarised = false;
  let failing = false;
  const release = () => {
    for (const h of held) process.stdout.write(`${h.line}\n`);
    held = [];
  };
  createInterface({ input: tests.stdout, crlfDelay: Infinity }).on('line', (line) => {
    const plain = line.replace(/\x1b\[[0-9;]*m/g, '');
    if (plain === '✖ failing tests:') failing = true;
    else if (failing && plain.startsWith('ℹ ')) failing = false;
    else if (failing) failures.push(line);
    const m = /^ℹ (\w+) (\d+(?:\.\d+)?)$/.exec(plain);
    if (m === null || m[1] !== SUMMARY[held.length]) {
      release(); // what was held was not the summary
      if (m === null || m[1] !== SUMMARY[0]) {
        process.stdout.write(`${line}\n`);
        return;
      }
    }
    held.push({ line, value: Number(m[2]) });
    if (held.length < SUMMARY.length) return;
    held.forEach((h, i) => totals.set(SUMMARY[i], totals.get(SUMMARY[i]) + h.value));
    held = [];
    summarised = true;
  });
  return new Promise((resolve) => {
    tests.on('error', () => resolve(1));
    // 'close' comes after the end of stdout, so after its last line
    tests.on('close', (code) => {
      release();
      resolve(summarised ? (code ?? 1) : 1);
    });
  });
}

const pg = await postgresForTests(process.env);
let status = 0;
const started = performance.now();
try {
  for (const lane of lanes) {
    if (interrupted !== undefined) break;
    if ((await runLane(lane, pg.env)) !== 0) status = 1;
  }
  if (interrupted === undefined) {
    // A log's tail is what a CI page shows: the failures of every lane again, just above the summary.
    if (lanes.length > 1 && failures.some((l) => l.trim() !== '')) {
      process.stdout.write('\n✖ failing tests of every lane, again:\n');
      for (const l of failures) process.stdout.write(`${l}\n`);
    }
    totals.set('duration_ms', performance.now() - started);
    for (const [key, value] of totals) process.stdout.write(`ℹ ${key} ${Number(value.toFixed(6))}\n`);
  }
} finally {
  pg.stop();
}
process.exit(interrupted === undefined ? status : 128 + constants.signals[interrupted]);
