/** The progress line: drawn on a terminal only, throttled, erased at the end. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Progress } from '../../src/output/progress.js';
import type { CliIo } from '../../src/program-io.js';

function fakeIo(tty: boolean): { io: CliIo; err: string[] } {
  const err: string[] = [];
  const io: CliIo = { stdout: () => undefined, stdoutRoom: () => undefined, stderr: (s) => void err.push(s), status: (s) => void err.push(`status:${s}`), stderrIsTTY: tty, stdoutIsTTY: false, signal: new AbortController().signal };
  return { io, err };
}

test('no progress is drawn when stderr is not a terminal', () => {
  const { io, err } = fakeIo(false);
  const p = new Progress(io);
  p.update(() => '5 pages');
  p.done();
  assert.deepEqual(err, []);
});

test('on a terminal: one carriage-return line, redrawn at most every 100 ms, erased by done()', () => {
  const { io, err } = fakeIo(true);
  const p = new Progress(io);
  p.update(() => '1 page');
  p.update(() => '2 pages'); // within 100 ms: skipped
  assert.equal(err.length, 1);
  assert.match(err[0] as string, /^status:1 page\s+$/);
  assert.equal((err[0] as string).length, 'status:'.length + 78, 'padded to the status width');
  p.done();
  assert.equal(err[1], 'status:', 'erased');
});
