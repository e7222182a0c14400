/**
 * Spec decision "Untrusted text on a terminal": anything that came from the
 * network (hrefs, Location values, hosts, paths) is shown on stderr with
 * control characters escaped. Every message kind that quotes such text is
 * provoked here with ESC, CR, LF, NUL, DEL and a C1 character, and stderr
 * must hold no control character but the line end of each message.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { printable, terminalText } from '../../src/output/terminal-text.js';
import { ok, redirect, startRawSite, type RawSite } from '../helpers/kh-raw.js';
import { runProgram } from '../helpers/spawn.js';

/** The six hostile characters: ESC, CR, LF, NUL, DEL, and NEL (U+0085, a C1 control). */
const HOSTILE = ['\u001b', '\r', '\n', '\u0000', '\u007f', '\u0085'] as const;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;

/** Every line of `stderr` is free of control characters, and stderr ends with a line end. */
function assertClean(stderr: string, what: string): void {
  assert.ok(stderr.length > 0, `${what}: something on stderr`);
  assert.ok(stderr.endsWith('\n'), `${what}: ends with a line end`);
  const bad = stderr.split('\n').find((line) => CONTROL.test(line));
  assert.equal(bad, undefined, `${what}: a control character reached stderr: ${JSON.stringify(bad)}`);
}

describe('terminalText: the one escape for stderr', () => {
  test('each hostile character is percent-encoded; the closing line end is kept, any other is escaped', () => {
    assert.equal(terminalText('a\u001bb\rc\u0000d\u007fe\u0085f\n'), 'a%1Bb%0Dc%00d%7Fe%C2%85f\n');
    assert.equal(terminalText('one\ntwo\n'), 'one%0Atwo\n', 'a line end inside a message cannot split it in two');
    assert.equal(terminalText('no line end\u001b[31m'), 'no line end%1B[31m');
    assert.equal(terminalText('plain text, ünïcode, tab-free\n'), 'plain text, ünïcode, tab-free\n', 'printable text is unchanged');
    assert.equal(printable('\u2028\u2029\t'), '%E2%80%A8%E2%80%A9%09');
    for (const c of HOSTILE) assert.doesNotMatch(terminalText(`x${c}y\n`).slice(0, -1), CONTROL, JSON.stringify(c));
  });
});

describe('stderr of the programs never carries a control character from the network', { concurrency: true }, () => {
  const sites: RawSite[] = [];
  const dirs: string[] = [];
  after(async () => {
    await Promise.all(sites.map((s) => s.close()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'stderr-escapes-'));
    dirs.push(d);
    return d;
  };

  test('KeywordHunter: a skipped link (invalid host) and a link whose fetch fails, each with every hostile character', async () => {
    // KeywordHunter's links are found within one line, so LF cannot be in an href: the other five can.
    const hrefs = HOSTILE.filter((c) => c !== '\n').flatMap((c) => [`//evi${c}l/`, `/esc${c}[31mred.html`]);
    const body = hrefs.map((h) => `<a href="${h}">x</a>`).join('\n');
    const site = await startRawSite({ '/': ok(Buffer.from(body, 'utf8')) });
    sites.push(site);
    const r = await runProgram('KeywordHunter', [`${site.origin}/`, 'NO-SUCH-KEYWORD', tempDir()]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /skipping link "\/\/evi%1Bl\/"/);
    assert.match(r.stderr, /skipping link "\/\/evi%C2%85l\/"/);
    assertClean(r.stderr, 'KeywordHunter links');
  });

  test('KeywordHunter: a redirect to a Location that is no http(s) URL', async () => {
    const site = await startRawSite({ '/': redirect(302, '//evi\u001bl\u007f\u0085/'), '/r2': redirect(302, 'ht\u0000tp://x/') });
    sites.push(site);
    const r = await runProgram('KeywordHunter', [`${site.origin}/`, 'NO-SUCH-KEYWORD', tempDir()]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /not following redirect to \/\/evi%1Bl%7F%C2%85\//);
    assertClean(r.stderr, 'KeywordHunter redirect');
  });

  test('crawler: the seed redirects to a hostile Location: the PANIC line is escaped', async () => {
    for (const c of HOSTILE.filter((h) => h !== '\n' && h !== '\r')) {
      // CR and LF end a header line; the other four can sit in a Location value.
      const site = await startRawSite({ '/': redirect(302, `//evi${c}l/`) });
      sites.push(site);
      const r = await runProgram('crawler', ['--delay', '0', `${site.origin}/`, tempDir(), '1']);
      assert.equal(r.code, 1, r.stderr);
      // A NUL makes the response malformed (RFC 9110 §5.5), which the PANIC says instead.
      if (c === '\u0000') assert.match(r.stderr, /^crawler: PANIC: cannot crawl .*: \(NUL in the value of field "Location"\)\n$/);
      else assert.match(r.stderr, /^crawler: PANIC: cannot crawl .*: redirected to \/\/evi%[0-9A-F%]+l\//);
      assertClean(r.stderr, `crawler PANIC with ${JSON.stringify(c)}`);
    }
  });

  test('crawler: a robots.txt redirect off the crawl, to a hostile URL', async () => {
    const site = await startRawSite({ '/robots.txt': redirect(301, 'http://other.example/\u001b[2J\u0085\u007f'), '/': ok('<p>hello</p>', 'Content-Type: text/html\r\n') });
    sites.push(site);
    const r = await runProgram('crawler', ['--delay', '0', `${site.origin}/`, tempDir(), '0']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /redirects to http:\/\/other\.example\/%1B\[2J/);
    assertClean(r.stderr, 'crawler robots.txt redirect');
  });

  test('crawler and KeywordHunter: a command-line URL with every hostile character: the usage error is escaped, the usage line kept', async () => {
    // A NUL cannot be passed in an argument (C strings end at it): the other five can.
    for (const c of HOSTILE.filter((h) => h !== '\u0000')) {
      // Invalid whether or not tabs and line ends are stripped, so nothing is ever looked up.
      const bad = `http://[ex${c}ample]/`;
      const crawler = await runProgram('crawler', [bad, tempDir(), '1']);
      assert.equal(crawler.code, 1);
      assert.match(crawler.stderr, /^crawler: invalid seedURL .*\nUsage: crawler /);
      assertClean(crawler.stderr, `crawler seedURL with ${JSON.stringify(c)}`);
      const kh = await runProgram('KeywordHunter', [bad, 'k']);
      assert.equal(kh.code, 1);
      assert.match(kh.stderr, /\nUsage: KeywordHunter /);
      assertClean(kh.stderr, `KeywordHunter StartURL with ${JSON.stringify(c)}`);
    }
  });
});
