/**
 * A cap the platform cannot honour is refused before anything else, by both
 * programs: `--max-body-bytes 3000000000` (a page of 2 GiB could not be
 * scanned nor written) and a duration longer than a timer can wait are one
 * line naming the flag, the value and the largest allowed, with the usage
 * hint, and the argument-error exit status.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { MAX_BODY_BYTES_LIMIT } from '../../src/cli/flag-limits.js';
import { assertCleanError } from '../helpers/crawler-e2e.js';
import { runProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('flag-limits-');

test('crawler --max-body-bytes 3000000000: exit 1, one line naming the flag, the value and the largest allowed; the directory untouched', async () => {
  const dir = temp();
  const r = await runProgram('crawler', ['--compressed', '--max-body-bytes', '3000000000', 'http://127.0.0.1:9/', dir, '1']);
  assertCleanError(r, new RegExp(`^crawler: --max-body-bytes 3000000000 is too large: at most ${MAX_BODY_BYTES_LIMIT} bytes on this platform \\(`), { usageHint: true });
  assert.deepEqual(readdirSync(dir), [], 'refused before the directory was touched');
});

test('crawler --response-timeout 3000000: refused, not run with a timer of 1 ms', async () => {
  const r = await runProgram('crawler', ['--response-timeout', '3000000', 'http://127.0.0.1:9/', temp(), '1']);
  assertCleanError(r, /^crawler: --response-timeout 3000000 is too long: at most 2147483\.647 seconds/, { usageHint: true });
});

test('KeywordHunter --max-body-bytes 3000000000: exit 1, the same line', async () => {
  const r = await runProgram('KeywordHunter', ['--max-body-bytes', '3000000000', 'http://127.0.0.1:9/', 'kw']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines[0], `KeywordHunter: --max-body-bytes 3000000000 is too large: at most ${MAX_BODY_BYTES_LIMIT} bytes on this platform (the longest page a link scan can read as one string)`);
  assert.match(lines[1] ?? '', /^Usage: KeywordHunter /);
  assert.equal(lines.length, 2);
});
