/**
 * ./KeywordHunter end to end, the command line (the spec's section 1 "Input"
 * and "Exit Code", spec decisions "KeywordHunter": Usage): exit 0 whether the
 * keyword is found or not; exit 1 with usage on stderr and nothing on stdout
 * for every bad invocation, and then no request at all.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertOutput, FOUND, kh, NOT_FOUND, PAGE } from '../helpers/kh-harness.js';
import { startSite, type SiteServer } from '../helpers/site-server.js';

let S: SiteServer;
let U: string;
before(async () => {
  S = await startSite({
    '/': { body: 'plain FoundMe page\n' },
    '/long': { body: `[${'x'.repeat(100)}]\n[${'é'.repeat(100)}]\n[${'😀'.repeat(100)}]\n-dash-\n` },
  });
  U = `${S.origin}/`;
});
after(async () => {
  await S.close();
});

/** Exit 1, a usage message on stderr, nothing on stdout. */
function assertUsageError(r: { code: number | null; stdout: string; stderr: string }, what: string, pattern?: RegExp): void {
  assert.equal(r.code, 1, `${what}: exit 1; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '', `${what}: nothing on stdout`);
  assert.match(r.stderr, /Usage: KeywordHunter/, `${what}: usage on stderr`);
  if (pattern !== undefined) assert.match(r.stderr, pattern, `${what}: names the problem`);
  assert.ok(!/\n\s+at /.test(r.stderr), `${what}: no stack trace`);
}

describe('KeywordHunter command line', { concurrency: true }, () => {
  test('exit 0 when the keyword is found and when it is not (an unfound keyword is not an error)', async () => {
    assertOutput(await kh([U, 'FoundMe']), [PAGE(S, '/', 200), FOUND(S, '/', 'plain FoundMe page')]);
    assertOutput(await kh([U, 'NotThere']), [PAGE(S, '/', 200), NOT_FOUND]);
  });

  test('a wrong argument count (0, 1, 4 arguments): exit 1, usage, no request', async () => {
    const Q = await startSite({ '/': { body: 'FoundMe\n' } });
    const q = `${Q.origin}/`;
    for (const args of [[], [q], [q, 'FoundMe', '/tmp/kh-never-made', 'extra']]) assertUsageError(await kh(args), `${args.length} arguments`, /argument/);
    assert.equal(Q.connections, 0, 'the server received nothing');
    await Q.close();
  });

  test('an invalid StartURL: exit 1 with usage', async () => {
    const urls = ['notaurl', 'ftp://127.0.0.1/x', 'http://', '//127.0.0.1/x', 'http://exa mple.com/'];
    const runs = await Promise.all(urls.map((url) => kh([url, 'FoundMe'])));
    runs.forEach((r, i) => assertUsageError(r, JSON.stringify(urls[i]), /StartURL/));
  });

  test('an invalid port (0, 65536, abc, -1, 1e3): exit 1 with usage', async () => {
    const ports = ['0', '65536', 'abc', '-1', '1e3'];
    const runs = await Promise.all(ports.map((port) => kh([`http://127.0.0.1:${port}/`, 'FoundMe'])));
    runs.forEach((r, i) => assertUsageError(r, `port ${ports[i]}`, /port/));
  });

  test('an empty keyword or one of 101 characters: exit 1 with usage; 100 characters are accepted (code points, not bytes)', async () => {
    const L = `${S.origin}/long`;
    const [empty, x101, emoji101, e100, emoji100] = await Promise.all([kh([U, '']), kh([L, 'x'.repeat(101)]), kh([L, '😀'.repeat(101)]), kh([L, 'é'.repeat(100)]), kh([L, '😀'.repeat(100)])]);
    assertUsageError(empty, 'empty keyword', /empty/);
    assertUsageError(x101, '101 × x', /101 characters/);
    assertUsageError(emoji101, '101 × 😀', /101 characters/);
    assertOutput(e100, [PAGE(S, '/long', 200), FOUND(S, '/long', `[${'é'.repeat(100)}]`)]);
    assertOutput(emoji100, [PAGE(S, '/long', 200), FOUND(S, '/long', `[${'😀'.repeat(100)}]`)]);
  });

  test('an unknown option or a bad option value: exit 1 with usage, no request', async () => {
    const Q = await startSite({ '/': { body: 'FoundMe\n' } });
    const q = `${Q.origin}/`;
    assertUsageError(await kh(['--frobnicate', q, 'FoundMe']), 'unknown option', /frobnicate/);
    assertUsageError(await kh(['--idle-timeout', 'soon', q, 'FoundMe']), 'bad value', /idle-timeout/);
    assert.equal(Q.connections, 0, 'the server received nothing');
    await Q.close();
  });

  test('"--" ends the options, so a keyword may start with a dash', async () => {
    assertOutput(await kh(['--', `${S.origin}/long`, '-d']), [PAGE(S, '/long', 200), FOUND(S, '/long', '-dash-')]);
  });
});
