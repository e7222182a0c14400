/**
 * A flag's value from its text on the command line, and the value it has
 * when it is not given, by the flag's type (flag-types.ts tells each).
 */
import { CrawlerError } from '../errors.js';
import type { FlagSpec } from './flag-types.js';
import { parseSize } from './size.js';

const SECONDS_RE = /^[0-9]+(\.[0-9]+)?$/;
const COUNT_RE = /^[0-9]+$/;

/**
 * Milliseconds from seconds written in decimal, by moving the point three
 * places in the text, so that "1.1" is 1100 exactly (1.1 * 1000 is
 * 1100.0000000000002). Below a millisecond it stays fractional: "0.0004" is 0.4.
 */
function msFromSeconds(text: string): number {
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  return Number(`${whole}${fraction.slice(0, 3).padEnd(3, '0')}.${fraction.slice(3)}`);
}

/** The value of `raw` given to a flag that takes one; throws ERR_INVALID_OPTION naming the flag. */
export function parseFlagValue(spec: FlagSpec, raw: string): number | string {
  if (spec.type === 'duration') {
    if (!SECONDS_RE.test(raw)) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} must be a non-negative number of seconds, got "${raw}"`);
    return msFromSeconds(raw);
  }
  if (spec.type === 'factor') {
    if (!SECONDS_RE.test(raw)) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} must be a non-negative number, got "${raw}"`);
    return Number(raw);
  }
  if (spec.type === 'size') return parseSize(raw, `--${spec.name}`);
  if (spec.type === 'count') {
    if (!COUNT_RE.test(raw) || !Number.isSafeInteger(Number(raw))) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} must be a non-negative whole number, got "${raw}"`);
    return Number(raw);
  }
  return raw;
}

/** The value a flag has when it is not given. */
export function absentValue(spec: FlagSpec): boolean | number | string | undefined {
  switch (spec.type) {
    case 'boolean':
      return false;
    case 'duration': {
      if (spec.default === undefined) return undefined;
      const text = String(spec.default);
      return SECONDS_RE.test(text) ? msFromSeconds(text) : spec.default * 1000; // 1e-7 and the like
    }
    case 'size':
      return spec.default === undefined ? undefined : parseSize(spec.default, `--${spec.name}`);
    case 'string':
      return spec.repeatable === true ? undefined : spec.default;
    default:
      return spec.default;
  }
}
