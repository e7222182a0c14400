/**
 * ./crawler end to end, the command line (spec decisions "Every failure is a
 * clear one-line message", "crawler": Usage, seedURL, pageDirectory,
 * maxDepth, Exit): each bad argument exits 1 with one line on stderr (an
 * argument error adds a usage hint as a second line), never a stack trace,
 * and writes no page file. --help documents every flag.
 */
// run-tests: long (13 s: the program spawned for each case)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertCleanError, crawl } from '../helpers/crawler-e2e.js';
import { exampleCommands } from '../helpers/help-examples.js';
import { numberedFiles, pageList } from '../helpers/page-files.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('crawler-e2e-');

let site: SiteServer;
let ext: SiteServer;
/** A server only the "before any request" tests point at: any request it gets is theirs. */
let untouched: SiteServer;
let refused = 0;

before(async () => {
  ext = await startSite({ '/x.html': { body: page('x') } }, '127.0.0.2');
  untouched = await startSite({ '/index.html': { body: page('index') } });
  site = await startSite({
    '/': { body: page('home', ['a.html']) },
    '/index.html': { body: page('index', ['a.html']) },
    '/a.html': { body: page('a') },
    '/image.html': { headers: { 'content-type': 'image/png' }, body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a]) },
    '/broken.html': { status: 500, body: page('error') },
    '/to-ext.html': { status: 302, headers: { location: `${ext.origin}/x.html` } },
    '/loop.html': { status: 301, headers: { location: '/loop2.html' } },
    '/loop2.html': { status: 301, headers: { location: '/loop.html' } },
    '/moved.html': { status: 308, headers: { location: '/index.html' } },
  });
  refused = await refusedPort();
});

after(async () => {
  await Promise.all([site.close(), ext.close(), untouched.close()]);
});

const seed = (): string => `${site.origin}/index.html`;

/** Runs the crawler on `args(dir)` in a fresh directory; checks exit 1, the message, no page file. */
async function rejects(args: (dir: string) => string[], pattern: RegExp, usageHint: boolean): Promise<void> {
  const dir = tempDir();
  const r = await crawl(args(dir));
  assertCleanError(r, pattern, { usageHint });
  assert.deepEqual(numberedFiles(dir), [], 'no page file written');
}

describe('argument count', { concurrency: true }, () => {
  test('no argument: exit 1, says 3 are expected, usage hint', () => rejects(() => [], /expected 3 arguments.*got 0/, true));
  test('two arguments: exit 1, usage hint', () => rejects((d) => [seed(), d], /expected 3 arguments.*got 2/, true));
  test('four arguments: exit 1, usage hint', () => rejects((d) => [seed(), d, '1', 'extra'], /expected 3 arguments.*got 4/, true));
  test('an unknown option: exit 1, names it', () => rejects((d) => ['--frobnicate', seed(), d, '1'], /--frobnicate/, true));
});

describe('maxDepth: decimal digits only, up to the depth limit', { concurrency: true }, () => {
  for (const bad of ['-1', '2.5', '1e2', 'abc', '', '+1', '0x1', ' 1']) {
    test(`maxDepth ${JSON.stringify(bad)}: rejected, the message quotes it`, () =>
      rejects((d) => [seed(), d, bad], new RegExp(`maxDepth.*"${bad.replace(/[.+]/g, '\\$&')}"`), true));
  }
  test('maxDepth 11: above the default limit 10, the message names the limit and --depth-limit', () =>
    rejects((d) => [seed(), d, '11'], /maxDepth 11 .*limit 10.*--depth-limit/, true));
  test('--depth-limit 12 accepts maxDepth 11', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', '--depth-limit', '12', seed(), dir, '11']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(pageList(dir), [`1 ${seed()} 0`, `2 ${site.origin}/a.html 1`]);
  });
  test('--depth-limit 2 rejects maxDepth 3', () => rejects((d) => ['--depth-limit', '2', seed(), d, '3'], /maxDepth 3 .*limit 2/, true));
  test('maxDepth 10 (the default limit) is accepted', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', seed(), dir, '10']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(numberedFiles(dir).length, 2);
  });
});

describe('pageDirectory: an existing, writable directory, never created', { concurrency: true }, () => {
  test('a missing directory: exit 1, says it does not exist, not created', async () => {
    const parent = tempDir();
    const missing = join(parent, 'nope');
    const r = await crawl([seed(), missing, '1']);
    assertCleanError(r, /pageDirectory ".*nope" does not exist/, { usageHint: false });
    assert.deepEqual(numberedFiles(parent), []);
  });
  test('a file given as the directory: exit 1, says it is not a directory, the file untouched', async () => {
    const parent = tempDir();
    const file = join(parent, 'plain-file');
    writeFileSync(file, 'keep me');
    const r = await crawl([seed(), file, '1']);
    assertCleanError(r, /pageDirectory ".*plain-file" is not a directory/, { usageHint: false });
  });
});

describe('seedURL', { concurrency: true }, () => {
  test('an invalid URL: exit 1, quotes it', () => rejects((d) => ['not a url', d, '1'], /invalid seedURL "not a url"/, true));
  test('a relative URL: exit 1', () => rejects((d) => ['/index.html', d, '1'], /invalid seedURL "\/index\.html"/, true));
  test('a seed without a scheme: exit 1, names it once and says to add http:// or https://', () => rejects((d) => ['www.example.com', d, '1'], /^crawler: invalid seedURL "www\.example\.com": no scheme: add http:\/\/ or https:\/\/$/, true));
  test('a mistyped option: exit 1, names the nearest known one', () => rejects((d) => ['--dealy', '0', seed(), d, '1'], /^crawler: unknown option --dealy; did you mean --delay\? \(see --help\)$/, true));
  test('ftp://: exit 1, says only http and https', () => rejects((d) => ['ftp://127.0.0.1/file.html', d, '1'], /invalid seedURL "ftp:.*http and https/, true));
  test('a seed that answers 404: PANIC: cannot crawl, with the status', () =>
    rejects((d) => ['--delay', '0', `${site.origin}/missing.html`, d, '1'], /^crawler: PANIC: cannot crawl .*missing\.html.*404/, false));
  test('a seed that answers 500: PANIC: cannot crawl, with the status', () =>
    rejects((d) => ['--delay', '0', `${site.origin}/broken.html`, d, '1'], /^crawler: PANIC: cannot crawl .*broken\.html.*500/, false));
  // Every way a seed's host cannot be reached, with and without --ignore-robots: test/e2e-crawler/seed-unreachable.test.ts.
  test('a seed whose port refuses connections: PANIC: cannot crawl, says the connection was refused, then what to check', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `http://127.0.0.1:${refused}/index.html`, dir, '1']);
    assertCleanError(r, /^crawler: PANIC: cannot crawl .*: cannot connect to 127\.0\.0\.1:\d+: connection refused$/, { hint: /^Check the URL's host and port/ });
    assert.deepEqual(numberedFiles(dir), [], 'no page file written');
  });
  test('a seed that is not HTML (image/png): PANIC: cannot crawl, names the type', () =>
    rejects((d) => ['--delay', '0', `${site.origin}/image.html`, d, '1'], /^crawler: PANIC: cannot crawl .*image\.html.*image\/png/, false));
  test('a seed that redirects to another host: PANIC: cannot crawl, the other host gets no request', async () => {
    await rejects((d) => ['--delay', '0', `${site.origin}/to-ext.html`, d, '1'], /^crawler: PANIC: cannot crawl .*to-ext\.html.*outside the crawl/, false);
    assert.deepEqual(ext.paths(), []);
  });
  test('a seed that redirects in a loop: PANIC: cannot crawl', () =>
    rejects((d) => ['--delay', '0', `${site.origin}/loop.html`, d, '1'], /^crawler: PANIC: cannot crawl .*loop\.html/, false));
  test('a seed that redirects internally is saved under the final URL, ID 1, depth 0', async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', `${site.origin}/moved.html`, dir, '1']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(pageList(dir), [`1 ${seed()} 0`, `2 ${site.origin}/a.html 1`]);
  });
  test('--internal that excludes the seed: exit 1, says so', () =>
    rejects((d) => ['--internal', `${site.origin}/other/`, seed(), d, '1'], /not inside --internal/, true));
});

describe('other options', { concurrency: true }, () => {
  test('--delay abc: exit 1, names the option', () => rejects((d) => ['--delay', 'abc', seed(), d, '1'], /delay/, true));
  test('--delay -1: exit 1', () => rejects((d) => ['--delay', '-1', seed(), d, '1'], /delay/, true));
  test('--max-pages with no value: exit 1', () => rejects((d) => [seed(), d, '1', '--max-pages'], /max-pages/, true));
  test('--user-agent with CR/LF: exit 1 naming the option, before any request', async () => {
    await rejects((d) => ['--user-agent', 'evil\r\nX-Injected: 1', `${untouched.origin}/index.html`, d, '1'], /^crawler: --user-agent .*control characters/, true);
    assert.deepEqual(untouched.paths(), [], 'no request');
  });
  test('--user-agent empty: exit 1 naming the option', () => rejects((d) => ['--user-agent', '', seed(), d, '1'], /^crawler: --user-agent must not be empty/, true));
  test('--write-thread other than auto, on or off: exit 1 naming the option and its values, before any request', async () => {
    await rejects((d) => ['--write-thread', 'sometimes', `${untouched.origin}/index.html`, d, '1'], /^crawler: --write-thread must be auto, on or off, got "sometimes"/, true);
    assert.deepEqual(untouched.paths(), [], 'no request');
  });
  for (const when of ['auto', 'on', 'off']) {
    test(`--write-thread ${when}: the crawl saves its pages`, async () => {
      const dir = tempDir();
      const r = await crawl(['--delay', '0', '--write-thread', when, seed(), dir, '1']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(pageList(dir)[0], `1 ${seed()} 0`);
    });
  }
});

test('--help: exit 0, usage on stdout, every flag documented, nothing on stderr', async () => {
  const r = await crawl(['--help']);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^Usage: crawler \[options\] seedURL pageDirectory maxDepth/);
  const flags = [
    'help', 'delay', 'depth-limit', 'internal', 'internal-domain', 'any-host', 'exclude', 'seeds', 'ignore-robots', 'max-pages', 'user-agent', 'resume', 'quiet', 'json',
    'concurrency', 'connections-per-host', 'connect-timeout', 'idle-timeout', 'response-timeout', 'max-header-bytes',
    'max-body-bytes', 'max-redirects', 'max-url-length', 'max-path-depth', 'no-keep-alive', 'insecure',
  ];
  for (const f of flags) assert.match(r.stdout, new RegExp(`--${f}\\b`), `--${f} documented`);
  for (const w of ['Fetched', 'Scanning', 'Found', 'Added', 'IgnDupl', 'IgnExtrn', 'IgnRobots', 'Failed']) assert.ok(r.stdout.includes(w), `log word ${w} documented`);
  assert.match(r.stdout, /130/, 'exit status 130 documented');
  // Every option line of the help (a flag at the option column, not a wrapped description that starts with one) has a description.
  for (const line of r.stdout.split('\n').filter((l) => /^ {2}(-\w, | {4})--[a-z-]+/.test(l))) assert.match(line, /--[a-z-]+(?: [A-Z_]+)?\s{2,}\S/, `described: ${line}`);
});

test('--help\'s first example (your own server, --delay 0), pointed at a loopback server and a new directory, crawls it', async () => {
  const help = await crawl(['--help']);
  const [own] = exampleCommands(help.stdout, 'crawler');
  assert.deepEqual(own, ['crawler', '--delay', '0', 'http://127.0.0.1:8080/', 'pages', '3']);
  const dir = tempDir();
  const r = await crawl(own!.slice(1).map((w) => (w === 'http://127.0.0.1:8080/' ? `${site.origin}/` : w === 'pages' ? dir : w)));
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(pageList(dir), [`1 ${site.origin}/ 0`, `2 ${site.origin}/a.html 1`]);
});
