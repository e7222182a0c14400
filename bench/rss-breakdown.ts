/**
 * Where a process's resident memory is, at its peak: runs a command (not
 * through a shell), samples its VmRSS every 100 ms, and at each new peak
 * reads /proc/PID/smaps and sums Rss by mapping: the executable's own pages
 * (for node: code, data and the dynamic symbol table), [anon] (the V8 heap
 * and other anonymous mappings), [heap] (malloc's brk heap) and each file.
 *
 *   node dist/bench/rss-breakdown.js node dist/bin/crawler.cjs --delay 0 --quiet SEED DIR 6
 *
 * The command's stdout and stderr pass through; the breakdown goes to
 * stderr at the end. Linux only.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/** Rss in KiB by mapping name ('[anon]' for nameless mappings), from the text of /proc/PID/smaps. */
export function rssByMapping(smaps: string): Map<string, number> {
  const out = new Map<string, number>();
  let name = '[anon]';
  for (const line of smaps.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head !== null) {
      name = head[1]!.trim() === '' ? '[anon]' : head[1]!.trim();
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null) out.set(name, (out.get(name) ?? 0) + Number(rss[1]));
  }
  return out;
}

function vmRssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? 0 : Number(m[1]);
}

export async function peakBreakdown(command: string, args: string[]): Promise<{ peakKiB: number; byMapping: Map<string, number>; code: number | null }> {
  const child = spawn(command, args, { stdio: 'inherit' });
  let peak = 0;
  let byMapping = new Map<string, number>();
  const poll = setInterval(() => {
    try {
      const rss = vmRssKiB(child.pid!);
      if (rss > peak) {
        peak = rss;
        byMapping = rssByMapping(readFileSync(`/proc/${child.pid!}/smaps`, 'utf8'));
      }
    } catch {
      // the child is gone
    }
  }, 100);
  const code = await new Promise<number | null>((r) => child.once('close', r));
  clearInterval(poll);
  return { peakKiB: peak, byMapping, code };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const [command, ...args] = process.argv.slice(2);
  if (command === undefined) {
    console.error('usage: node dist/bench/rss-breakdown.js COMMAND [ARGS...]');
    process.exit(2);
  }
  void peakBreakdown(command, args).then(({ peakKiB, byMapping, code }) => {
    const mib = (k: number): string => (k / 1024).toFixed(1).padStart(6);
    const rows = [...byMapping].sort((a, b) => b[1] - a[1]).slice(0, 12);
    console.error(`rss-breakdown: peak sampled RSS ${mib(peakKiB)} MiB (exit ${code}); by mapping at that peak:`);
    for (const [name, k] of rows) console.error(`  ${mib(k)} MiB  ${name}`);
  });
}
