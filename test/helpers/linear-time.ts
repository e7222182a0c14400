/**
 * Time bounds on readers fed pathological input, in CPU time rather than on
 * the wall clock: other test files running beside this one, or Chromium,
 * stretch the wall time of a read eightfold on a busy machine (a css-urls
 * case took 1.6 s there that takes 0.2 s alone), but not the CPU it uses.
 */
import assert from 'node:assert/strict';

/** The CPU time (user and system, ms) this process spent running `fn`. */
export function cpuMs(fn: () => unknown): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/**
 * Asserts that `read` takes time linear in the size of its input: each case
 * is made at `size` (characters, about) and at an eighth of it, and the
 * whole takes at most 16 times the CPU of the eighth, with 100 ms for the
 * clock's grain and a collection of the garbage (a quadratic reading takes
 * 64 times), and under 3 s of CPU whatever the eighth took.
 */
export function assertLinear(read: (input: string) => unknown, cases: ReadonlyArray<(size: number) => string>, size = 1 << 21): void {
  for (const make of cases) {
    const small = make(Math.floor(size / 8));
    const big = make(size);
    const part = cpuMs(() => read(small));
    const whole = cpuMs(() => read(big));
    const what = `${JSON.stringify(big.slice(0, 16))}... (${big.length} chars)`;
    assert.ok(whole <= 16 * part + 100, `${whole.toFixed(0)} ms of CPU on ${what}, ${part.toFixed(0)} ms on an eighth of it: not linear`);
    assert.ok(whole < 3000, `${whole.toFixed(0)} ms of CPU on ${what}`);
  }
}
