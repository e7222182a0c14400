#!/usr/bin/env node
// Runs every compiled test file (dist/test/**/*.test.js) with Node's test runner.
// Node 20's --test takes files, not globs, so this finds them; the runner prints
// the summary (tests, pass, fail, skipped) that CI reads.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p));
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const only = process.argv.slice(2);
const files = find('dist/test').filter((f) => only.length === 0 || only.some((o) => f.includes(o)));
if (files.length === 0) {
  console.error('run-tests: no test files found under dist/test (did the build run?)');
  process.exit(1);
}
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
