/**
 * Flag values beyond what the platform can honour are refused when the
 * flags are read (src/cli/flag-limits.ts), one line naming the flag, its
 * value and the largest allowed: --max-body-bytes past the longest string a
 * page scan can make, --max-header-bytes past a quarter of it, and any
 * duration past a timer's longest wait (Node runs a longer timer after 1 ms).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from '../../src/cli/args.js';
import { HTTP_FLAGS } from '../../src/cli/common-flags.js';
import { FLAGS } from '../../src/cli/crawler-help.js';
import { checkFlagLimits, MAX_BODY_BYTES_LIMIT, MAX_HEADER_BYTES_LIMIT } from '../../src/cli/flag-limits.js';
import { isCrawlerError } from '../../src/errors.js';
import { HtmlLinkExtractor } from '../../src/extract/html.js';
import { HrefPatternExtractor } from '../../src/extract/href-pattern.js';

/** The flags of `argv` checked as crawler reads them; the refusal's message, or undefined when accepted. */
function refusal(argv: string[]): string | undefined {
  const { flags } = parseArgs(argv, FLAGS);
  try {
    checkFlagLimits(FLAGS, flags);
    return undefined;
  } catch (err) {
    assert.ok(isCrawlerError(err, 'ERR_INVALID_OPTION'), String(err));
    assert.doesNotMatch(err.message, /\n/, 'one line');
    return err.message;
  }
}

test('the body limit is real: one byte more cannot be scanned for links, by either program\'s extractor', () => {
  // Not filled: the length alone decides, before any byte is read.
  const body = Buffer.allocUnsafe(MAX_BODY_BYTES_LIMIT + 1);
  for (const extractor of [new HtmlLinkExtractor(), new HrefPatternExtractor()]) {
    assert.throws(() => extractor.extract(body), (e: unknown) => (e as { code?: string }).code === 'ERR_STRING_TOO_LONG', extractor.constructor.name);
  }
  assert.ok(MAX_BODY_BYTES_LIMIT > 10 * 1024 * 1024 && MAX_HEADER_BYTES_LIMIT > 64 * 1024, 'the defaults are well within');
});

test('--max-body-bytes up to the limit is accepted; one byte more, or 3000000000, is refused naming the flag, the value and the limit', () => {
  assert.equal(refusal(['--max-body-bytes', String(MAX_BODY_BYTES_LIMIT)]), undefined);
  assert.equal(refusal([]), undefined, 'the defaults are within every limit');
  for (const value of [MAX_BODY_BYTES_LIMIT + 1, 3_000_000_000]) {
    const message = refusal(['--max-body-bytes', String(value)]);
    assert.equal(message, `--max-body-bytes ${value} is too large: at most ${MAX_BODY_BYTES_LIMIT} bytes on this platform (the longest page a link scan can read as one string)`);
  }
});

test('--max-header-bytes past its limit is refused the same way', () => {
  assert.equal(refusal(['--max-header-bytes', String(MAX_HEADER_BYTES_LIMIT)]), undefined);
  assert.match(refusal(['--max-header-bytes', String(MAX_HEADER_BYTES_LIMIT + 1)]) ?? '', new RegExp(`^--max-header-bytes ${MAX_HEADER_BYTES_LIMIT + 1} is too large: at most ${MAX_HEADER_BYTES_LIMIT} bytes`));
});

test('every duration past a timer\'s longest wait is refused, in the seconds it was given; other counts are not capped', () => {
  const durations = FLAGS.filter((s) => s.type === 'duration').map((s) => s.name);
  assert.ok(durations.includes('delay') && durations.includes('response-timeout') && durations.includes('lease'), durations.join(' '));
  for (const name of durations) {
    assert.equal(refusal([`--${name}`, '2147483.647']), undefined, name);
    assert.equal(refusal([`--${name}`, '2147483.648']), `--${name} 2147483.648 is too long: at most 2147483.647 seconds, about 24 days (the longest a timer can wait)`);
  }
  assert.equal(refusal(['--max-pages', '9007199254740991', '--max-url-length', '3000000000']), undefined);
});

test('KeywordHunter\'s shared flags are checked by the same table', () => {
  const { flags } = parseArgs(['--max-body-bytes', '3000000000'], HTTP_FLAGS);
  assert.throws(() => checkFlagLimits(HTTP_FLAGS, flags), (e: unknown) => isCrawlerError(e, 'ERR_INVALID_OPTION'));
});
