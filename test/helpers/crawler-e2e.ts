/**
 * Helpers for the end-to-end tests of ./crawler (test/cli/crawler-*.test.ts):
 * temporary page directories, reading page files back, and an independent
 * rendering of the CS50 log line, so the tests never reuse the formatter
 * they check.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProgram, type RunResult } from './spawn.js';

/** A fresh, empty directory; removed by `removeTempDirs`. */
const made: string[] = [];
export function tempDir(prefix = 'crawler-e2e-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Runs ./crawler with `args`. */
export function crawl(args: string[], timeoutMs = 30_000): Promise<RunResult> {
  return runProgram('crawler', args, { timeoutMs });
}

/** Names of numbered page files (digits only) in `dir`, in numeric order. */
export function numberedFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => /^[0-9]+$/.test(n))
    .sort((a, b) => Number(a) - Number(b));
}

export interface SavedPage {
  id: number;
  url: string;
  depth: number;
  /** The body bytes after the two header lines. */
  body: Buffer;
  /** The whole file. */
  raw: Buffer;
}

/** Reads every page file of `dir` (a name 1, 2, 3...; format `URL\nDEPTH\nBODY`), in ID order. */
export function readPages(dir: string): SavedPage[] {
  return numberedFiles(dir)
    .filter((name) => /^[1-9][0-9]*$/.test(name))
    .map((name) => {
      const raw = readFileSync(join(dir, name));
      const nl1 = raw.indexOf(0x0a);
      const nl2 = raw.indexOf(0x0a, nl1 + 1);
      assert.ok(nl1 > 0 && nl2 > nl1, `page file ${name} has a URL line and a depth line`);
      const depthText = raw.subarray(nl1 + 1, nl2).toString('latin1');
      assert.match(depthText, /^[0-9]+$/, `page file ${name}: line 2 is a depth`);
      return { id: Number(name), url: raw.subarray(0, nl1).toString('utf8'), depth: Number(depthText), body: raw.subarray(nl2 + 1), raw };
    });
}

/** `ID URL DEPTH` per saved page, for compact deep-equal comparisons. */
export function pageList(dir: string): string[] {
  return readPages(dir).map((p) => `${p.id} ${p.url} ${p.depth}`);
}

/** The IDs are exactly 1..N. */
export function assertDenseIds(dir: string): void {
  const ids = numberedFiles(dir).map(Number);
  assert.deepEqual(ids, ids.map((_, i) => i + 1), 'document IDs are 1..N without gaps');
}

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
  /** Text after the URL (Failed lines only), without the separating space. */
  reason: string | undefined;
  line: string;
}

/**
 * Parses stdout as CS50 log lines; fails on any line that is not exactly in
 * the format (wrong indent, unknown word, missing URL).
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
      return { depth, word, url: m[4]!, reason, line };
    });
}

/** Lines of `log` with `word`, as `URL` strings. */
export function urlsWith(log: LogLine[], word: string): string[] {
  return log.filter((l) => l.word === word).map((l) => l.url);
}

/** A user error: exactly one line on stderr (plus an optional usage hint), no stack trace. */
export function assertCleanError(r: RunResult, pattern: RegExp, opts: { usageHint?: boolean } = {}): void {
  assert.equal(r.code, 1, `exit status 1 (stderr: ${r.stderr})`);
  assert.equal(r.stdout, '', 'nothing on stdout');
  assert.ok(r.stderr.endsWith('\n'), 'stderr ends with a newline');
  const lines = r.stderr.slice(0, -1).split('\n');
  assert.match(lines[0]!, pattern);
  assert.match(lines[0]!, /^crawler: /, 'the message names the program');
  if (opts.usageHint === true) {
    assert.equal(lines.length, 2, `message and usage hint: ${r.stderr}`);
    assert.match(lines[1]!, /^Usage: crawler /);
  } else if (opts.usageHint === false) {
    assert.equal(lines.length, 1, `exactly one line: ${r.stderr}`);
  } else {
    assert.ok(lines.length <= 2, `at most two lines: ${r.stderr}`);
    if (lines.length === 2) assert.match(lines[1]!, /^Usage: crawler /);
  }
  for (const l of lines) {
    assert.doesNotMatch(l, /^\s+at /, 'no stack frame');
    assert.doesNotMatch(l, /internal error|Error:|TypeError|\.js:\d+/, 'no internal error or stack');
  }
}
