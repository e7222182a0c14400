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
import { CrawlerError, describeError, writeError } from '../../src/errors.js';

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

test('writeError names the cause first (a full disk, a read-only file system, SQLite\'s own codes), else says what could not be written', () => {
  const sys = (code: string, message: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: ${message}`), { code });
  assert.equal(writeError('ERR_WRITE', '/d/4', sys('ENOSPC', 'no space left on device, write')).message, 'the disk is full: cannot write /d/4 (ENOSPC)');
  assert.equal(writeError('ERR_STATE', 'the crawl state /d/s.db', Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })).message, 'the disk is full: cannot write the crawl state /d/s.db (SQLITE_FULL)');
  assert.equal(writeError('ERR_WRITE', '/d/4', sys('EROFS', 'read-only file system')).message, 'the file system is read-only: cannot write /d/4 (EROFS)');
  assert.equal(writeError('ERR_STATE', 's', Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_WRITE' })).message, 'the disk reported an input/output error: cannot write s (SQLITE_IOERR_WRITE)');
  const other = writeError('ERR_WRITE', '/d/4', sys('EXDEV', "cross-device link not permitted, rename '/d/.tmp-1' -> '/e/4'"));
  assert.equal(other.message, 'cannot write /d/4: EXDEV: cross-device link not permitted', 'the call and the paths node appends are left out');
  assert.equal(other.code, 'ERR_WRITE');
});
