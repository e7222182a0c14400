/**
 * Runs one of the project's executables (./crawler, ./KeywordHunter) as a
 * child process, the way users and graders do, and collects its output;
 * runMeasured also measures its wall time and peak memory.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from './conformance.js';
import { makeTempDir } from './temp-dirs.js';

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export function runProgram(program: 'crawler' | 'KeywordHunter', args: string[], options: { timeoutMs?: number; cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(PROJECT_ROOT, program), args, { cwd: options.cwd ?? PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes });
    });
  });
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
 * gone: no sampling, so no peak is missed. Killed after `timeoutMs`.
 */
export function runMeasured(
  program: 'crawler' | 'KeywordHunter',
  args: string[],
  options: { timeoutMs?: number; cwd?: string; wrap?: string[] } = {},
): Promise<MeasuredRun> {
  const timeDir = makeTempDir('run-time-');
  const timeFile = join(timeDir, 'rss');
  const useTime = existsSync(GNU_TIME);
  const cmd = [...(useTime ? [GNU_TIME, '-f', '%M', '-o', timeFile] : []), ...(options.wrap ?? []), join(PROJECT_ROOT, program), ...args];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd[0] as string, cmd.slice(1), { cwd: options.cwd ?? PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const wallMs = performance.now() - started;
      let peakRssKiB: number | undefined;
      if (useTime) {
        const m = /(\d+)\s*$/.exec(existsSync(timeFile) ? readFileSync(timeFile, 'utf8') : '');
        peakRssKiB = m === null ? undefined : Number(m[1]);
      }
      rmSync(timeDir, { recursive: true, force: true });
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes, wallMs, peakRssKiB });
    });
  });
}
