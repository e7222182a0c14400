/**
 * The bench's arithmetic, pure so that it is unit-tested (test/bench/):
 * medians, ratios paired by round, and the comparison of what a tool saved
 * with the pages the site holds.
 *
 * Why pairing: on a shared machine the load changes from one minute to the
 * next, so the ratio of two medians taken minutes apart mixes the tools'
 * speeds with the load. Runs of one round are seconds apart; the ratio of
 * each round's pair, and then the median of those ratios, cancels most of
 * the drift.
 */

/** The median; NaN for an empty list. Non-finite values are ignored. */
export function median(xs: readonly number[]): number {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** f(a[k], b[k]) for each round k where both are finite and `ok` accepts them. */
function paired(a: readonly number[], b: readonly number[], f: (x: number, y: number) => number, ok: (x: number, y: number) => boolean = () => true): number[] {
  const out: number[] = [];
  for (let k = 0; k < Math.min(a.length, b.length); k++) {
    const x = a[k]!;
    const y = b[k]!;
    if (Number.isFinite(x) && Number.isFinite(y) && ok(x, y)) out.push(f(x, y));
  }
  return out;
}

/**
 * Per-round ratios a[k] / b[k] of two lists measured in the same rounds
 * (index k = round k). Rounds where either side is missing or not a finite
 * number, or where b[k] is not positive, are skipped: a ratio needs both.
 */
export function pairedRatios(a: readonly number[], b: readonly number[]): number[] {
  return paired(a, b, (x, y) => x / y, (_x, y) => y > 0);
}

/** The median of the per-round ratios a[k] / b[k] (NaN when no round has both). */
export function medianPairedRatio(a: readonly number[], b: readonly number[]): number {
  return median(pairedRatios(a, b));
}

/** Per-round differences a[k] - b[k] (finite pairs only). */
export function pairedDifferences(a: readonly number[], b: readonly number[]): number[] {
  return paired(a, b, (x, y) => x - y);
}

/** What a tool saved against the pages the site holds. */
export interface PageCount {
  /** Saved URLs that are expected pages (each counted once). */
  pages: number;
  /** Expected pages not saved. */
  missing: number;
  /** Saved page-like URLs outside the expected set (each counted once). */
  extra: number;
  /** Expected pages saved more than once (a second file for one URL). */
  duplicates: number;
  missingExamples: string[];
  extraExamples: string[];
}

/**
 * Compares the URLs (or paths) a tool saved with the expected set. A URL
 * saved twice counts once as a page and once as a duplicate, so `pages`
 * never exceeds the expected count.
 */
export function countPages(saved: Iterable<string>, expected: ReadonlySet<string>, examples = 5): PageCount {
  const seen = new Set<string>();
  let duplicates = 0;
  const extra: string[] = [];
  for (const u of saved) {
    if (seen.has(u)) {
      if (expected.has(u)) duplicates++;
      continue;
    }
    seen.add(u);
    if (!expected.has(u)) extra.push(u);
  }
  const missing: string[] = [];
  for (const u of expected) if (!seen.has(u)) missing.push(u);
  return {
    pages: seen.size - extra.length,
    missing: missing.length,
    extra: extra.length,
    duplicates,
    missingExamples: missing.slice(0, examples),
    extraExamples: extra.slice(0, examples),
  };
}

/** "10,160 / 10,300 (140 missing)" style summary of a count. */
export function describeCount(c: PageCount, expected: number): string {
  const parts = [`${c.pages} / ${expected}`];
  if (c.missing > 0) parts.push(`${c.missing} missing`);
  if (c.extra > 0) parts.push(`${c.extra} extra`);
  if (c.duplicates > 0) parts.push(`${c.duplicates} saved twice`);
  return parts.length === 1 ? parts[0]! : `${parts[0]} (${parts.slice(1).join(', ')})`;
}
