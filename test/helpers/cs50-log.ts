/**
 * The one parser of crawler's CS50 log (`printf("%2d %*s%9s: %s\n")` per
 * line, a parenthesised reason after a Failed URL), and an independent
 * rendering of a line, so the tests never reuse the formatter they check
 * (src/cli/crawl-log.ts).
 */
import assert from 'node:assert/strict';

/**
 * C's `printf("%2d %*s%9s: %s\n", depth, depth, "", word, url)`, written out
 * here independently of src/cli/crawl-log.ts. `reason` follows a Failed URL.
 */
export function cs50Line(depth: number, word: string, url: string, reason?: string): string {
  const d = depth < 10 ? ` ${depth}` : String(depth);
  return `${d} ${' '.repeat(depth)}${' '.repeat(Math.max(0, 9 - word.length))}${word}: ${url}${reason === undefined ? '' : ` ${reason}`}`;
}

export const LOG_WORDS = ['Fetched', 'Scanning', 'Found', 'Added', 'IgnDupl', 'IgnExtrn', 'IgnRobots', 'Failed'] as const;

export interface LogLine {
  depth: number;
  word: string;
  url: string;
  /** Text after the URL (Failed lines only, in parentheses), without the separating space. */
  reason: string | undefined;
  line: string;
}

/**
 * Parses stdout as CS50 log lines; fails on any line that is not exactly in
 * the format (wrong indent, unknown word, missing URL, a reason that is not
 * in parentheses).
 */
export function parseLog(stdout: string): LogLine[] {
  if (stdout === '') return [];
  assert.ok(stdout.endsWith('\n'), 'the log ends with a newline');
  return stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => {
      const m = /^([ 0-9][0-9]) ( *)([A-Za-z]+): (\S+)(?: (.+))?$/.exec(line);
      assert.ok(m !== null, `log line in CS50 format: ${JSON.stringify(line)}`);
      const depth = Number(m[1]!.trim());
      const word = m[3]!;
      assert.ok((LOG_WORDS as readonly string[]).includes(word), `known log word in ${JSON.stringify(line)}`);
      const reason = m[5];
      assert.equal(line, cs50Line(depth, word, m[4]!, reason), `column layout of ${JSON.stringify(line)}`);
      if (word !== 'Failed') assert.equal(reason, undefined, `only Failed lines carry a reason: ${JSON.stringify(line)}`);
      else if (reason !== undefined) assert.match(reason, /^\(.*\)$/, `a Failed line's reason is in parentheses: ${JSON.stringify(line)}`);
      return { depth, word, url: m[4]!, reason, line };
    });
}

/** Lines of `log` with `word`, as `URL` strings. */
export function urlsWith(log: LogLine[], word: string): string[] {
  return log.filter((l) => l.word === word).map((l) => l.url);
}
