/**
 * `--exclude REGEX`: URLs matching a JavaScript regular expression are out
 * of the crawl, whatever else says they are in (spec decision "Many hosts":
 * matched against the whole URL). The pattern is matched, unanchored and
 * without flags, against the URL's identity key: the URL as the log prints
 * it (scheme and host lower case, default port dropped, fragment dropped,
 * path and query percent-encoded where they must be).
 *
 * The pattern is the user's, but the URL comes from the network, and every
 * link of every page is matched against every pattern. A backtracking engine
 * can take exponential time on a pattern such as `(a+)+$`, or polynomial
 * time on `.*.*.*x` (seconds for one long URL), and a hostile page can hold
 * many such URLs. Bounding the URL's length
 * (`--max-url-length`) bounds the polynomial cases but not the exponential
 * ones, and no rule about nested quantifiers catches both without refusing
 * useful patterns. So:
 *
 * - a pattern is compiled only when V8's linear-time engine could run it
 *   (the `l` flag, which refuses backreferences, lookarounds and counted
 *   repetitions of repetitions such as `(.*a){20}`): one line says why
 *   otherwise, exit 1;
 * - the crawl then matches with V8's usual (fast, backtracking) engine,
 *   which V8 switches to the linear-time engine once one match has taken
 *   50,000 backtracking steps (`--enable-experimental-regexp-engine-on-excessive-backtracks`).
 *
 * A hostile URL can then cost an accepted pattern milliseconds, not
 * seconds (test/url/scope-exclude.test.ts; docs/performance.md, Name
 * lookups and `--exclude`). That cost grows with the URL, and
 * percent-encoding can make a key many times longer than the link: so a
 * crawl with --exclude keeps out every URL whose key is longer than
 * --max-url-length (scope.ts). The two V8
 * flags are set for the process when the first pattern is compiled; they
 * change nothing for a regular expression that never backtracks that far,
 * and V8's code cache does not depend on them (both checked).
 */
import { setFlagsFromString } from 'node:v8';
import { CrawlerError } from '../errors.js';
import type { HttpUrl } from './http-url.js';

/** A compiled `--exclude` pattern. */
export interface ExcludePattern {
  /** The pattern as given. */
  readonly source: string;
  readonly regexp: RegExp;
}

let linearEngine: boolean | undefined;

/** Turns on V8's linear-time engine and the fall-back to it (see the module comment); false when this V8 has none. */
function enableLinearEngine(): boolean {
  if (linearEngine === undefined) {
    setFlagsFromString('--enable-experimental-regexp-engine');
    setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
    try {
      linearEngine = new RegExp('a', 'l').test('a');
    } catch {
      linearEngine = false;
    }
  }
  return linearEngine;
}

/** The quoted pattern, one line whatever it holds. */
/** The pattern as the user typed it, in quotes: its backslashes as typed, a control character (a line break) written as an escape, so the message stays one line. */
function quoted(source: string): string {
  return `"${source.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1))}"`;
}

function refuse(source: string, why: string): never {
  throw new CrawlerError('ERR_INVALID_OPTION', `invalid --exclude ${quoted(source)}: ${why}`);
}

/**
 * Compiles one `--exclude` pattern. Throws ERR_INVALID_OPTION naming it:
 * empty, not a valid JavaScript regular expression (with the engine's
 * reason), or one that cannot be matched in linear time.
 */
export function compileExclude(source: string): ExcludePattern {
  if (source === '') refuse(source, 'it is empty, and would exclude every URL');
  let regexp: RegExp;
  try {
    regexp = new RegExp(source);
  } catch (err) {
    // "Invalid regular expression: /(/: Unterminated group": the pattern is quoted already, the reason is what is new.
    const message = (err as Error).message;
    const prefix = `Invalid regular expression: /${source}/: `;
    refuse(source, `not a JavaScript regular expression: ${message.startsWith(prefix) ? message.slice(prefix.length) : quoted(message)}`);
  }
  if (!enableLinearEngine()) refuse(source, `this Node.js (${process.version}) has no linear-time regular expression engine, which --exclude needs to match URLs from the network safely`);
  try {
    new RegExp(source, 'l');
  } catch {
    refuse(source, 'it cannot be matched in linear time (a backreference, a lookaround, or a counted repetition of a repetition such as (.*a){20}); write it without, so that no URL can make matching slow');
  }
  return { source, regexp };
}

/** Compiles every pattern (see compileExclude), in order. */
export function compileExcludes(sources: readonly string[]): ExcludePattern[] {
  return sources.map(compileExclude);
}

/** The first pattern `url` matches (its source), or undefined. */
export function excludedBy(patterns: readonly ExcludePattern[], url: HttpUrl): string | undefined {
  const key = url.key;
  for (const p of patterns) if (p.regexp.test(key)) return p.source;
  return undefined;
}
