/**
 * The socket budget (socket-budget.ts): the soft open-file limit read from
 * /proc/self/limits, less FILE_MARGIN for the crawl's files; a limit that
 * cannot be read counts as FALLBACK_FILE_LIMIT.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FALLBACK_FILE_LIMIT, FILE_MARGIN, openFileLimit, parseOpenFileLimit, socketBudget } from '../../src/http/socket-budget.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('socket-budget-');

/** /proc/PID/limits as Linux writes it, with the open-file line given. */
function limitsText(soft: string, hard: string): string {
  return [
    'Limit                     Soft Limit           Hard Limit           Units     ',
    'Max cpu time              unlimited            unlimited            seconds   ',
    'Max processes             96367                96367                processes ',
    `Max open files            ${soft.padEnd(21)}${hard.padEnd(21)}files     `,
    'Max locked memory         8388608              8388608              bytes     ',
    '',
  ].join('\n');
}

test('the soft limit is read, not the hard one; "unlimited" is no limit; a text without the line gives undefined', () => {
  assert.equal(parseOpenFileLimit(limitsText('256', '4096')), 256);
  assert.equal(parseOpenFileLimit(limitsText('1048576', '1048576')), 1048576);
  assert.equal(parseOpenFileLimit(limitsText('unlimited', 'unlimited')), Infinity);
  assert.equal(parseOpenFileLimit('Limit Soft Limit Hard Limit Units\nMax processes 10 10 processes\n'), undefined);
  assert.equal(parseOpenFileLimit(''), undefined);
});

test('a limits file that cannot be read, or that lacks the line, counts as the fallback limit', () => {
  const dir = temp();
  assert.equal(openFileLimit(join(dir, 'missing')), FALLBACK_FILE_LIMIT);
  writeFileSync(join(dir, 'odd'), 'nothing about files\n');
  assert.equal(openFileLimit(join(dir, 'odd')), FALLBACK_FILE_LIMIT);
  writeFileSync(join(dir, 'limits'), limitsText('300', '600'));
  assert.equal(openFileLimit(join(dir, 'limits')), 300);
});

test('this process: the limit read from /proc equals what the shell\'s ulimit -n says', { skip: existsSync('/proc/self/limits') ? false : 'no /proc/self/limits here' }, () => {
  // The child inherits this process's limit.
  const shell = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
  assert.equal(openFileLimit(), shell === 'unlimited' ? Infinity : Number(shell));
});

test('the budget is the limit less the margin, and at least one socket', () => {
  assert.equal(socketBudget(256), 256 - FILE_MARGIN);
  assert.equal(socketBudget(1024), 1024 - FILE_MARGIN);
  assert.equal(socketBudget(FILE_MARGIN + 1), 1);
  assert.equal(socketBudget(10), 1, 'a tiny limit still lets the crawl go on, one connection at a time');
  assert.equal(socketBudget(Infinity), Infinity);
});
