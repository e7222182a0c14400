/**
 * The package's name and version, from its own package.json, read once:
 * in a checkout and in an installed package alike, from tsc's output or a
 * program's bundle (package-root.ts finds the file; npm always ships it).
 * `--version` prints them, and the archive and the report name the software
 * that wrote them with them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError, describeError } from './errors.js';
import { packageRoot } from './package-root.js';

/** What package.json says of the package. */
export interface PackageInfo {
  name: string;
  version: string;
}

let cached: PackageInfo | undefined;

/** The package's name and version; throws CrawlerError ERR_STATE when package.json cannot be read or names no version. */
export function packageInfo(): PackageInfo {
  if (cached !== undefined) return cached;
  const file = join(packageRoot(), 'package.json');
  let pkg: { name?: unknown; version?: unknown };
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
  } catch (err) {
    throw new CrawlerError('ERR_STATE', `cannot read the version from ${file}: ${describeError(err)} (reinstall the package)`, { cause: err });
  }
  if (typeof pkg.version !== 'string' || pkg.version === '') throw new CrawlerError('ERR_STATE', `${file} names no version (reinstall the package)`);
  cached = { name: typeof pkg.name === 'string' && pkg.name !== '' ? pkg.name : 'polite-crawler', version: pkg.version };
  return cached;
}
