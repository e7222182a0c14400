/**
 * crawler --since and answers that are not HTML, in process (crawlerMain
 * over a recording io, real crawl states): a crawl records each such answer
 * that carried a validator (its ETag, Last-Modified and Content-Type), and
 * a refresh asks for it with them like any page; the server's 304 stands
 * for the earlier answer, so the log says what it said then, and neither a
 * body nor a new connection is spent on it. A refresh records it again
 * for the next one. A state written before such answers were recorded is
 * refreshed with plain requests for them.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crawlerMain } from '../../src/cli/crawler.js';
import { openDatabase } from '../../src/frontier/sqlite-open.js';
import { STATE_FILE } from '../../src/sink/state-file.js';
import { cs50Line } from '../helpers/cs50-log.js';
import { recordingIo } from '../helpers/fakes.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { serveWithValidators, type ValidatorSite } from '../helpers/validator-site.js';

const { temp } = useTempDirs('tse-refresh-unkept-');

/** Longer than the 64 KiB an answer that is not HTML is read to. */
const LONG = 'x = 1\n'.repeat(40_000);


async function startSite(t: TestContext): Promise<ValidatorSite> {
  const root = temp('site-');
  writeFileSync(join(root, 'index.html'), '<html><body><a href="tool.py">tool</a> <a href="short.py">short</a></body></html>\n');
  writeFileSync(join(root, 'tool.py'), LONG);
  writeFileSync(join(root, 'short.py'), 'print(1)\n');
  return serveWithValidators(t, root);
}

async function crawler(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const rec = recordingIo();
  const code = await crawlerMain(['--delay', '0', '--ignore-robots', ...args], rec.io);
  return { code, out: rec.out(), err: rec.stderr.join('') };
}

function newDir(name: string): string {
  const d = join(temp(), name);
  mkdirSync(d);
  return d;
}

/** The log without the refresh's Unchanged lines: what a fresh crawl prints. */
const asFresh = (out: string): string => out.split('\n').filter((l) => !/^ *\d+ +Unchanged: /.test(l)).join('\n');

test('a refresh asks for an answer that is not HTML with its validators; the 304 stands for it: the same Failed line, no body', async (t) => {
  const site = await startSite(t);
  const seed = `${site.origin}/index.html`;
  const old = newDir('old');
  const first = await crawler([seed, old, '1']);
  assert.equal(first.code, 0, first.err);
  const failed = (path: string): string => cs50Line(1, 'Failed', `${site.origin}/${path}`, '(not HTML: application/octet-stream)');
  for (const path of ['tool.py', 'short.py']) assert.ok(first.out.split('\n').includes(failed(path)), first.out);
  assert.deepEqual([...site.answers].sort(), ['200 /index.html', '200 /tool.py', '200 /short.py'].sort());

  site.answers.length = 0;
  const fresh = newDir('refresh');
  const r = await crawler(['--since', old, seed, fresh, '1']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual([...site.answers].sort(), ['304 /index.html conditional', '304 /tool.py conditional', '304 /short.py conditional'].sort(), 'each asked for with its validators');
  assert.equal(asFresh(r.out), first.out, 'the log is the first crawl\'s');

  // The refresh recorded them again: a refresh of the refresh asks the same way.
  site.answers.length = 0;
  const again = newDir('again');
  assert.equal((await crawler(['-q', '--since', fresh, seed, again, '1'])).code, 0);
  assert.deepEqual([...site.answers].sort(), ['304 /index.html conditional', '304 /tool.py conditional', '304 /short.py conditional'].sort());
});

test('a changed answer that is not HTML is sent again and judged as it is now; one the state did not record is asked for plainly', async (t) => {
  const site = await startSite(t);
  const seed = `${site.origin}/index.html`;
  const old = newDir('old');
  assert.equal((await crawler(['-q', seed, old, '1'])).code, 0);
  site.change('tool.py', `${LONG}y = 2\n`);
  // A state written before such answers were recorded: no unkept table.
  const older = newDir('older');
  cpSync(old, older, { recursive: true });
  const db = openDatabase(join(older, STATE_FILE), { fileMustExist: true });
  db.exec('DROP TABLE unkept');
  db.close();

  site.answers.length = 0;
  const r = await crawler(['--since', old, seed, newDir('refresh'), '1']);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual([...site.answers].sort(), ['304 /index.html conditional', '200 /tool.py conditional', '304 /short.py conditional'].sort());
  assert.ok(r.out.split('\n').includes(cs50Line(1, 'Failed', `${site.origin}/tool.py`, '(not HTML: application/octet-stream)')), r.out);

  site.answers.length = 0;
  const plain = await crawler(['--since', older, seed, newDir('from-older'), '1']);
  assert.equal(plain.code, 0, plain.err);
  assert.deepEqual([...site.answers].sort(), ['304 /index.html conditional', '200 /tool.py', '200 /short.py'].sort());
  assert.equal(asFresh(plain.out), asFresh(r.out));
});
