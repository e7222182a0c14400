/**
 * What a run loads (docs/performance.md, Start-up): a one-page crawl, `--help`
 * and KeywordHunter load only what they use. Each bin runs with a preload
 * (`node -r`) that writes, at exit, the node built-in modules loaded and
 * whether better-sqlite3's addon is mapped (/proc/self/maps); a module that
 * comes back into a start it has no use in fails here, not only in the
 * start-up bench.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('what-a-run-loads-');
const BIN = join(PROJECT_ROOT, 'dist', 'bin');
const built = existsSync(join(BIN, 'crawler.cjs')) && existsSync(join(BIN, 'keyword-hunter.cjs'));

const PRELOAD = `process.on('exit', () => {
  let maps = '';
  try { maps = require('fs').readFileSync('/proc/self/maps', 'utf8'); } catch {}
  const builtins = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  require('fs').writeFileSync(process.env.LOADS_FILE, JSON.stringify({ builtins, sqlite: maps.includes('better_sqlite3.node') }));
});`;

interface Loads {
  builtins: string[];
  sqlite: boolean;
}

async function loads(bin: string, args: string[]): Promise<Loads & { code: number | null }> {
  const dir = dirs.temp();
  const preload = join(dir, 'preload.cjs');
  const file = join(dir, 'loads.json');
  writeFileSync(preload, PRELOAD);
  const child = spawn(process.execPath, ['-r', preload, join(BIN, bin), ...args], { env: { ...process.env, LOADS_FILE: file, NODE_OPTIONS: '' }, stdio: 'ignore' });
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const { readFileSync } = await import('node:fs');
  return { code, ...(JSON.parse(readFileSync(file, 'utf8')) as Loads) };
}

/** Built-ins that a run without --warc, --wacz, --report or a shared frontier has no use for. */
const NEVER = ['zlib', 'worker_threads', 'crypto', 'fs/promises', 'internal/fs/rimraf', 'tls', 'http', 'https', 'child_process'];
const unwanted = (l: Loads): string[] => l.builtins.filter((m) => NEVER.includes(m) || m.includes('undici'));

test('a one-page crawl, --help and KeywordHunter load only what they use', { skip: built ? false : 'dist/bin not built (npm run build)' }, async (t) => {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>the needle</p>\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const pages = join(dirs.temp(), 'pages');
  mkdirSync(pages);

  const crawl = await loads('crawler.cjs', ['--delay', '0', '--quiet', url, pages, '0']);
  assert.equal(crawl.code, 0);
  assert.deepEqual(unwanted(crawl), [], 'a one-page crawl');
  assert.ok(crawl.sqlite, 'the private crawl keeps its state in SQLite (the check can see the addon)');
  assert.ok(crawl.builtins.includes('net'), 'the check sees built-ins');

  const help = await loads('crawler.cjs', ['--help']);
  assert.equal(help.code, 0);
  assert.deepEqual(unwanted(help), [], '--help');
  assert.equal(help.sqlite, false, '--help does not load better-sqlite3');

  const hunter = await loads('keyword-hunter.cjs', [url, 'needle', join(dirs.temp(), 'out')]);
  assert.equal(hunter.code, 0);
  assert.deepEqual(unwanted(hunter), [], 'KeywordHunter');
  assert.equal(hunter.sqlite, false, 'KeywordHunter keeps no SQLite state');
});
