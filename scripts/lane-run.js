#!/usr/bin/env node
// One lane of scripts/run-tests.js: runs test files with Node's test runner,
// `--concurrency=N` of them at a time, STARTED IN THE ORDER GIVEN. That is why
// it exists: `node --test FILE...` sorts the files by path whatever their
// order on its command line, so the longest files (marked `// run-tests: long`)
// could not start first. node:test's run() takes the list as it is.
//   node scripts/lane-run.js --concurrency=N [--times] FILE...
// The spec reporter writes to stdout (as `node --test` with
// --test-reporter=spec --test-reporter-destination=stdout); with --times,
// scripts/file-times.js writes to stderr. The exit status is 1 when a test or
// a file failed. SIGINT/SIGTERM stop the files running (their processes are
// the runner's) and end with 130/143.
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { PassThrough } from 'node:stream';
import { constants } from 'node:os';
import fileTimes from './file-times.js';

const args = process.argv.slice(2);
const concurrencyArg = args.find((a) => a.startsWith('--concurrency='));
const concurrency = Number(concurrencyArg?.slice('--concurrency='.length) ?? 1);
const files = args.filter((a) => !a.startsWith('--'));
const stop = new AbortController();
/** @type {NodeJS.Signals | undefined} */
let stoppedBy;
for (const sig of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.on(sig, () => {
    stoppedBy ??= sig;
    stop.abort();
  });
}
const stream = run({ files, concurrency, signal: stop.signal });
stream.on('test:fail', () => {
  process.exitCode = 1;
});
const fork = () => stream.pipe(new PassThrough({ objectMode: true }));
fork().compose(spec).pipe(process.stdout);
if (args.includes('--times')) fork().compose(fileTimes).pipe(process.stderr);
process.on('exit', () => {
  if (stoppedBy !== undefined) process.exitCode = 128 + constants.signals[stoppedBy];
});
