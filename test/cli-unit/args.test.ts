/** The flag table: parsing, validation messages, and help that lists every flag. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFlags, parseArgs, type FlagSpec } from '../../src/cli/args.js';
import { isCrawlerError } from '../../src/errors.js';

const SPECS: FlagSpec[] = [
  { name: 'delay', type: 'duration', default: 1, help: 'd' },
  { name: 'max', type: 'count', help: 'm' },
  { name: 'quiet', short: 'q', type: 'boolean', help: 'q' },
  { name: 'name', type: 'string', help: 'n' },
];

test('flags in both forms, positionals kept in order, defaults applied', () => {
  const r = parseArgs(['--delay', '0.5', 'a', '--max=3', '-q', 'b', '--name', 'x'], SPECS);
  assert.deepEqual(r.positionals, ['a', 'b']);
  assert.equal(r.flags['delayMs'], 500);
  assert.equal(r.flags['max'], 3);
  assert.equal(r.flags['quiet'], true);
  assert.equal(r.flags['name'], 'x');
  assert.equal(parseArgs([], SPECS).flags['delayMs'], 1000);
});

test('"-1" and other dash-digit words are positionals (so maxDepth -1 gets its own message)', () => {
  assert.deepEqual(parseArgs(['-1', '-2.5'], SPECS).positionals, ['-1', '-2.5']);
});

test('"--" ends the flags', () => {
  assert.deepEqual(parseArgs(['--', '--delay'], SPECS).positionals, ['--delay']);
});

for (const [argv, pattern] of [
  [['--nope'], /unknown option --nope/],
  [['-z'], /unknown option -z/],
  [['--delay'], /--delay needs a value/],
  [['--delay', '-1'], /non-negative number of seconds/],
  [['--delay', '1e3'], /non-negative number of seconds/],
  [['--max', '2.5'], /non-negative whole number/],
  [['--quiet=yes'], /takes no value/],
] as const) {
  test(`bad flags are refused with a clear message: ${argv.join(' ')}`, () => {
    assert.throws(() => parseArgs(argv, SPECS), (e: unknown) => isCrawlerError(e, 'ERR_INVALID_OPTION') && pattern.test((e as Error).message));
  });
}

test('help lists every flag with its default', () => {
  const help = formatFlags(SPECS);
  for (const s of SPECS) assert.ok(help.includes(`--${s.name}`), s.name);
  assert.match(help, /\(default 1\)/);
  assert.match(help, /-q, --quiet/);
});
