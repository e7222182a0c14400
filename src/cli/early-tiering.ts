/**
 * Early tiering for the bins (launch.ts): V8's interrupt budget lowered once
 * a program's bundle has loaded, and with it the old generation's growth
 * between full collections; both set back to V8's defaults while a code
 * cache is made.
 */
import { setFlagsFromString } from 'node:v8';

/**
 * V8's interrupt budget (the bytecode a function runs before V8 considers
 * optimising it): a quarter of V8 11.3's default (67,584), set once the
 * bundle has loaded, so that a crawl's hot path is optimised after fewer
 * pages: a short crawl is faster, a long one and start-up unchanged
 * (docs/performance.md, Start-up).
 * Set only on the V8 it was measured on, whose default is known, and not
 * when node's command line gives a budget. Any flag
 * changes V8's flag hash, which a code cache must match to be accepted:
 * the bundle is compiled before the budget is set, and a cache is made
 * with it set back to the default (withDefaultTiering), which restores the
 * hash. Node's built-in modules loaded later (zlib, crypto, worker_threads
 * for --warc and the page files' thread) compile without their caches,
 * which costs far less than the budget saves.
 */
const TIERING_V8 = '11.3.';
const BUDGET_DEFAULT = '--interrupt-budget=67584';
const BUDGET_EARLY = '--interrupt-budget=16384';
let earlyBudget = false;
/** Set when node's command line gives no heap growth: ours is set with the early budget. */
let ownHeapGrowth = false;

/**
 * How far V8 lets the old generation grow past what survived the last full
 * collection before it collects again: 30 %, where V8 11.3 picks up to
 * 300 % for a heap of our size while the program is busy (a crawl always
 * is). A broad crawl's live heap (the window's entries and answers waiting
 * their turn) then doubled before V8 collected it, and its peak RSS with
 * it (docs/performance.md, Memory). The cost is
 * more full collections, mostly marked concurrently, on another core. Set
 * with the budget (V8 reads it at each collection), not when node's command
 * line gives one, and reset with it while a code cache is made.
 */
const HEAP_GROWTH = '--heap-growing-percent=30';
const HEAP_GROWTH_DEFAULT = '--heap-growing-percent=0';

/** Sets the early budget, on V8 11.3 when no budget was given to node. */
export function tierEarly(): void {
  // Only node's command line can give one: node refuses --interrupt-budget in NODE_OPTIONS.
  const given = process.execArgv.some((a) => a.includes('interrupt-budget'));
  if (given || !process.versions.v8.startsWith(TIERING_V8)) return;
  setFlagsFromString(BUDGET_EARLY);
  ownHeapGrowth = !process.execArgv.some((a) => a.includes('heap-growing-percent'));
  if (ownHeapGrowth) setFlagsFromString(HEAP_GROWTH);
  earlyBudget = true;
}

/** Runs `step` under V8's default budget (what code caches are made and checked against). */
export function withDefaultTiering<T>(step: () => T): T {
  if (!earlyBudget) return step();
  setFlagsFromString(BUDGET_DEFAULT);
  if (ownHeapGrowth) setFlagsFromString(HEAP_GROWTH_DEFAULT);
  try {
    return step();
  } finally {
    setFlagsFromString(BUDGET_EARLY);
    if (ownHeapGrowth) setFlagsFromString(HEAP_GROWTH);
  }
}
