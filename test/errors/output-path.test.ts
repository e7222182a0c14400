/**
 * Spec decision "What the programs say": every output path (--warc, --wacz,
 * --report) is refused in the same words, cause and path in the user's terms,
 * never an errno name; a file error in words (fileErrorWords).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileErrorWords } from '../../src/errors.js';
import { checkOutputDirectory } from '../../src/output-path.js';
import { checkReportFile } from '../../src/report/report-file.js';
import { startArchive, type ArchiveRun } from '../../src/programs/archive-run.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('output-path-');

test('a directory that does not exist: "--FLAG PATH: the directory DIR does not exist", the same for --warc, --wacz and --report', async () => {
  const missing = join(temp(), 'nope');
  for (const flag of ['--warc', '--wacz', '--report']) {
    assert.throws(() => checkOutputDirectory(flag, join(missing, 'x')), { code: 'ERR_WRITE', message: `${flag} ${join(missing, 'x')}: the directory ${missing} does not exist` });
  }
  assert.throws(() => checkReportFile(join(missing, 'r.html')), { message: `--report ${join(missing, 'r.html')}: the directory ${missing} does not exist` });
  const run: ArchiveRun = { robots: 'obey', userAgent: 'test', resume: false, shared: false };
  await assert.rejects(startArchive({ path: join(missing, 'a.warc.gz'), maxSize: 0, commandLine: [] }, run, []), { message: `--warc ${join(missing, 'a.warc.gz')}: the directory ${missing} does not exist` });
  await assert.rejects(startArchive({ path: join(missing, 'a.warc.gz'), maxSize: 0, wacz: join(missing, 'a.wacz'), commandLine: [] }, run, []), { message: `--wacz ${join(missing, 'a.wacz')}: the directory ${missing} does not exist` });
});

test('a directory that cannot be written: "is not writable"', { skip: process.getuid?.() === 0 ? 'root may write anywhere: the permission case needs another user' : undefined }, () => {
  const dir = temp();
  const locked = join(dir, 'locked');
  mkdirSync(locked);
  chmodSync(locked, 0o500);
  assert.throws(() => checkOutputDirectory('--warc', join(locked, 'a.warc.gz')), { message: `--warc ${join(locked, 'a.warc.gz')}: the directory ${locked} is not writable` });
});

test('a file that is in the way of a directory is "does not exist" as a directory', () => {
  const dir = temp();
  writeFileSync(join(dir, 'file'), 'x');
  assert.throws(() => checkOutputDirectory('--report', join(dir, 'file', 'r.html')), { message: `--report ${join(dir, 'file', 'r.html')}: the directory ${join(dir, 'file')} does not exist` });
});

test('fileErrorWords: the cause in words, never an errno name alone; an unknown code keeps its words without node\'s call and path', () => {
  const sys = (code: string, text: string) => Object.assign(new Error(`${code}: ${text}, open '/x'`), { code });
  assert.equal(fileErrorWords(sys('ENOENT', 'no such file or directory')), 'no such file');
  assert.equal(fileErrorWords(sys('EACCES', 'permission denied')), 'permission denied');
  assert.equal(fileErrorWords(sys('EISDIR', 'illegal operation on a directory')), 'it is a directory');
  assert.equal(fileErrorWords(sys('ENOSPC', 'no space left on device')), 'the disk is full');
  assert.equal(fileErrorWords(sys('EXDEV', 'cross-device link not permitted')), 'EXDEV: cross-device link not permitted');
});
