/**
 * describeError: the one line a user sees for any error (spec decisions
 * "Every failure is a clear one-line message"): a CrawlerError's message, a
 * system error's code once, the first line only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { CrawlerError, describeError } from '../../src/errors.js';

function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (err) {
    return err;
  }
  assert.fail('expected a throw');
}

test('a system error from node:fs: its code once, not "ENOENT: ENOENT: ..."', () => {
  const missing = join(tmpdir(), 'polite-crawler-no-such-dir', 'x');
  const line = describeError(thrownBy(() => openSync(missing, 'r')));
  assert.equal(line, `ENOENT: no such file or directory, open '${missing}'`);
});

test('an error whose message does not start with its code gets the code in front', () => {
  const err = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  assert.equal(describeError(err), 'ECONNRESET: socket hang up');
});

test('only the first line of a message; a CrawlerError as it is; anything else as a string', () => {
  assert.equal(describeError(new Error('first\n    at somewhere')), 'first');
  assert.equal(describeError(new CrawlerError('ERR_WRITE', 'cannot write x')), 'cannot write x');
  assert.equal(describeError('plain'), 'plain');
});
