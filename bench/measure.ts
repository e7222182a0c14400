/**
 * Runs a command as a child and measures it: wall seconds (our own clock,
 * spawn to exit), CPU seconds (user + sys) and peak RSS of the child.
 *
 * CPU and RSS come from GNU time (`/usr/bin/time -f "%e %U %S %M"`, Debian
 * package `time`) when it is installed: exact getrusage() figures of the
 * waited-for child, its own children included. Without it they are sampled
 * from /proc/PID/stat (utime+stime, plus cutime+cstime of waited-for
 * grandchildren) and /proc/PID/status (VmHWM) every 20 ms while the child
 * runs; the last sample misses at most the final 20 ms of CPU.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { which } from './servers.js';

export interface Measured {
  wallSeconds: number;
  /** When the child was spawned (epoch ms, performance.timeOrigin + performance.now()). */
  startedAt: number;
  /** The child was killed at `timeoutMs`. */
  timedOut: boolean;
  userSeconds: number;
  sysSeconds: number;
  cpuSeconds: number;
  /** Peak resident set size in MiB. */
  maxRssMiB: number;
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** How CPU and RSS were measured. */
  method: 'gnu-time' | 'proc-sampling';
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Keep stdout (default: discarded). */
  captureStdout?: boolean;
  timeoutMs?: number;
  /** Runs the command under nice(1) at this niceness (0 or unset: as the bench runs). */
  nice?: number;
}

const GNU_TIME = '/usr/bin/time';
let counter = 0;

/** True when /usr/bin/time is installed (GNU time: -f and -o). BENCH_NO_GNU_TIME=1 forces the /proc fallback. */
export function haveGnuTime(): boolean {
  return process.env['BENCH_NO_GNU_TIME'] !== '1' && which(GNU_TIME) !== undefined;
}

const CLK_TCK = 100; // Linux USER_HZ

function procSample(pid: number): { cpu: number; hwmKiB: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields after the command: state(3) ... utime(14) stime(15) cutime(16) cstime(17), here 0-based from state.
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
    return { cpu: ticks / CLK_TCK, hwmKiB: hwm ? Number(hwm[1]) : 0 };
  } catch {
    return undefined;
  }
}

/** The pids of the processes below `pid` (from each /proc/PID/stat's parent), parents before children. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // it exited meanwhile
    }
  }
  const out: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = children.get(queue.shift()!) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

/** SIGKILL to every process below `pid`, then `killChild()`. */
function killTree(pid: number | undefined, killChild: () => void): void {
  if (pid !== undefined) {
    for (const p of descendants(pid)) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  killChild();
}

/** Runs `command args` and measures it. Never rejects for a non-zero exit (see exitCode). */
export async function runMeasured(command: string, args: readonly string[], options: RunOptions = {}): Promise<Measured> {
  const useTime = haveGnuTime();
  const timeFile = join(tmpdir(), `bench-time-${process.pid}-${counter++}.txt`);
  const niced = options.nice === undefined || options.nice === 0 ? [] : ['nice', '-n', String(options.nice)];
  const argv = [...niced, ...(useTime ? [GNU_TIME, '-f', '%e %U %S %M', '-o', timeFile, command, ...args] : [command, ...args])];
  const started = performance.now();
  let timedOut = false;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', options.captureStdout === true ? 'pipe' : 'ignore', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < 1_000_000) stderr += d.toString();
  });
  let sample = { cpu: 0, hwmKiB: 0 };
  const poll = useTime || child.pid === undefined
    ? undefined
    : setInterval(() => {
        const s = procSample(child.pid!);
        if (s !== undefined) sample = { cpu: Math.max(sample.cpu, s.cpu), hwmKiB: Math.max(sample.hwmKiB, s.hwmKiB) };
      }, 20);
  // On timeout the whole tree goes: killing GNU time alone would leave the measured command running.
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => ((timedOut = true), killTree(child.pid, () => child.kill('SIGKILL'))), options.timeoutMs);
  const [exitCode, signal] = await new Promise<[number | null, string | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, sig) => resolve([code, sig]));
  });
  const wallSeconds = (performance.now() - started) / 1000;
  if (poll !== undefined) clearInterval(poll);
  if (timer !== undefined) clearTimeout(timer);
  let user = 0;
  let sys = 0;
  let rssKiB = sample.hwmKiB;
  if (useTime) {
    try {
      const lines = readFileSync(timeFile, 'utf8').trim().split('\n');
      const [, u, s, m] = lines[lines.length - 1]!.trim().split(/\s+/).map(Number);
      user = u ?? 0;
      sys = s ?? 0;
      rssKiB = m ?? 0;
    } catch {
      // the child could not be started by time
    }
    rmSync(timeFile, { force: true });
    // GNU time exits with the child's status; it reports a signal as "Command terminated by signal N" on its -o file.
  } else {
    user = sample.cpu;
  }
  return {
    wallSeconds,
    startedAt: performance.timeOrigin + started,
    timedOut,
    userSeconds: user,
    sysSeconds: sys,
    cpuSeconds: user + sys,
    maxRssMiB: rssKiB / 1024,
    exitCode,
    signal,
    stdout,
    stderr,
    method: useTime ? 'gnu-time' : 'proc-sampling',
  };
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
