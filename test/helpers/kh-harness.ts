/**
 * Helpers for the end-to-end tests of ./KeywordHunter
 * (test/e2e-keyword-hunter/): the four protocol lines written out
 * independently of src/cli/keyword-hunter.ts (so the tests never reuse the
 * formatter they check) and their parsers, whole-stdout assertions, and a
 * live run whose stdout is read line by line while the program is still
 * running. Temporary directories come from temp-dirs.ts, a refused port from
 * refused-port.ts.
 */
import assert from 'node:assert/strict';
import { runProgram, startProgram, type RunResult } from './spawn.js';

/** Where a line's host and port fields come from: a server, or a host alias of one. */
export interface Where {
  host: string;
  port: number;
}

export type Action = 'follow' | 'robots_ignore' | 'already_seen_ignore';

/** `PAGE:host=H;port=P;respath=R;status=S` (the spec's section 4, "Pages Fetched/Failed"). */
export function PAGE(w: Where, respath: string, status: number): string {
  return `PAGE:host=${w.host};port=${w.port};respath=${respath};status=${status}`;
}

/** `LINK:host=H;port=P;respath=R;action=A` (the spec's section 4, "Link"). */
export function LINK(w: Where, respath: string, action: Action): string {
  return `LINK:host=${w.host};port=${w.port};respath=${respath};action=${action}`;
}

/** `FOUND_KEYWORD:host=H;port=P;respath=R;line=L` (the spec's section 4, "Found Keyword"). */
export function FOUND(w: Where, respath: string, line: string): string {
  return `FOUND_KEYWORD:host=${w.host};port=${w.port};respath=${respath};line=${line}`;
}

export const NOT_FOUND = 'NOT_FOUND_KEYWORD:';

/** KeywordHunter's PAGE lines: respath and status, in order. */
export function khPages(stdout: string, port?: number): Array<{ respath: string; status: number; host: string; port: number }> {
  const out = [];
  for (const line of stdout.split('\n')) {
    const m = /^PAGE:host=([^;]*);port=(\d+);respath=(.*);status=(\d+)$/.exec(line);
    if (m === null) continue;
    if (port !== undefined && Number(m[2]) !== port) continue;
    out.push({ host: m[1] as string, port: Number(m[2]), respath: m[3] as string, status: Number(m[4]) });
  }
  return out;
}

/** KeywordHunter's LINK lines. */
export function khLinks(stdout: string): Array<{ host: string; port: number; respath: string; action: string }> {
  const out = [];
  for (const line of stdout.split('\n')) {
    const m = /^LINK:host=([^;]*);port=(\d+);respath=(.*);action=([a-z_]+)$/.exec(line);
    if (m !== null) out.push({ host: m[1] as string, port: Number(m[2]), respath: m[3] as string, action: m[4] as string });
  }
  return out;
}

/** The same server under another host name (e.g. `localhost` for a server on 127.0.0.1). */
export function as(host: string, w: Where): Where {
  return { host, port: w.port };
}

/** The four kinds of line, and nothing else, each field as the spec writes it. */
export const PROTOCOL_LINE =
  /^(?:PAGE:host=[^;\n]+;port=[0-9]{1,5};respath=\/[^\n]*;status=[0-9]{1,3}|LINK:host=[^;\n]+;port=[0-9]{1,5};respath=\/[^\n]*;action=(?:follow|robots_ignore|already_seen_ignore)|FOUND_KEYWORD:host=[^;\n]+;port=[0-9]{1,5};respath=\/[^\n]*;line=[^\n]*|NOT_FOUND_KEYWORD:)$/;

/** Every stdout line is one of the four kinds; the output ends with a line end. */
export function assertProtocolOnly(stdout: string): void {
  if (stdout === '') return;
  assert.ok(stdout.endsWith('\n'), `stdout ends with a line end: ${JSON.stringify(stdout.slice(-80))}`);
  for (const l of stdout.slice(0, -1).split('\n')) assert.match(l, PROTOCOL_LINE, `not a protocol line: ${JSON.stringify(l)}`);
}

/** The whole stdout a list of lines makes: each line ended by "\n". */
export function stdoutOf(lines: readonly string[]): string {
  return lines.map((l) => l + '\n').join('');
}

/** Exit 0 and exactly these stdout lines (and every one a protocol line). */
export function assertOutput(r: RunResult, expected: readonly string[]): void {
  assert.equal(r.stdout, stdoutOf(expected), `stdout differs; stderr was:\n${r.stderr}`);
  assertProtocolOnly(r.stdout);
  assert.equal(r.code, 0, `exit status; stderr was:\n${r.stderr}`);
}

/** Runs ./KeywordHunter with `args` (never more than `timeoutMs`). */
export function kh(args: string[], options: { timeoutMs?: number; cwd?: string } = {}): Promise<RunResult> {
  return runProgram('KeywordHunter', args, { timeoutMs: options.timeoutMs ?? 20_000, ...(options.cwd ? { cwd: options.cwd } : {}) });
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A running KeywordHunter whose stdout is read through a pipe as it comes. */
export interface LiveRun {
  /** Complete stdout lines so far. */
  readonly lines: string[];
  /** Resolves with the first line matching `pred` (now or later); rejects after `timeoutMs` or at exit without one. */
  waitForLine(pred: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Resolves at exit. */
  done: Promise<RunResult>;
  kill(): void;
}

export function spawnKh(args: string[]): LiveRun {
  const run = startProgram('KeywordHunter', args, { timeoutMs: 20_000 });
  const lines: string[] = [];
  let partial = '';
  let exited = false;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of [...waiters]) w();
  };
  run.child.stdout.on('data', (d: Buffer) => {
    partial += d.toString('utf8');
    const parts = partial.split('\n');
    partial = parts.pop() as string;
    lines.push(...parts);
    wake();
  });
  const done = run.done.finally(() => {
    exited = true;
    wake();
  });
  return {
    lines,
    done,
    kill: () => run.child.kill('SIGKILL'),
    waitForLine(pred, timeoutMs = 10_000) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching stdout line within ${timeoutMs} ms; lines so far: ${JSON.stringify(lines)}`));
        }, timeoutMs);
        const check = (): void => {
          const hit = lines.find(pred);
          if (hit !== undefined || exited) {
            clearTimeout(timer);
            waiters.delete(check);
            if (hit !== undefined) resolve(hit);
            else reject(new Error(`exited without a matching line; stdout: ${JSON.stringify(lines)}; stderr: ${run.stderr()}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
  };
}
