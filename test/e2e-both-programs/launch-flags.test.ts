/**
 * The programs' launchers start node with the options of
 * src/cli/node-flags.ts (V8's worker pool of one thread): the checkout's
 * `./crawler` and `./KeywordHunter` scripts, and the package's bins through
 * their `#!` line, which an installed bin runs by. A running program's own
 * command line (/proc/PID/cmdline) says what node was started with.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { LAUNCH_NODE_FLAGS } from '../../src/cli/node-flags.js';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('launch-flags-');
const BINS = { crawler: 'dist/bin/crawler.cjs', KeywordHunter: 'dist/bin/keyword-hunter.cjs' } as const;

test('the launchers name the flags of node-flags.ts, and only them', () => {
  assert.deepEqual(LAUNCH_NODE_FLAGS, ['--v8-pool-size=1'], 'the flag measured (docs/performance.md); change this test with it');
  for (const [script, bin] of Object.entries(BINS)) {
    const execs = readFileSync(join(PROJECT_ROOT, script), 'utf8')
      .split('\n')
      .filter((l) => l.includes('exec node'));
    assert.equal(execs.length, 2, `${script} runs node two ways (the bundle, tsc's output)`);
    for (const line of execs) assert.match(line, new RegExp(`exec node ${LAUNCH_NODE_FLAGS.join(' ')} "`), `${script}: ${line}`);
    const file = join(PROJECT_ROOT, bin);
    if (existsSync(file)) assert.equal(readFileSync(file, 'utf8').split('\n')[0], `#!/usr/bin/env -S node ${LAUNCH_NODE_FLAGS.join(' ')}`, bin);
  }
});

// A page that is answered only once the test has read the program's command line.
const held: ServerResponse[] = [];
let asked: () => void = () => {};
const server = createServer((req, res) => {
  if (req.url === '/robots.txt') return res.writeHead(404).end();
  held.push(res);
  asked();
});
after(() => {
  for (const res of held) res.end();
  server.close();
});

/** node's command line of a program started by `command`, read while it waits for its first page. */
async function commandLineOf(command: string, args: (url: string) => string[]): Promise<string[]> {
  if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const waiting = new Promise<void>((r) => (asked = r));
  const child = spawn(command, args(url), { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => child.on('close', r));
  await Promise.race([waiting, exited.then((code) => assert.fail(`${command} exited (${code}) before asking for the page: ${stderr}`))]);
  const argv = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
  for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'text/html' }).end('<p>the needle</p>\n');
  assert.equal(await exited, 0, `${command} exits 0: ${stderr}`);
  return argv;
}

for (const [script, bin] of Object.entries(BINS)) {
  const args = (url: string): string[] => (script === 'crawler' ? ['--delay', '0', url, dirs.temp(), '0'] : [url, 'needle', join(dirs.temp(), 'found')]);
  const nodeOptions = (argv: string[]): string[] => argv.slice(1, argv.findIndex((a) => a.endsWith('.cjs') || a.endsWith('.js')));

  test(`./${script} starts node with the launchers' flags`, async () => {
    assert.deepEqual(nodeOptions(await commandLineOf(join(PROJECT_ROOT, script), args)), LAUNCH_NODE_FLAGS);
  });

  test(`${bin}, run as an installed bin is (by its #! line), starts node with them too`, { skip: existsSync(join(PROJECT_ROOT, bin)) ? false : `not built: ${bin}` }, async () => {
    assert.deepEqual(nodeOptions(await commandLineOf(join(PROJECT_ROOT, bin), args)), LAUNCH_NODE_FLAGS);
  });
}
