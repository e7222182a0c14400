/**
 * Starts one of the project's executables (./crawler, ./KeywordHunter) as a
 * child process, the way users and graders do, and collects its output:
 * every test that runs a program goes through startProgram (runProgram
 * waits for it; runMeasured also measures wall time and peak memory).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { PROJECT_ROOT } from './conformance.js';
import { makeTempDir } from './temp-dirs.js';

export type Program = 'crawler' | 'KeywordHunter';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export interface RunOptions {
  /** SIGKILL after this long (default 30 s). */
  timeoutMs?: number;
  /** Default: the project root. */
  cwd?: string;
  /** A command the program runs behind (e.g. GNU time, unshare, setpriv), program path and args appended. */
  wrap?: string[];
}

/** A program that is running. */
export interface StartedProgram {
  /** Its stdout and stderr are pipes the caller may listen to as well. */
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** stderr so far. */
  stderr(): string;
  /** Resolves at exit with all it wrote. */
  done: Promise<RunResult>;
}

/** Starts ./crawler or ./KeywordHunter with `args`; killed with SIGKILL after `timeoutMs`. */
export function startProgram(program: Program, args: string[], options: RunOptions = {}): StartedProgram {
  const cmd = [...(options.wrap ?? []), join(PROJECT_ROOT, program), ...args];
  const child = spawn(cmd[0] as string, cmd.slice(1), { cwd: options.cwd ?? PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  const done = new Promise<RunResult>((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes });
    });
  });
  return { child, done, stderr: () => Buffer.concat(err).toString('utf8') };
}

/** Runs ./crawler or ./KeywordHunter with `args` to its end. */
export function runProgram(program: Program, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return startProgram(program, args, options).done;
}

/** What `runMeasured` adds to a run: wall time and, when it could be read, the child's peak RSS. */
export interface MeasuredRun extends RunResult {
  wallMs: number;
  /** Peak resident set in KiB (GNU time's %M), undefined when /usr/bin/time is unavailable. */
  peakRssKiB: number | undefined;
}

const GNU_TIME = '/usr/bin/time';

/**
 * Runs ./crawler or ./KeywordHunter (optionally behind `wrap`, e.g. unshare)
 * under GNU time, which reads the peak RSS from wait4(2) after the child is
 * gone: no sampling, so no peak is missed. Killed after `timeoutMs`
 * (default 20 s).
 */
export async function runMeasured(program: Program, args: string[], options: RunOptions = {}): Promise<MeasuredRun> {
  const timeDir = makeTempDir('run-time-');
  const timeFile = join(timeDir, 'rss');
  const useTime = existsSync(GNU_TIME);
  const started = performance.now();
  try {
    const r = await runProgram(program, args, {
      ...options,
      timeoutMs: options.timeoutMs ?? 20_000,
      wrap: [...(useTime ? [GNU_TIME, '-f', '%M', '-o', timeFile] : []), ...(options.wrap ?? [])],
    });
    const wallMs = performance.now() - started;
    let peakRssKiB: number | undefined;
    if (useTime) {
      const m = /(\d+)\s*$/.exec(existsSync(timeFile) ? readFileSync(timeFile, 'utf8') : '');
      peakRssKiB = m === null ? undefined : Number(m[1]);
    }
    return { ...r, wallMs, peakRssKiB };
  } finally {
    rmSync(timeDir, { recursive: true, force: true });
  }
}
