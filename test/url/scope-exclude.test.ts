/**
 * `--exclude REGEX` (src/url/exclude-patterns.ts): JavaScript regular
 * expressions matched anywhere in a URL's identity key; bad patterns refused
 * with the engine's reason; patterns that cannot be matched in linear time
 * refused; and no URL, however long and hostile, makes an accepted pattern
 * slow (V8 falls back to its linear-time engine).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { isCrawlerError } from '../../src/errors.js';
import { compileExclude, compileExcludes, excludedBy } from '../../src/url/exclude-patterns.js';
import { parseHttpUrl } from '../../src/url/http-url.js';

/** Patterns a backtracking engine takes seconds to ages to match against a long URL of "a"s that does not match. */
const HOSTILE = ['(a+)+$', '(a|aa)*$', '.*.*.*x', '(x+x+)+y', '(a*)*b', 'a*a*a*a*a*$x'];

const excluded = (patterns: string[], url: string): string | undefined => excludedBy(compileExcludes(patterns), parseHttpUrl(url, 100_000));

test('a pattern matches anywhere in the URL as the log prints it (the identity key): ^ and $ anchor it', () => {
  assert.equal(excluded(['/private/'], 'http://h/a/private/b.html'), '/private/');
  assert.equal(excluded(['/private/'], 'http://h/a/public/b.html'), undefined);
  assert.equal(excluded(['^https://'], 'https://h/'), '^https://');
  assert.equal(excluded(['^https://'], 'http://h/?u=https://x'), undefined);
  assert.equal(excluded(['\\.html$'], 'http://h/a.html?x'), undefined, 'the query is part of the URL');
  // The key: host lower case, default port dropped, fragment dropped, spaces percent-encoded.
  assert.equal(excluded(['^http://host/a%20b$'], 'HTTP://HOST:80/a b#frag'), '^http://host/a%20b$');
  assert.equal(excluded(['[?&]sort='], 'http://h/list?page=2&sort=asc'), '[?&]sort=');
});

test('several patterns: the first that matches is named; none matching, the URL stays', () => {
  assert.equal(excluded(['/a/', '/b/'], 'http://h/b/x'), '/b/');
  assert.equal(excluded(['/a/', '/b/'], 'http://h/a/b/x'), '/a/');
  assert.equal(excluded(['/a/', '/b/'], 'http://h/c/'), undefined);
  assert.equal(excludedBy([], parseHttpUrl('http://h/')), undefined);
});

test('no flags: matching is case-sensitive (the key\'s scheme and host are lower case already)', () => {
  assert.equal(excluded(['/Private/'], 'http://h/private/'), undefined);
  assert.equal(excluded(['example'], 'http://EXAMPLE.org/'), 'example');
});

/** The refusal of `source`: ERR_INVALID_OPTION, one line, quoting it. */
function refusal(source: string): string {
  try {
    compileExclude(source);
  } catch (err) {
    assert.ok(isCrawlerError(err, 'ERR_INVALID_OPTION'), String(err));
    // As typed (its backslashes not doubled), a line break written \n.
    assert.ok(err.message.startsWith(`invalid --exclude "${source.replace(/\n/g, '\\n')}": `), err.message);
    assert.doesNotMatch(err.message, /\n/);
    return err.message;
  }
  assert.fail(`${JSON.stringify(source)} was accepted`);
}

test('an invalid pattern is refused with JavaScript\'s reason', () => {
  assert.match(refusal('('), /not a JavaScript regular expression: Unterminated group$/);
  assert.match(refusal('a{2,1}'), /not a JavaScript regular expression: numbers out of order/);
  assert.match(refusal('[b-a]'), /not a JavaScript regular expression: Range out of order/);
  assert.match(refusal('*a'), /not a JavaScript regular expression: Nothing to repeat/);
  assert.match(refusal('(\n'), /not a JavaScript regular expression/, 'a line break in the pattern stays escaped');
});

test('an empty pattern is refused: it would exclude every URL', () => {
  assert.match(refusal(''), /empty/);
});

test('what cannot be matched in linear time is refused: backreferences, lookarounds, counted repetitions of repetitions', () => {
  for (const source of ['(a)\\1', '(?<x>a)\\k<x>', 'a(?=b)', 'a(?!b)', '(?<=a)b', '(?<!a)b', '(.*a){20}']) {
    assert.match(refusal(source), /cannot be matched in linear time/, source);
  }
});

test('nested and adjacent quantifiers are accepted: V8 matches them in linear time once backtracking runs long', () => {
  for (const source of ['(a+)+$', '(a|aa)*$', '.*.*.*x', '(x+x+)+y', '^(/[a-z]+)+\\.html$']) assert.equal(compileExclude(source).source, source);
});

test('no URL makes an accepted pattern slow: the worst a 2,048-character URL costs stays far below a second', () => {
  // Each takes seconds to hours with a backtracking engine alone: (a+)+$ took 42 s on 28 a's, and
  // .*.*.*x 2.2 s on 2,000 (measured on the test machine, without the fall-back). Run in a child
  // process with a deadline: a match that runs away cannot be interrupted in this one.
  const script = `
    import { compileExcludes, excludedBy } from ${JSON.stringify(new URL('../../src/url/exclude-patterns.js', import.meta.url).href)};
    import { parseHttpUrl } from ${JSON.stringify(new URL('../../src/url/http-url.js', import.meta.url).href)};
    const url = parseHttpUrl('http://h/' + 'a'.repeat(2038) + '!');
    if (url.key.length !== 2048) throw new Error('length ' + url.key.length);
    const times = {};
    for (const source of ${JSON.stringify(HOSTILE)}) {
      const patterns = compileExcludes([source]);
      const start = performance.now();
      excludedBy(patterns, url);
      times[source] = performance.now() - start;
    }
    process.stdout.write(JSON.stringify(times));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { timeout: 20_000, encoding: 'utf8' });
  assert.equal(run.signal, null, `killed after 20 s: a pattern ran away (${run.stderr})`);
  assert.equal(run.status, 0, run.stderr);
  const times = JSON.parse(run.stdout) as Record<string, number>;
  assert.deepEqual(Object.keys(times), HOSTILE);
  // Some 30 ms at most here (the linear engine's constant is large); 1 s leaves slack for a busy machine.
  for (const [source, ms] of Object.entries(times)) assert.ok(ms < 1000, `${source}: ${ms.toFixed(1)} ms`);
});
