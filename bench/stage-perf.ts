/**
 * A crawler's CPU by what it was doing, from `perf record --call-graph
 * dwarf` (stages.ts runs wget2 and ours under it): each sample goes to the
 * first rule that one of its frames matches, from the sampled frame towards
 * the root, so the kernel's TCP send under a socket write is "socket
 * write", and libc's malloc under wget2's HTML parser is "HTML". Samples
 * are cpu-clock (software: this machine's virtual CPUs give perf no
 * hardware counters), each weighted by its period (nanoseconds of CPU).
 * libwget's exported functions carry names; its static ones and wget2's own
 * do not (no debug symbols), and are found through the exported callers
 * that DWARF unwinding reaches.
 */
import { spawnSync } from 'node:child_process';
import { stageOf, type SourceOf } from './stage-profile.js';

/** A rule: a frame's symbol or its object file (DSO) makes the sample this category's. */
interface Rule {
  label: string;
  sym?: RegExp;
  dso?: RegExp;
}

const K = (name: string): RegExp => new RegExp(`^(${name})$`);
/** A system call's entry in the kernel (`__x64_sys_openat`, `__do_sys_newstat`, `ksys_write`), by the call's names. */
const SYS = (names: string): RegExp => new RegExp(`^(__x64_sys_|__do_sys_|ksys_)(${names})$`);

/** The kernel's side, named by what the system call does (the socket's TCP calls first: a write(2) may be a socket's). */
const KERNEL_RULES: Rule[] = [
  { label: 'kernel: socket write (TCP send on loopback)', sym: K('tcp_sendmsg|sock_sendmsg|sock_write_iter|__sys_sendto') },
  { label: 'kernel: socket read', sym: K('tcp_recvmsg|sock_recvmsg|sock_read_iter|__sys_recvfrom') },
  {
    label: 'kernel: files (open, write, rename, close, stat, mkdir, utimes, xattrs)',
    sym: SYS('openat|open|close|write|writev|pwrite64|read|pread64|rename|renameat2?|unlink|unlinkat|mkdir|mkdirat|newstat|newfstatat|newlstat|statx|fstat|newfstat|utimensat|fsetxattr|setxattr|lseek|fsync|fdatasync|access|faccessat2?|fcntl|getdents64|ftruncate'),
  },
  { label: 'kernel: futex (threads waking each other)', sym: SYS('futex') },
  { label: 'kernel: poll, epoll', sym: SYS('poll|ppoll|epoll_wait|epoll_pwait|epoll_ctl|select|pselect6') },
  { label: 'kernel: memory (page faults, mmap, brk)', sym: /^(exc_page_fault|asm_exc_page_fault|(__x64_sys_|ksys_)(mmap|mmap_pgoff|munmap|brk|madvise|mprotect))$/ },
  { label: 'kernel: other system calls', sym: K('do_syscall_64') },
];

/** wget2's and libwget's user side, by libwget's exported entry points. */
export const WGET2_RULES: Rule[] = [
  { label: 'wget2: HTML, find the links (wget_html_*, wget_xml_*)', sym: /^wget_(html|xml)_/ },
  { label: 'wget2: URLs: parse, resolve, normalise (wget_iri_*)', sym: /^(wget_iri_|wget_url|idn2?_|psl_)/ },
  { label: 'wget2: seen set and queue (hash maps, lists)', sym: /^wget_(hashmap|stringmap|vector|list)_/ },
  { label: 'wget2: HTTP request and response head (wget_http_*)', sym: /^wget_http_(?!get_response_cb)/ },
  { label: 'wget2: socket calls (wget_tcp_*)', sym: /^wget_tcp_/ },
];

/** node's user side, by object file (JavaScript runs from JIT code or the interpreter's builtins, both in node). */
export const NODE_RULES: Rule[] = [{ label: 'ours: SQLite (better-sqlite3, native)', dso: /better_sqlite3\.node/ }];

/** What a sample falls back to when no frame matches a rule: its own frame's object file. */
function fallback(dso: string): string {
  if (dso === '[kernel.kallsyms]') return 'kernel: other (interrupts, scheduler)';
  if (/libc\.so|libm\.so|ld-linux/.test(dso)) return 'libc, other';
  if (/libwget|\/wget2$|^wget2$/.test(dso)) return 'wget2: other (its own code, libwget\'s static functions)';
  if (/\/node$|^node$/.test(dso)) return 'ours: V8 and node (interpreter, builtins, GC, libuv)';
  if (dso === '[unknown]' || /perf-\d+\.map|JIT/.test(dso)) return 'ours: JIT-compiled JavaScript';
  return `other: ${dso}`;
}

export interface PerfSplit {
  /** CPU milliseconds sampled (periods summed), every thread. */
  cpuMs: number;
  samples: number;
  /** Milliseconds by category, largest first. */
  categories: Array<{ label: string; ms: number }>;
  /** Milliseconds by the sampled frame's object file, largest first. */
  dsos: Array<{ dso: string; ms: number }>;
  /** Milliseconds by thread (comm/tid), largest first. */
  threads: Array<{ thread: string; ms: number }>;
}

/** Why perf cannot be used here, or undefined when it can (a short cpu-clock record works). */
export function perfUnavailable(): string | undefined {
  const r = spawnSync('perf', ['record', '-e', 'cpu-clock', '-o', '/dev/null', '--', 'true'], { encoding: 'utf8' });
  if (r.error !== undefined) return 'perf is not installed (apt-get install -y linux-perf)';
  return r.status === 0 ? undefined : `perf record fails here: ${r.stderr.trim().split('\n').pop()}`;
}

/**
 * `perf record` argv (before the command): cpu-clock at `hz`, with DWARF call
 * graphs (wget2: its unnamed functions are found through their named
 * callers) or frame pointers (node: DWARF cannot unwind JIT code, and its
 * records of a 10,000-page crawl take perf script many minutes to read; the
 * kernel's stacks are whole either way).
 */
export function perfRecordArgs(dataFile: string, hz: number, dwarf: boolean): string[] {
  return ['record', '-e', 'cpu-clock', '-F', String(hz), '--call-graph', dwarf ? 'dwarf,16384' : 'fp', '-o', dataFile, '--'];
}

const add = (m: Map<string, number>, k: string, v: number): void => void m.set(k, (m.get(k) ?? 0) + v);
const sorted = (m: Map<string, number>): Array<[string, number]> => [...m.entries()].sort((a, b) => b[1] - a[1]);

/** A sample of a perf record: its process and thread, its CPU milliseconds, its frames from the sampled one towards the root. */
export interface PerfSample {
  comm: string;
  pid: number;
  tid: number;
  ms: number;
  frames: Array<{ sym: string; dso: string }>;
}

/** A perf.data file's samples, as perf script prints them. */
export function perfSamples(dataFile: string): PerfSample[] {
  const r = spawnSync('perf', ['script', '-i', dataFile, '-F', 'comm,pid,tid,period,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 2 ** 31 - 1 });
  if (r.status !== 0) throw new Error(`perf script: ${r.stderr}`);
  const out: PerfSample[] = [];
  for (const block of r.stdout.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    const head = /^(\S.*?)\s+(\d+)\/(\d+)\s+(\d+)\s*$/.exec(lines[0] ?? '');
    if (head === null) continue;
    const frames = lines.slice(1).map((l) => {
      const m = /^\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$/.exec(l);
      // An inlined frame names no object file: it is in its caller's.
      return m === null ? { sym: '', dso: '' } : { sym: (m[1] as string).replace(/\+0x[0-9a-f]+$/, ''), dso: m[2] === 'inlined' ? '' : (m[2] as string) };
    });
    out.push({ comm: head[1] as string, pid: Number(head[2]), tid: Number(head[3]), ms: Number(head[4]) / 1e6, frames });
  }
  return out;
}

/** Splits samples by `rules` (then the kernel's, then the fallbacks). */
export function perfSplit(samples: readonly PerfSample[], rules: readonly Rule[]): PerfSplit {
  const all = [...rules, ...KERNEL_RULES];
  const categories = new Map<string, number>();
  const dsos = new Map<string, number>();
  const threads = new Map<string, number>();
  let total = 0;
  for (const { frames, ms, comm, tid } of samples) {
    let label: string | undefined;
    for (const f of frames) {
      label = all.find((rule) => (rule.sym !== undefined && rule.sym.test(f.sym)) || (rule.dso !== undefined && rule.dso.test(f.dso)))?.label;
      if (label !== undefined) break;
    }
    const leaf = frames.find((f) => f.dso !== '')?.dso ?? '';
    add(categories, label ?? fallback(leaf), ms);
    add(dsos, leaf.replace(/^.*\//, ''), ms);
    add(threads, `${comm}/${tid}`, ms);
    total += ms;
  }
  return {
    cpuMs: total,
    samples: samples.length,
    categories: sorted(categories).map(([label, ms]) => ({ label, ms })),
    dsos: sorted(dsos).map(([dso, ms]) => ({ dso, ms })),
    threads: sorted(threads).map(([thread, ms]) => ({ thread, ms })),
  };
}

/**
 * A stack of the crawl's thread whose JavaScript callers perf could not
 * reach (glibc's system call wrappers keep no frame pointer: an open(2)'s
 * stack ends there), placed by the native code on it: node's file system
 * calls and glibc's open, writev and rename are the page file's (SQLite's
 * go through its own object file, and pwrite), SQLite's are the frontier's,
 * a TCP send the client's.
 */
const NATIVE_STAGES: Array<{ stage: string; sym?: RegExp; dso?: RegExp }> = [
  { stage: 'frontier', dso: /better_sqlite3\.node/, sym: /^(sqlite3|Statement::|Database::|__libc_pwrite64|__GI___libc_pwrite)/ },
  { stage: 'page-file', sym: /^(node::fs::|uv_fs_|__GI___libc_open|__libc_open64|__open64|__GI___open64_nocancel|__GI___writev|__writev|__GI___rename|rename|__GI___close|__close)/ },
  { stage: 'client', sym: /^(node::StreamBase::|node::LibuvStreamWrap::DoTryWrite|uv_try_write|uv__try_write|tcp_sendmsg)$/ },
];

function nativeStage(frames: ReadonlyArray<{ sym: string; dso: string }>): string | undefined {
  for (const f of frames) for (const r of NATIVE_STAGES) if ((r.sym !== undefined && r.sym.test(f.sym)) || (r.dso !== undefined && r.dso.test(f.dso))) return r.stage;
  return undefined;
}

/** Our crawl's CPU by stage, from perf: the crawl's thread (by stage, and of it in the kernel) and every other thread. */
export interface PerfStages {
  mainMs: number;
  otherThreadsMs: number;
  ms: Record<string, number>;
  kernelMs: Record<string, number>;
}

/**
 * Splits the samples of node's main thread by stage as a V8 profile is split
 * (stage-profile.ts stageOf), its JavaScript frames named by node's
 * `--perf-basic-prof` map (`JS:*name FILE:LINE:COLUMN`, the line 1-based).
 */
export function perfStages(samples: readonly PerfSample[], sourceOf: SourceOf): PerfStages {
  const out: PerfStages = { mainMs: 0, otherThreadsMs: 0, ms: {}, kernelMs: {} };
  const node = samples.find((x) => x.comm === 'node')?.pid;
  for (const { pid, tid, ms, frames } of samples) {
    if (pid !== node) continue;
    if (tid !== pid) {
      out.otherThreadsMs += ms;
      continue;
    }
    out.mainMs += ms;
    const mapped = frames.map(({ sym }) => {
      const js = /^JS:[*~^+]?(.*) (\S+):(\d+):\d+$/.exec(sym);
      return js === null ? { id: '', name: sym } : { id: sourceOf(js[2] as string, Number(js[3]) - 1), name: js[1] as string };
    });
    const found = stageOf(mapped);
    // No JavaScript frame of ours reached: the native code says, where it can.
    const stage = mapped.some((f) => f.id !== '') ? found : (nativeStage(frames) ?? found);
    out.ms[stage] = (out.ms[stage] ?? 0) + ms;
    if (frames[0]?.dso === '[kernel.kallsyms]') out.kernelMs[stage] = (out.kernelMs[stage] ?? 0) + ms;
  }
  return out;
}
