/**
 * The stages of a page in a real crawl (stages.ts): a V8 .cpuprofile of
 * `crawler` (its bundle, as `./crawler` runs it) split by stage. Each
 * sample goes to the stage of the nearest frame of the project's own code
 * on its stack (a `writevSync` called by atomic-file.ts is the page file's,
 * a socket write called by connection.ts the client's); a sample with no
 * project frame on its stack is V8's or node's: garbage collection, the
 * promise and timer machinery, node's streams and sockets, native code
 * outside JavaScript (`(program)`: libuv's reads, the compiler), or module
 * loading at start-up. The bundle's lines are mapped back to their source
 * files by the `// dist/src/...` line esbuild writes before each module.
 */
import { readFileSync } from 'node:fs';
import type { CpuProfile } from './cpuprofile-top.js';

/** A stage of the crawl's thread, and the source files (relative to src/, no extension) whose frames are its. */
export const CRAWL_STAGES: ReadonlyArray<{ key: string; label: string; files: RegExp }> = [
  { key: 'parse', label: 'parse the answer', files: /^http\/(response-parser|header-section|header-lines|line-syntax|parsed-response)$/ },
  { key: 'client', label: 'HTTP client: request, connection, socket writes', files: /^(http\/(client|connection|connection-pool|request|wire-exchange|socket-.*|host-resolver|system-lookup|lookup-backend)|net-errors)$/ },
  { key: 'fetch', label: 'polite fetch, politeness, host slots', files: /^(engine\/(polite-fetch|host-slots|pushback|redirects)|frontier\/politeness|http\/retry-after)$/ },
  { key: 'window', label: 'window, turns, loop, page path (the crawl\'s glue)', files: /^(engine\/(lookahead|held-answers|window-turns|loop|page-path|turns|host-lanes|turn-heap|crawl)|programs\/tse-crawl)$/ },
  { key: 'extract', label: 'find the links', files: /^extract\// },
  { key: 'resolve', label: 'resolve and normalise links (and the taken URL)', files: /^(url\/(http-url|uri|request-target|limits)|engine\/page-links|programs\/run-parts)$/ },
  { key: 'classify', label: 'scope, non-HTML extension, robots.txt, verdict', files: /^(engine\/(link-classifier|robots-gate|earlier-pages)|robots\/.*|url\/(scope|non-html)|programs\/tse)$/ },
  { key: 'frontier', label: 'seen set and queue (SQLite)', files: /^(frontier\/(private-sqlite|pages-table|sqlite-.*)|npm:better-sqlite3)$/ },
  { key: 'page-file', label: 'the page file', files: /^sink\// },
  { key: 'events', label: 'events, their consumers, scan bookkeeping', files: /^(engine\/(events|event-fanout|visit-events|page-scan)|programs\/tse-log|output\/.*)$/ },
];

/** What is not a stage of ours: V8's and node's own work, and the start. */
export const OTHER_STAGES: ReadonlyArray<{ key: string; label: string }> = [
  { key: 'gc', label: 'V8 garbage collection (on the crawl\'s thread)' },
  { key: 'promises', label: 'promise and timer machinery (microtasks, ticks, timers)' },
  { key: 'net', label: 'node\'s sockets and streams (reads handed to JavaScript)' },
  { key: 'program', label: '(program): native code outside JavaScript (libuv, compiler)' },
  { key: 'node-other', label: 'node internals, other' },
  { key: 'startup', label: 'start-up: module loading, CLI, opening the state' },
  { key: 'src-other', label: 'other project code' },
];

/** A source id for a frame's URL and line: `http/response-parser` (under src/), `npm:NAME`, `node:...`, or ''. */
export type SourceOf = (url: string, line: number) => string;

/** Maps bundle lines back to the modules esbuild put there (their `// path` headers), and tsc's own files to theirs. */
export function sourceMapper(bundleFile: string): SourceOf {
  const starts: number[] = [];
  const ids: string[] = [];
  readFileSync(bundleFile, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const m = /^\/\/ (\S+\.c?js)$/.exec(text);
      if (m === null) return;
      starts.push(i);
      ids.push(idOf(m[1] as string));
    });
  return (url, line) => {
    if (url === '') return '';
    if (url.startsWith('node:')) return url;
    if (!url.includes('.bundle.')) return idOf(url);
    // Binary search: the last header at or before the line (0-based in both).
    let lo = 0;
    let hi = starts.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((starts[mid] as number) <= line) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at === -1 ? 'bundle-head' : (ids[at] as string);
  };
}

function idOf(path: string): string {
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (npm !== null) return `npm:${npm[1]}`;
  const src = /(?:^|\/)dist\/src\/(.+)\.c?js$/.exec(path);
  if (src !== null) return src[1] as string;
  if (/dist\/bin\//.test(path)) return 'cli/launch';
  return path;
}

function projectStage(id: string): string | undefined {
  if (id === '' || id.startsWith('node:')) return undefined;
  for (const s of CRAWL_STAGES) if (s.files.test(id)) return s.key;
  if (/^(cli\/|sink\/pagedir-start|program-io|package-)/.test(id)) return 'startup';
  if (id.startsWith('npm:') || id === 'bundle-head') return undefined;
  return 'src-other';
}

/** A frame of a sampled stack: its source id (SourceOf's; '' for native code) and its function's name. */
export interface Frame {
  id: string;
  name: string;
}

/** V8's garbage collector, by its C++ names (in a perf stack) or the profile's pseudo-frame. */
const GC_RE = /^\(garbage collector\)$|^v8::internal::(Heap|Scavenger|ScavengerCollector|MarkCompactCollector|MinorMarkCompactCollector|IncrementalMarking|ConcurrentMarking|GCTracer|MemoryAllocator|MarkingVisitor|Sweeper)\b/;

/** Where a stack with no project frame on it goes: the first frame, from the sampled one towards the root, that says. */
function otherStage(frames: readonly Frame[]): string {
  if (frames.some((f) => GC_RE.test(f.name))) return 'gc';
  for (const { id, name } of frames) {
    if (name === '(program)' || name === '(root)') return 'program';
    if (/^node:internal\/(process\/task_queues|timers)|^node:timers/.test(id) || /^(runMicrotasks|processTicksAndRejections|Builtins_RunMicrotasks|v8::internal::MicrotaskQueue::)/.test(name)) return 'promises';
    if (/^node:(net|stream|events|internal\/(stream_base_commons|streams|net))/.test(id) || /^node::(LibuvStreamWrap|StreamBase|TCPWrap)/.test(name)) return 'net';
    if (/^(uv_|uv__|epoll|node::SpinEventLoop)/.test(name)) return 'program';
  }
  return 'node-other';
}

/**
 * The stage of a sampled stack, its frames from the sampled one towards the
 * root: the nearest project frame's; the start's when module loading or the
 * launcher is anywhere on it; else V8's or node's (otherStage).
 */
export function stageOf(frames: readonly Frame[]): string {
  let stage: string | undefined;
  for (const f of frames) {
    if (/^node:internal\/modules\//.test(f.id) || f.id === 'cli/launch') return 'startup';
    stage ??= projectStage(f.id);
  }
  return stage ?? otherStage(frames);
}

/** True when the sampled frame is not the project's own JavaScript (node's, a native call, the kernel). */
export function outsideProject(frames: readonly Frame[]): boolean {
  return frames.length === 0 || projectStage((frames[0] as Frame).id) === undefined;
}

export interface CrawlSplit {
  /** Milliseconds sampled, idle excluded. */
  busyMs: number;
  idleMs: number;
  /** Milliseconds per stage key (CRAWL_STAGES and OTHER_STAGES). */
  ms: Record<string, number>;
  /** Of each project stage, the milliseconds in frames that are not the project's JavaScript (node's calls, natives: system calls). */
  nativeMs: Record<string, number>;
  /** The same by the sampled frame's source (`node:net`, `native:writev`...), per stage. */
  nativeBy: Record<string, Record<string, number>>;
}

/** Splits a profile's samples by stage (see the file's comment). */
export function splitProfile(profile: CpuProfile, sourceOf: SourceOf): CrawlSplit {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  type Place = { stage: string; native: boolean; idle: boolean; leaf: string };
  const memo = new Map<number, Place>();
  const place = (id: number): Place => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    const frames: Frame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const cf = byId.get(at)!.callFrame;
      frames.push({ id: sourceOf(cf.url, cf.lineNumber), name: cf.functionName });
    }
    const own = frames[0] as Frame;
    const leaf = own.id === '' ? `native:${own.name}` : own.id;
    const stage = own.name === '(idle)' ? 'idle' : stageOf(frames);
    const result: Place = { stage, native: CRAWL_STAGES.some((s) => s.key === stage) && outsideProject(frames), idle: stage === 'idle', leaf };
    memo.set(id, result);
    return result;
  };
  const ms: Record<string, number> = {};
  const nativeMs: Record<string, number> = {};
  const nativeBy: Record<string, Record<string, number>> = {};
  let busy = 0;
  let idle = 0;
  const n = profile.samples.length;
  const mean = n > 0 ? (profile.endTime - profile.startTime) / n : 0;
  for (let i = 0; i < n; i++) {
    const dt = (i + 1 < n ? (profile.timeDeltas[i + 1] as number) : mean) / 1000;
    const p = place(profile.samples[i] as number);
    if (p.idle) {
      idle += dt;
      continue;
    }
    busy += dt;
    ms[p.stage] = (ms[p.stage] ?? 0) + dt;
    if (p.native) {
      nativeMs[p.stage] = (nativeMs[p.stage] ?? 0) + dt;
      const by = (nativeBy[p.stage] ??= {});
      by[p.leaf] = (by[p.leaf] ?? 0) + dt;
    }
  }
  return { busyMs: busy, idleMs: idle, ms, nativeMs, nativeBy };
}

/** Per-thread CPU at exit, as bench/stage-cpu-hook.ts writes it. */
export interface ThreadCpu {
  /** Seconds of CPU (user + system) of the crawl's own thread. */
  mainSeconds: number;
  /** Of every other thread (V8's workers: concurrent marking, compilation; libuv's pool), by thread name. */
  others: Record<string, number>;
  /** process.cpuUsage() at exit, seconds. */
  processSeconds: number;
  /** The crawl's thread, from /proc schedstat: seconds on a CPU, seconds runnable but waiting for one (another process on its CPU). */
  mainRunSeconds?: number;
  mainWaitSeconds?: number;
  /** Its involuntary context switches: how often it was preempted. */
  mainPreempted?: number;
}
