/**
 * A seed file's text (src/url/seed-list.ts) and the file itself
 * (src/cli/seed-file.ts): one absolute http(s) URL a line, blank and `#`
 * lines skipped, whitespace trimmed, file order kept; a bad line named by
 * file and line number; a file that cannot be read, is a directory, is not
 * UTF-8, is too large or holds no URL, refused in one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCrawlerError } from '../../src/errors.js';
import { MAX_SEED_FILE_BYTES, readSeedFile } from '../../src/cli/seed-file.js';
import { parseSeedList } from '../../src/url/seed-list.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('seed-list-');

test('one URL a line, in file order; blank lines and # lines skipped; surrounding whitespace, CR and a BOM trimmed', () => {
  const text = '\ufeff# my seeds\r\nhttp://a.test/\r\n\r\n   https://B.test:8443/x?y  \n\t# indented comment\nhttp://a.test/\nhttp://c.test';
  const seeds = parseSeedList(text, 'f', 2048);
  assert.deepEqual(seeds.map((s) => [s.line, s.url.key]), [
    [2, 'http://a.test/'],
    [4, 'https://b.test:8443/x?y'],
    [6, 'http://a.test/'],
    [7, 'http://c.test/'],
  ], 'duplicates are kept here: the caller queues each key once');
});

function rejected(text: string, pattern: RegExp, code = 'ERR_INVALID_URL'): void {
  assert.throws(
    () => parseSeedList(text, '"s.txt"', 100),
    (err: unknown) => isCrawlerError(err) && err.code === code && pattern.test(err.message) && !/\n/.test(err.message),
    JSON.stringify(text),
  );
}

test('a line that is not an absolute http(s) URL is named by file and line number, with why', () => {
  rejected('http://a.test/\n/relative/path\n', /^--seeds "s\.txt" line 2: "\/relative\/path" is not an absolute http\(s\) URL: not an absolute URL/);
  rejected('# x\n\nftp://a.test/f\n', /^--seeds "s\.txt" line 3: "ftp:\/\/a\.test\/f" is not an absolute http\(s\) URL: unsupported scheme "ftp:"/);
  rejected('http://a.test:99999/\n', /line 1: .*invalid port/);
  rejected(`http://a.test/${'x'.repeat(200)}\n`, /line 1: .*\.\.\." is not an absolute http\(s\) URL: URL longer than 100 characters/);
  rejected('http://a.test/ http://b.test/\n', /line 1: "http:\/\/a\.test\/ http:\/\/b\.test\/" is not one URL \(one URL a line, no spaces\)/);
  rejected('http://a.test/\u001b[2J\n', /line 1: "http:\/\/a\.test\/\\u001b\[2J" holds a control character/);
});

test('a file with no URL in it (empty, blank, only comments) is refused: a seed list that lost its URLs is a mistake', () => {
  for (const text of ['', '\n\n', '# only\n  # comments\n']) rejected(text, /^--seeds "s\.txt" holds no URL/, 'ERR_INVALID_OPTION');
});

function unreadable(path: string, pattern: RegExp): void {
  assert.throws(() => readSeedFile(path, 2048), (err: unknown) => isCrawlerError(err, 'ERR_INVALID_OPTION') && pattern.test(err.message) && !/\n/.test(err.message), path);
}

test('the file: read whole, in order; a missing file, a directory, an unreadable file, one not UTF-8 or too large: one line naming it', () => {
  const dir = temp();
  const good = join(dir, 'seeds.txt');
  writeFileSync(good, 'http://a.test/\nhttp://b.test/\n');
  assert.deepEqual(readSeedFile(good, 2048).map((s) => s.url.key), ['http://a.test/', 'http://b.test/']);

  unreadable(join(dir, 'missing.txt'), /^cannot read --seeds ".*missing\.txt": no such file$/);
  mkdirSync(join(dir, 'sub'));
  unreadable(join(dir, 'sub'), /^--seeds ".*sub" is a directory, not a file of URLs$/);
  const latin1 = join(dir, 'latin1.txt');
  writeFileSync(latin1, Buffer.from('http://a.test/caf\xe9\n', 'latin1'));
  unreadable(latin1, /^--seeds ".*latin1\.txt" is not UTF-8 text$/);
  const big = join(dir, 'big.txt');
  writeFileSync(big, Buffer.alloc(MAX_SEED_FILE_BYTES + 1, 0x0a));
  unreadable(big, /^--seeds ".*big\.txt" is larger than 64 MiB/);
  if (process.getuid?.() !== 0) {
    const locked = join(dir, 'locked.txt');
    writeFileSync(locked, 'http://a.test/\n');
    chmodSync(locked, 0o000);
    unreadable(locked, /^cannot read --seeds ".*locked\.txt": permission denied$/);
  }
});

test('a pipe is read to its end (a seed list made by another command: --seeds <(...))', async () => {
  const { spawnSync } = await import('node:child_process');
  const dir = temp();
  const fifo = join(dir, 'fifo');
  if (spawnSync('mkfifo', [fifo]).status !== 0) return;
  // Another process writes it (reading it here is synchronous: this thread could not write meanwhile).
  const { spawn } = await import('node:child_process');
  const writer = spawn('sh', ['-c', 'printf "http://a.test/\\nhttp://b.test/\\n" > "$0"', fifo], { stdio: 'ignore' });
  assert.deepEqual(readSeedFile(fifo, 2048).map((s) => s.url.key), ['http://a.test/', 'http://b.test/']);
  await new Promise((resolve) => writer.once('exit', resolve));
});
