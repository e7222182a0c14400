/**
 * ./KeywordHunter end to end (spec decision "Errors name their cause
 * first"): a page that links 40 times to a host whose name does not exist
 * prints a PAGE line (status 0) for each of those pages, as the protocol
 * wants, and one stderr line for the host. The name is under `.invalid`,
 * which the resolver answers itself (RFC 6761 §6.4): no name server is asked.
 * (The single lookup of a name that does need one: test/programs/kh-dead-host.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PAGE } from '../helpers/kh-harness.js';
import { runProgram } from '../helpers/spawn.js';
import { page, startSite } from '../helpers/site-server.js';

test('40 links to a dead host: 40 PAGE lines with status 0, one stderr line naming the cause', async (t) => {
  const links = Array.from({ length: 40 }, (_, i) => `http://gone.invalid/p${i}.html`);
  const site = await startSite({ '/index.html': { body: page('start', links) } });
  t.after(() => site.close());
  const r = await runProgram('KeywordHunter', [`${site.origin}/index.html`, 'absent keyword'], { timeoutMs: 30_000 });
  assert.equal(r.code, 0, r.stderr);
  const dead = { host: 'gone.invalid', port: 80 };
  const lines = r.stdout.split('\n');
  for (let i = 0; i < 40; i++) assert.ok(lines.includes(PAGE(dead, `/p${i}.html`, 0)), `PAGE line of /p${i}.html`);
  assert.equal(r.stderr, 'KeywordHunter: http://gone.invalid/p0.html: cannot resolve gone.invalid: host name not found (told once for gone.invalid)\n');
});
