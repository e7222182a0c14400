/**
 * bench/measure.ts's `nice`: the measured command runs at the niceness
 * given (the broad section runs the crawls below its site server's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runMeasured } from '../../bench/measure.js';

/** The niceness the command sees: field 19 of /proc/self/stat, read by the measured process's own child. */
const NICENESS = ['-c', 'read -r line < /proc/self/stat; set -- ${line##*) }; shift 16; echo "$1"'];

test('runMeasured runs the command at the niceness asked for, and as the bench runs without one', async () => {
  const niced = await runMeasured('sh', NICENESS, { captureStdout: true, nice: 7 });
  assert.equal(niced.exitCode, 0, niced.stderr);
  const own = await runMeasured('sh', NICENESS, { captureStdout: true });
  const base = Number(own.stdout.trim());
  assert.ok(Number.isInteger(base), `niceness read: "${own.stdout}"`);
  assert.equal(Number(niced.stdout.trim()), Math.min(19, base + 7));
});
