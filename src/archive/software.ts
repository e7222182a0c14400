/**
 * The name and version the archive says wrote it (warcinfo `software`), from
 * the package's own package.json, read once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../package-root.js';

let cached: string | undefined;

/** `polite-crawler/0.1.0`, or `polite-crawler` when package.json cannot be read. */
export function softwareName(): string {
  if (cached === undefined) {
    try {
      // In a checkout and in an installed package alike, from tsc's output or a bundle.
      const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { name?: string; version?: string };
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
