/**
 * spec-decisions.md, "Output through pipes": every byte a program writes
 * reaches its reader, whatever the reader is. Run the way graders and users
 * run the programs: stdout into a pipe whose reader sleeps a few seconds
 * before it reads (`prog | (sleep 3; cat > out)`), on a crawl whose output is
 * several MB, compared byte for byte with the same run's stdout to a file.
 * While the reader sleeps the crawl is held back (memory stays bounded), and
 * a reader that goes away (`| head -1`) stops the crawl cleanly, resumable.
 */
// run-tests: long (53 s: a slow pipe read for 15 s, both programs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateSite } from '../../bench/site.js';
import { staticServer } from '../../bench/static-server.js';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('pc-pipes-');
/** Pages of the generated site: the crawler's log of it is about 5.8 MB, KeywordHunter's protocol about 3.3 MB. */
const PAGES = 2000;
/** How long the slow reader sleeps before its first read. */
const READER_SLEEP_S = 3;

/** The generated site's folder, served by a static server on loopback. */
const siteRoot = dirs.temp('site-');
let server: Server;
let seed: string;

before(async () => {
  server = staticServer(siteRoot);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The site is generated for the origin it is served at (its absolute links name it).
  seed = generateSite(siteRoot, { pages: PAGES, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }).seedUrl;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Runs `command` (argv) with stdout to a file; resolves with its exit status and stderr. */
function toFile(command: string[], file: string): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(file, 'w');
  const child = spawn(command[0] as string, command.slice(1), { cwd: PROJECT_ROOT, stdio: ['ignore', fd, 'pipe'] });
  closeSync(fd);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `command | (sleep S; cat > out)` in bash, the reader sleeping first.
 * Resolves with the program's exit status, its stderr, and how many page
 * files `countDir` held when the reader woke (the crawl's progress while
 * nobody read its output).
 */
function throughSlowPipe(command: string[], out: string, countDir?: string): Promise<{ code: number; stderr: string; filesWhileStalled: number | undefined }> {
  const rc = `${out}.rc`;
  const script = `${command.map(quote).join(' ')} | (sleep ${READER_SLEEP_S}; cat > ${quote(out)}); echo "\${PIPESTATUS[0]}" > ${quote(rc)}`;
  const child = spawn('bash', ['-c', script], { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let filesWhileStalled: number | undefined;
  // Counted just before the reader wakes: the crawl has had all the time it needs to finish, were it not held back.
  const timer = setTimeout(() => {
    if (countDir !== undefined) filesWhileStalled = readdirSync(countDir).filter((n) => /^[0-9]+$/.test(n)).length;
  }, READER_SLEEP_S * 1000 - 300);
  return new Promise((resolve) =>
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ code: Number(readFileSync(rc, 'utf8').trim()), stderr, filesWhileStalled });
    }),
  );
}

describe('stdout through a pipe read slowly equals stdout to a file', { timeout: 180_000 }, () => {
  test('crawler: the whole CS50 log arrives, the crawl waits for the reader, exit 0', async () => {
    const fileDir = dirs.temp('pages-file-');
    const pipeDir = dirs.temp('pages-pipe-');
    const work = dirs.temp('out-');
    const args = (dir: string): string[] => [join(PROJECT_ROOT, 'crawler'), '--delay', '0', seed, dir, '6'];
    const file = await toFile(args(fileDir), join(work, 'file.txt'));
    assert.equal(file.code, 0, file.stderr);
    const expected = readFileSync(join(work, 'file.txt'));
    assert.ok(expected.length > 4_000_000, `the log is several MB (${expected.length} bytes)`);
    const saved = readdirSync(fileDir).filter((n) => /^[0-9]+$/.test(n)).length;

    const piped = await throughSlowPipe(args(pipeDir), join(work, 'pipe.txt'), pipeDir);
    assert.equal(piped.code, 0, piped.stderr);
    const got = readFileSync(join(work, 'pipe.txt'));
    assert.equal(got.length, expected.length, 'every byte arrived');
    assert.ok(got.equals(expected), 'byte for byte the same as to a file');
    // Held back: with nobody reading, the crawl stops once about 1 MiB of log is queued (of 5.8 MB).
    assert.ok(piped.filesWhileStalled !== undefined && piped.filesWhileStalled < saved / 2, `held back while the reader slept: ${piped.filesWhileStalled} of ${saved} pages saved`);
  });

  test('KeywordHunter: the whole protocol arrives, NOT_FOUND_KEYWORD: last, exit 0', async () => {
    const work = dirs.temp('kh-');
    const args = [join(PROJECT_ROOT, 'KeywordHunter'), seed, 'zzz-no-such-word-zzz'];
    const file = await toFile(args, join(work, 'file.txt'));
    assert.equal(file.code, 0, file.stderr);
    const expected = readFileSync(join(work, 'file.txt'));
    assert.ok(expected.length > 2_000_000, `the protocol is several MB (${expected.length} bytes)`);
    assert.ok(expected.toString('latin1').endsWith('\nNOT_FOUND_KEYWORD:\n'));

    const piped = await throughSlowPipe(args, join(work, 'pipe.txt'));
    assert.equal(piped.code, 0, piped.stderr);
    const got = readFileSync(join(work, 'pipe.txt'));
    assert.equal(got.length, expected.length, 'every byte arrived');
    assert.ok(got.equals(expected), 'byte for byte the same as to a file');
  });

  test('a reader that goes away (| head -1): the crawl stops quietly as on SIGINT (no line on stderr), exit 141, and --resume finishes it', async () => {
    const pageDir = dirs.temp('pages-head-');
    const work = dirs.temp('head-');
    const rc = join(work, 'rc');
    const crawl = [join(PROJECT_ROOT, 'crawler'), '--delay', '0', seed, pageDir, '6'];
    const child = spawn('bash', ['-c', `${crawl.map(quote).join(' ')} | head -1 > ${quote(join(work, 'first'))}; echo "\${PIPESTATUS[0]}" > ${quote(rc)}`], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    assert.equal(readFileSync(rc, 'utf8').trim(), '141', stderr);
    assert.equal(stderr, '', 'a reader that closes the pipe on purpose is normal use: nothing said (spec decision "What the programs say")');
    assert.equal(readFileSync(join(work, 'first'), 'utf8'), ` 0   Fetched: ${seed}\n`);
    const stopped = readdirSync(pageDir).filter((n) => /^[0-9]+$/.test(n)).length;

    mkdirSync(join(work, 'resume'));
    const resumed = await toFile([...crawl, '--resume'], join(work, 'resume', 'log.txt'));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming: /);
    const all = readdirSync(pageDir).filter((n) => /^[0-9]+$/.test(n)).length;
    assert.ok(all > stopped, `the resumed crawl went on (${stopped} then ${all} pages)`);
  });
});
