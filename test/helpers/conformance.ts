/**
 * Locates the conformance data in `../shared/conformance/` (beside the project
 * root). A clone outside this workplace has no such folder: callers then skip
 * with the reason this module gives, so `npm test` still passes there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (this file is compiled to dist/test/helpers/). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The conformance folder, overridable with POLITE_CRAWLER_CONFORMANCE. */
export const CONFORMANCE_DIR =
  process.env['POLITE_CRAWLER_CONFORMANCE'] ?? resolve(PROJECT_ROOT, '..', 'shared', 'conformance');

/** Absolute path of a conformance file or folder, or undefined when absent. */
export function conformancePath(name: string): string | undefined {
  const p = join(CONFORMANCE_DIR, name);
  return existsSync(p) ? p : undefined;
}

/** The parsed JSON of a conformance file, or undefined when it is absent. */
export function loadConformance<T>(name: string): T | undefined {
  const p = conformancePath(name);
  return p === undefined ? undefined : (JSON.parse(readFileSync(p, 'utf8')) as T);
}

/** The skip reason to print when a conformance file is absent. */
export function missingReason(name: string): string {
  return `conformance data ${join(CONFORMANCE_DIR, name)} is absent (clone outside the workplace)`;
}
