/**
 * Preloaded into a measured crawl by stages.ts (`node --import
 * dist/bench/stage-cpu-hook.js ...`): at exit, writes each thread's CPU
 * (user + system, from /proc/self/task) and process.cpuUsage() as JSON to
 * the file named by STAGES_CPU_FILE, so that a profile of the crawl's own
 * thread can be set beside what V8's and libuv's threads spent. Nothing else.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import type { ThreadCpu } from './stage-profile.js';

const CLK_TCK = 100; // Linux USER_HZ

/** A thread's name and CPU seconds from its /proc stat line. */
function threadCpu(tid: string): { name: string; seconds: number } | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name, seconds: (Number(f[11]) + Number(f[12])) / CLK_TCK };
  } catch {
    return undefined; // the thread ended meanwhile
  }
}

const out = process.env['STAGES_CPU_FILE'];
if (out !== undefined && isMainThread) {
  process.on('exit', () => {
    const cpu: ThreadCpu = { mainSeconds: 0, others: {}, processSeconds: 0 };
    for (const tid of readdirSync('/proc/self/task')) {
      const t = threadCpu(tid);
      if (t === undefined) continue;
      if (tid === String(process.pid)) cpu.mainSeconds = t.seconds;
      else cpu.others[t.name] = (cpu.others[t.name] ?? 0) + t.seconds;
    }
    // The crawl's thread's time on a CPU and waiting for one, in ns (the scheduler's own account), and how often it was preempted.
    try {
      const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
      const status = readFileSync(`/proc/self/task/${process.pid}/status`, 'utf8');
      cpu.mainRunSeconds = (run ?? 0) / 1e9;
      cpu.mainWaitSeconds = (wait ?? 0) / 1e9;
      cpu.mainPreempted = Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)?.[1] ?? 0);
    } catch {
      // no schedstat in this kernel
    }
    const u = process.cpuUsage();
    cpu.processSeconds = (u.user + u.system) / 1e6;
    writeFileSync(out, JSON.stringify(cpu));
  });
}
