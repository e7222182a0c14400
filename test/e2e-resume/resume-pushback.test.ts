/**
 * A pause a server asked for outlives the crawler (spec decision "When the
 * server pushes back": --resume keeps retry counts and pauses): a crawl
 * killed with SIGKILL while it waits out a Retry-After, then resumed, sends
 * nothing to that host, robots.txt included, before the pause ends.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACING_FILE } from '../../src/frontier/pacing-state.js';
import { longestGap } from '../helpers/arrivals.js';
import { readPages } from '../helpers/page-files.js';
import { page, startSite } from '../helpers/site-server.js';
import { runProgram, startProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('resume-pushback-');

test('SIGKILL while waiting out a Retry-After, then --resume: no request to the host before the pause ends, and the page is saved', async (t) => {
  let busy = 0;
  const s = await startSite({
    '/robots.txt': { body: 'User-agent: *\nAllow: /\n', headers: { 'content-type': 'text/plain' } },
    '/': { body: page('home', ['/busy.html', '/b.html']) },
    '/busy.html': {
      handle: (_req, res) => {
        if (busy++ === 0) {
          res.writeHead(429, { 'retry-after': '3', 'content-type': 'text/plain' });
          res.end('slow down');
        } else {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(page('busy'));
        }
      },
    },
    '/b.html': { body: page('b') },
  });
  t.after(() => s.close());
  const dir = temp();
  const args = ['--delay', '0.05', `${s.origin}/`, dir, '1'];
  const { child, done } = startProgram('crawler', args, { timeoutMs: 60_000 });
  // Killed as soon as the crawl state holds anything of the host's pacing: the pause is written first.
  const file = join(dir, PACING_FILE);
  for (let i = 0; i < 400 && !existsSync(file); i++) await sleep(2);
  assert.ok(existsSync(file), 'the pacing was kept in the crawl state');
  child.kill('SIGKILL');
  await done;
  const at429 = s.requests.findIndex((r) => r.path === '/busy.html');
  assert.ok(at429 !== -1);
  const before = s.requests.length;
  const r = await runProgram('crawler', ['--resume', ...args], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  const after = s.requests.slice(before);
  assert.ok(after.length > 0, 'the resumed crawl asked something');
  const gap = longestGap(s.requests[at429]!, after[0]!);
  assert.ok(gap >= 3000, `the resumed crawl's first request (${after[0]!.path}) came at most ${gap.toFixed(0)} ms after the 429 with Retry-After: 3`);
  assert.deepEqual(readPages(dir).map((p) => p.url.slice(s.origin.length)).sort(), ['/', '/b.html', '/busy.html']);
});
