/** The flag table: parsing, validation messages, help that lists every flag, and the value types it infers. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineFlags, flagKey, parseArgs, type FlagSpec } from '../../src/cli/args.js';
import { formatOptions } from '../../src/cli/help-format.js';
import { HTTP_FLAGS } from '../../src/cli/common-flags.js';
import { isCrawlerError } from '../../src/errors.js';

const SPECS = defineFlags([
  { name: 'delay', type: 'duration', default: 1, help: 'd' },
  { name: 'max', type: 'count', help: 'm' },
  { name: 'quiet', short: 'q', type: 'boolean', help: 'q' },
  { name: 'name', type: 'string', help: 'n' },
  { name: 'user-agent', type: 'string', default: 'ua', help: 'u' },
  { name: 'depth-limit', type: 'count', default: 10, help: 'l' },
  { name: 'internal', type: 'string', repeatable: true, help: 'i' },
  { name: 'lease', type: 'duration', help: 'l' },
]);

// Compile-time checks: this file does not build if an inferred type is off.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(): T | undefined {
  return undefined;
}

test('the flags type is inferred from the table: keys camelCase, a duration key ends in Ms', () => {
  const { flags } = parseArgs([], SPECS);
  assertType<
    Equal<
      typeof flags,
      {
        delayMs: number;
        max: number | undefined;
        quiet: boolean;
        name: string | undefined;
        userAgent: string;
        depthLimit: number;
        internal: string[] | undefined;
        leaseMs: number | undefined;
      }
    >
  >();
  const delay: number = flags.delayMs;
  const quiet: boolean = flags.quiet;
  const agent: string = flags.userAgent;
  // @ts-expect-error a count without a default may be absent
  const max: number = flags.max;
  // @ts-expect-error a repeatable string is a list
  const internal: string | undefined = flags.internal;
  // @ts-expect-error a boolean is not a string
  const q: string = flags.quiet;
  // @ts-expect-error the key is the camelCase name
  void flags['user-agent'];
  // @ts-expect-error a duration is only there in ms, so code written for seconds does not compile
  void flags.delay;
  // @ts-expect-error not in the table
  void flags.nope;
  assert.deepEqual([delay, quiet, agent, max, internal, q], [1000, false, 'ua', undefined, undefined, false]);
});

test('the runtime keys are the typed ones', () => {
  assert.deepEqual(Object.keys(parseArgs([], SPECS).flags).sort(), ['delayMs', 'depthLimit', 'internal', 'leaseMs', 'max', 'name', 'quiet', 'userAgent']);
  assert.equal(flagKey({ name: 'connect-timeout', type: 'duration', help: '' }), 'connectTimeoutMs');
  assert.equal(flagKey({ name: 'no-keep-alive', type: 'boolean', help: '' }), 'noKeepAlive');
});

test('the shared HTTP flags, also with a default changed by map, keep their types', () => {
  const { flags } = parseArgs([], HTTP_FLAGS);
  const timeouts: number[] = [flags.connectTimeoutMs, flags.idleTimeoutMs, flags.responseTimeoutMs];
  const noKeepAlive: boolean = flags.noKeepAlive;
  assert.deepEqual(timeouts, [10_000, 15_000, 30_000]);
  assert.equal(noKeepAlive, false);
  const changed = HTTP_FLAGS.map((f) => (f.name === 'concurrency' ? { ...f, default: 1 } : f));
  const concurrency: number = parseArgs([], changed).flags.concurrency;
  assert.equal(concurrency, 1);
});

test('a table that does not fit its types is refused at compile time', () => {
  defineFlags([
    // @ts-expect-error "seconds" is now "duration"
    { name: 'a', type: 'seconds', help: '' },
    // @ts-expect-error a boolean has no default (it is false)
    { name: 'b', type: 'boolean', default: true, help: '' },
    // @ts-expect-error a count's default is a number
    { name: 'c', type: 'count', default: '3', help: '' },
    // @ts-expect-error a repeatable flag has no default
    { name: 'd', type: 'string', repeatable: true, default: 'x', help: '' },
  ]);
});

test('a table typed only as FlagSpec[] still parses (loosely typed values)', () => {
  const loose: FlagSpec[] = [{ name: 'max-pages', type: 'count', help: '' }];
  assert.equal(parseArgs(['--max-pages', '2'], loose).flags['maxPages'], 2);
});

test('flags in both forms, positionals kept in order, defaults applied', () => {
  const r = parseArgs(['--delay', '0.5', 'a', '--max=3', '-q', 'b', '--name', 'x', '--internal', 'p', '--internal=r'], SPECS);
  assert.deepEqual(r.positionals, ['a', 'b']);
  assert.equal(r.flags.delayMs, 500);
  assert.equal(r.flags.max, 3);
  assert.equal(r.flags.quiet, true);
  assert.equal(r.flags.name, 'x');
  assert.deepEqual(r.flags.internal, ['p', 'r']);
  assert.equal(parseArgs([], SPECS).flags.delayMs, 1000);
});

test('a duration is seconds on the command line and milliseconds in flags, exactly', () => {
  const ms = (text: string): number => parseArgs(['--delay', text], SPECS).flags.delayMs;
  assert.equal(ms('0.5'), 500);
  assert.equal(ms('0'), 0);
  assert.equal(ms('2'), 2000);
  assert.equal(ms('1.1'), 1100); // 1.1 * 1000 would be 1100.0000000000002
  assert.equal(ms('0.001'), 1);
  assert.equal(ms('0.0004'), 0.4); // below a millisecond stays above 0 (--delay 0.0004 is not --delay 0)
  assert.equal(ms('007.250'), 7250);
  assert.equal(parseArgs(['--lease=30'], SPECS).flags.leaseMs, 30_000);
  assert.equal(parseArgs([], SPECS).flags.leaseMs, undefined);
  const withDefault = (d: number): number => parseArgs([], defineFlags([{ name: 't', type: 'duration', default: d, help: '' }])).flags.tMs;
  assert.equal(withDefault(0.5), 500);
  assert.equal(withDefault(1.1), 1100);
});

test('"-1" and other dash-digit words are positionals (so maxDepth -1 gets its own message)', () => {
  assert.deepEqual(parseArgs(['-1', '-2.5'], SPECS).positionals, ['-1', '-2.5']);
});

test('"--" ends the flags', () => {
  assert.deepEqual(parseArgs(['--', '--delay'], SPECS).positionals, ['--delay']);
});

for (const [argv, message] of [
  [['--nope'], 'unknown option --nope (see --help)'],
  [['-z'], 'unknown option -z (see --help)'],
  [['--delay'], '--delay needs a value (VALUE)'],
  [['--delay', '-1'], '--delay must be a non-negative number of seconds, got "-1"'],
  [['--delay', '1e3'], '--delay must be a non-negative number of seconds, got "1e3"'],
  [['--delay', '.5'], '--delay must be a non-negative number of seconds, got ".5"'],
  [['--delay', '1.'], '--delay must be a non-negative number of seconds, got "1."'],
  [['--delay=0x10'], '--delay must be a non-negative number of seconds, got "0x10"'],
  [['--delay', ''], '--delay must be a non-negative number of seconds, got ""'],
  [['--delay', 'Infinity'], '--delay must be a non-negative number of seconds, got "Infinity"'],
  [['--max', '2.5'], '--max must be a non-negative whole number, got "2.5"'],
  [['--quiet=yes'], '--quiet takes no value'],
] as const) {
  test(`bad flags are refused with a clear message: ${argv.join(' ')}`, () => {
    assert.throws(() => parseArgs(argv, SPECS), (e: unknown) => isCrawlerError(e, 'ERR_INVALID_OPTION') && (e as Error).message === message);
  });
}

test('help lists every flag with its default (a duration in seconds, as it is written)', () => {
  const help = formatOptions(SPECS);
  for (const s of SPECS) assert.ok(help.includes(`--${s.name}`), s.name);
  assert.match(help, /--delay VALUE +d \(default 1\)/);
  assert.match(help, /-q, --quiet +q$/m);
  assert.match(help, /--internal VALUE +i$/m);
});

test('a factor flag: a non-negative decimal without a unit, its default when absent, one clear error otherwise', () => {
  const FACTOR = defineFlags([{ name: 'delay-factor', type: 'factor', arg: 'F', default: 0, help: 'x' }]);
  const none: number = parseArgs([], FACTOR).flags.delayFactor;
  assert.equal(none, 0);
  assert.equal(parseArgs(['--delay-factor', '2.5'], FACTOR).flags.delayFactor, 2.5);
  assert.equal(parseArgs(['--delay-factor=3'], FACTOR).flags.delayFactor, 3);
  for (const bad of ['-1', 'abc', '1e3', '']) {
    assert.throws(
      () => parseArgs(['--delay-factor', bad], FACTOR),
      (err: unknown) => isCrawlerError(err, 'ERR_INVALID_OPTION') && err.message === `--delay-factor must be a non-negative number, got "${bad}"`,
      bad,
    );
  }
});

test('an unknown option names the nearest known one: a typo, a swap, a missing letter; nothing when none is near', () => {
  const message = (argv: string[]) => {
    try {
      parseArgs(argv, SPECS);
    } catch (err) {
      return (err as Error).message;
    }
    return 'parsed';
  };
  assert.equal(message(['--dealy', '1']), 'unknown option --dealy; did you mean --delay? (see --help)');
  assert.equal(message(['--dely', '1']), 'unknown option --dely; did you mean --delay? (see --help)');
  assert.equal(message(['--delayy=1']), 'unknown option --delayy; did you mean --delay? (see --help)');
  assert.equal(message(['--frobnicate']), 'unknown option --frobnicate (see --help)');
});
