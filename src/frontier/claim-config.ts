/**
 * What a shared crawl is, as its store keeps it: the entries it queues when
 * created, and how a joining worker's config differs from the crawl's
 * (every ClaimStore's `open` refuses a worker that differs).
 */
import type { ClaimCrawlConfig, ClaimEntry } from './claim-store.js';
import { count } from '../plural.js';

/** The entries a crawl queues when it is created: its seed, then the seeds after it. */
export function seedEntries(config: ClaimCrawlConfig): ClaimEntry[] {
  return [config.seed, ...(config.moreSeeds ?? [])];
}

/** The identity keys of the seeds after the first, as a store keeps them: one a line ('' for none; a key holds no line break). */
export function moreSeedKeys(config: ClaimCrawlConfig): string {
  return (config.moreSeeds ?? []).map((e) => e.key).join('\n');
}

/** The config `b` with what a store kept of crawl `a` (its seed key, its more seeds' keys, ...), to compare with configMismatch. */
export function storedConfig(
  b: ClaimCrawlConfig,
  kept: { seedKey: string; moreSeeds: string; scope: string; maxDepth: number; delayMs: number; robots: boolean; maxPages: number | null },
): ClaimCrawlConfig {
  const keys = kept.moreSeeds === '' ? [] : kept.moreSeeds.split('\n');
  return {
    seed: { ...b.seed, key: kept.seedKey },
    moreSeeds: keys.map((key) => ({ key, url: key, depth: b.seed.depth, origin: '' })),
    scope: kept.scope,
    maxDepth: kept.maxDepth,
    delayMs: kept.delayMs,
    robots: kept.robots,
    ...(kept.maxPages === null ? {} : { maxPages: kept.maxPages }),
  };
}

/** How `b` differs from the crawl `a` (for joining workers), or undefined when they agree. */
export function configMismatch(a: ClaimCrawlConfig, b: ClaimCrawlConfig): string | undefined {
  if (a.seed.key !== b.seed.key) return `it crawls ${a.seed.key}, not ${b.seed.key}`;
  if (moreSeedKeys(a) !== moreSeedKeys(b)) {
    const [m, n] = [a.moreSeeds?.length ?? 0, b.moreSeeds?.length ?? 0];
    return `its seed list is another: ${count(m, 'seed')} after ${a.seed.key} (--seeds), not ${n}: give every worker the same seed file`;
  }
  if ((a.scope ?? '') !== (b.scope ?? '')) return 'its scope is another (give every worker the same --internal, --internal-domain, --any-host and --exclude)';
  if (a.maxDepth !== b.maxDepth) return `its maxDepth is ${a.maxDepth}, not ${b.maxDepth}`;
  if (a.delayMs !== b.delayMs) return `its delay is ${a.delayMs / 1000} s, not ${b.delayMs / 1000} s`;
  if (a.robots !== b.robots) return a.robots ? 'it obeys robots.txt (drop --ignore-robots)' : 'it ignores robots.txt (add --ignore-robots)';
  if (a.maxPages !== b.maxPages) {
    const cap = (n: number | undefined): string => (n === undefined ? 'unset' : String(n));
    return `its --max-pages is ${cap(a.maxPages)}, not ${cap(b.maxPages)}`;
  }
  return undefined;
}
