/**
 * Helpers for the end-to-end tests of ./crawler (test/e2e-crawler/):
 * a run, and the check of a user error. Page files are read with
 * page-files.ts, the log with cs50-log.ts, temporary directories come from
 * temp-dirs.ts.
 */
import assert from 'node:assert/strict';
import { runProgram, type RunResult } from './spawn.js';

/** Runs ./crawler with `args`. */
export function crawl(args: string[], timeoutMs = 30_000): Promise<RunResult> {
  return runProgram('crawler', args, { timeoutMs });
}

/**
 * A user error: exactly one line on stderr (plus an optional usage hint, or
 * the line `hint` matches: what to do, after the cause), no stack trace.
 */
export function assertCleanError(r: RunResult, pattern: RegExp, opts: { usageHint?: boolean; hint?: RegExp } = {}): void {
  assert.equal(r.code, 1, `exit status 1 (stderr: ${r.stderr})`);
  assert.equal(r.stdout, '', 'nothing on stdout');
  assert.ok(r.stderr.endsWith('\n'), 'stderr ends with a newline');
  const lines = r.stderr.slice(0, -1).split('\n');
  assert.match(lines[0]!, pattern);
  assert.match(lines[0]!, /^crawler: /, 'the message names the program');
  if (opts.hint !== undefined) {
    assert.equal(lines.length, 2, `the cause, then what to do: ${r.stderr}`);
    assert.match(lines[1]!, opts.hint);
  } else if (opts.usageHint === true) {
    assert.equal(lines.length, 2, `message and usage hint: ${r.stderr}`);
    assert.match(lines[1]!, /^Usage: crawler /);
  } else if (opts.usageHint === false) {
    assert.equal(lines.length, 1, `exactly one line: ${r.stderr}`);
  } else {
    assert.ok(lines.length <= 2, `at most two lines: ${r.stderr}`);
    if (lines.length === 2) assert.match(lines[1]!, /^Usage: crawler /);
  }
  for (const l of lines) {
    assert.doesNotMatch(l, /^\s+at /, 'no stack frame');
    assert.doesNotMatch(l, /internal error|Error:|TypeError|\.js:\d+/, 'no internal error or stack');
  }
}
