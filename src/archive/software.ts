/**
 * The name and version the archive says wrote it (warcinfo `software`), from
 * the package's own package.json (package-info.ts).
 */
import { packageInfo } from '../package-info.js';

/** `polite-crawler/0.1.0`, or `polite-crawler` when package.json cannot be read. */
export function softwareName(): string {
  try {
    const { name, version } = packageInfo();
    return `${name}/${version}`;
  } catch {
    return 'polite-crawler';
  }
}

/** True when a warcinfo `software` value names this program (any version): the archive is ours. */
export function isOurSoftware(value: string | undefined): boolean {
  return value !== undefined && /^polite-crawler(\/|$)/.test(value);
}
