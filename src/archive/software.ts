/**
 * The name and version the archive says wrote it (warcinfo `software`), from
 * the package's own package.json, read once.
 */
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** `polite-crawler/0.1.0`, or `polite-crawler` when package.json cannot be read. */
export function softwareName(): string {
  if (cached === undefined) {
    try {
      // dist/src/archive/software.js -> the package root, in a checkout and in an installed package alike.
      const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { name?: string; version?: string };
      cached = `${pkg.name ?? 'polite-crawler'}/${pkg.version ?? 'unknown'}`;
    } catch {
      cached = 'polite-crawler';
    }
  }
  return cached;
}

/** True when a warcinfo `software` value names this program (any version): the archive is ours. */
export function isOurSoftware(value: string | undefined): boolean {
  return value !== undefined && /^polite-crawler(\/|$)/.test(value);
}
