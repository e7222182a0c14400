/**
 * Reads a V8 .cpuprofile (from `node --cpu-prof`) and prints the functions
 * with the most self time, with their inclusive ("total") time, plus self
 * time by file. Run: `node dist/bench/cpuprofile-top.js FILE-or-DIR [N]`
 * (a directory: its newest .cpuprofile; N defaults to 25).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface HotFunction {
  name: string;
  /** `file:line` (1-based), shortened to the repository when inside it. */
  location: string;
  selfMs: number;
  selfPercent: number;
  totalMs: number;
  totalPercent: number;
  /** The caller that accounts for most of this function's self time (name and location). */
  mainCaller: string;
}

export interface ProfileSummary {
  file?: string;
  durationMs: number;
  samples: number;
  top: HotFunction[];
  byFile: Array<{ file: string; selfMs: number; selfPercent: number }>;
  /** The project's own functions (src/) by inclusive time: where a change pays. */
  projectByTotal: Array<{ name: string; location: string; totalMs: number; totalPercent: number; selfPercent: number }>;
}

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

function shortUrl(url: string): string {
  if (url === '') return '';
  let p = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (p.startsWith(REPO + '/')) p = p.slice(REPO.length + 1);
  return p.replace(/^dist\//, '').replace(/^node_modules\//, 'npm:');
}

/** Self and inclusive time per function (name + location), biggest self time first. */
export function summarizeProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n: ProfileNode): string => {
    const f = n.callFrame;
    return `${f.functionName || '(anonymous)'}\u0000${shortUrl(f.url)}${f.url === '' ? '' : `:${f.lineNumber + 1}`}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  const callers = new Map<string, Map<string, number>>();
  const { samples, timeDeltas } = profile;
  const n = samples.length;
  // Sample i lasts until sample i+1 (DevTools' model); the last one gets the mean.
  const mean = n > 0 ? (profile.endTime - profile.startTime) / n : 0;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const dt = (i + 1 < n ? timeDeltas[i + 1]! : mean) / 1000;
    sum += dt;
    const node = byId.get(samples[i]!)!;
    const k = keyOf(node);
    self.set(k, (self.get(k) ?? 0) + dt);
    const p = parent.get(node.id);
    if (p !== undefined) {
      const ck = keyOf(byId.get(p)!);
      let m = callers.get(k);
      if (m === undefined) callers.set(k, (m = new Map()));
      m.set(ck, (m.get(ck) ?? 0) + dt);
    }
    const file = node.callFrame.url === '' ? node.callFrame.functionName || '(native)' : shortUrl(node.callFrame.url);
    fileSelf.set(file, (fileSelf.get(file) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const key = keyOf(byId.get(id)!);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + dt);
    }
  }
  const pct = (ms: number): number => (sum > 0 ? (ms / sum) * 100 : 0);
  const rows = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, ms]) => {
      const [name, location] = k.split('\u0000') as [string, string];
      const t = total.get(k) ?? ms;
      const best = [...(callers.get(k) ?? new Map<string, number>()).entries()].sort((a, b) => b[1] - a[1])[0];
      const mainCaller = best === undefined ? '' : best[0].split('\u0000').filter(Boolean).join(' ');
      return { name, location, selfMs: ms, selfPercent: pct(ms), totalMs: t, totalPercent: pct(t), mainCaller };
    });
  const byFile = [...fileSelf.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([file, ms]) => ({ file, selfMs: ms, selfPercent: pct(ms) }));
  const projectByTotal = [...total.entries()]
    .filter(([k]) => k.includes('\u0000src/'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([k, ms]) => {
      const [name, location] = k.split('\u0000') as [string, string];
      return { name, location, totalMs: ms, totalPercent: pct(ms), selfPercent: pct(self.get(k) ?? 0) };
    });
  return { durationMs: sum, samples: n, top: rows, byFile, projectByTotal };
}

/** The newest .cpuprofile in `dir`, or `dir` itself when it is a file. */
export function findProfile(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const files = readdirSync(path).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(path, f));
  if (files.length === 0) throw new Error(`no .cpuprofile in ${path}`);
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
}

export function loadProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** The summary as printable text. */
export function formatProfile(s: ProfileSummary): string {
  const out: string[] = [];
  out.push(`${s.file ?? 'profile'}: ${(s.durationMs / 1000).toFixed(2)} s sampled, ${s.samples} samples`);
  out.push(`  ${'self ms'.padStart(9)} ${'self%'.padStart(6)} ${'total%'.padStart(7)}  function (location)  <- main caller`);
  for (const r of s.top) {
    const where = r.location === '' ? '' : ` (${r.location})`;
    out.push(`  ${r.selfMs.toFixed(1).padStart(9)} ${r.selfPercent.toFixed(1).padStart(6)} ${r.totalPercent.toFixed(1).padStart(7)}  ${r.name}${where}${r.mainCaller === '' ? '' : `  <- ${r.mainCaller}`}`);
  }
  out.push('  project functions (src/) by total time:');
  for (const r of s.projectByTotal) out.push(`  ${r.totalMs.toFixed(1).padStart(9)} ${r.totalPercent.toFixed(1).padStart(6)}%  ${r.name} (${r.location}), self ${r.selfPercent.toFixed(1)} %`);
  out.push('  self time by file:');
  for (const f of s.byFile) out.push(`  ${f.selfMs.toFixed(1).padStart(9)} ${f.selfPercent.toFixed(1).padStart(6)}          ${f.file}`);
  return out.join('\n');
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = process.argv[2];
  if (target === undefined) {
    console.error('usage: node dist/bench/cpuprofile-top.js FILE.cpuprofile|DIR [N]');
    process.exit(2);
  }
  const file = findProfile(target);
  const summary = { ...summarizeProfile(loadProfile(file), Number(process.argv[3] ?? 25)), file };
  console.log(formatProfile(summary));
}
