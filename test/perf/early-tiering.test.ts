/**
 * Early tiering (src/cli/early-tiering.ts): once a bin's bundle has loaded, V8's
 * interrupt budget is a quarter of its default, so the crawl's hot
 * functions are optimised after fewer pages. Each run has a preload that,
 * at exit, calls a small function until V8 decides to optimise it (V8's
 * own status, with --allow-natives-syntax) and writes how many calls that
 * took: for both bins it must be under half of what plain node needs,
 * and a budget given on node's command line is kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('early-tiering-');
const BIN = join(PROJECT_ROOT, 'dist', 'bin');
const built = existsSync(join(BIN, 'crawler.cjs')) && existsSync(join(BIN, 'keyword-hunter.cjs'));
/** The V8 the budget was measured on (early-tiering.ts sets it on no other). */
const measuredV8 = process.versions.v8.startsWith('11.3.');

// V8's OptimizationStatus bits: optimised, TurboFan code, marked for optimisation
// (now or concurrently), being optimised concurrently.
const DECIDED = (1 << 4) | (1 << 6) | (1 << 8) | (1 << 9) | (1 << 10);
const PROBE = `process.on('exit', () => {
  const f = function probe(x) { return (x * 31 + 7) ^ (x >>> 2); };
  let n = 0;
  while (n < 1000000) { f(n); n++; if ((n & 63) === 0 && (%GetOptimizationStatus(f) & ${DECIDED}) !== 0) break; }
  require('fs').writeFileSync(process.env.TIER_FILE, String(n));
});`;

/** Runs node with the probe and `args`; returns the calls until V8 decided to optimise the probe. */
async function callsToTier(args: string[], nodeFlags: string[] = []): Promise<number> {
  const dir = dirs.temp();
  const preload = join(dir, 'probe.cjs');
  const file = join(dir, 'calls');
  writeFileSync(preload, PROBE);
  const child = spawn(process.execPath, ['--allow-natives-syntax', ...nodeFlags, '-r', preload, ...args], { env: { ...process.env, TIER_FILE: file, NODE_OPTIONS: '' }, stdio: 'ignore' });
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(code, 0, `node ${args.join(' ')}: exit 0`);
  return Number(readFileSync(file, 'utf8'));
}

const skip = !built ? 'dist/bin not built (npm run build)' : !measuredV8 ? `V8 ${process.versions.v8}: early tiering is set only on V8 11.3 (node 20)` : false;

test('both bins optimise a hot function after under half the calls plain node needs; a budget given to node is kept', { skip }, async (t) => {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>the needle</p>\n'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.after(() => server.close());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const crawl = (): string[] => {
    const pages = join(dirs.temp(), 'pages');
    mkdirSync(pages);
    return [join(BIN, 'crawler.cjs'), '--delay', '0', '--quiet', url, pages, '0'];
  };

  const plain = await callsToTier(['-e', '0']);
  const crawler = await callsToTier(crawl());
  const hunter = await callsToTier([join(BIN, 'keyword-hunter.cjs'), url, 'needle', join(dirs.temp(), 'out')]);
  t.diagnostic(`calls until V8 decides to optimise: plain node ${plain}, crawler ${crawler}, KeywordHunter ${hunter}`);
  assert.ok(plain < 1000000, 'plain node optimises the probe at all');
  assert.ok(crawler * 2 < plain, `crawler: ${crawler} calls against ${plain}`);
  assert.ok(hunter * 2 < plain, `KeywordHunter: ${hunter} calls against ${plain}`);
  // A budget given to node is the user's: kept (here V8's default, so as many calls as plain node).
  const given = await callsToTier(crawl(), ['--interrupt-budget=67584']);
  assert.equal(given, plain, 'a budget on node\'s command line is kept');
});
