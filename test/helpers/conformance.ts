/**
 * The conformance data: test vectors from outside the project (google/robotstxt,
 * http-parser and llhttp, RFC 3986 §5.4, the CS50 letters site), kept in
 * `test/fixtures/conformance/` with their sources named in its README, so every
 * clone runs every conformance test. POLITE_CRAWLER_CONFORMANCE=DIR reads
 * another copy instead. A file that is missing fails the test that wanted it,
 * naming the path: it is never skipped.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (this file is compiled to dist/test/helpers/). */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The conformance folder: the project's copy, or POLITE_CRAWLER_CONFORMANCE. */
export const CONFORMANCE_DIR = process.env['POLITE_CRAWLER_CONFORMANCE'] ?? join(PROJECT_ROOT, 'test', 'fixtures', 'conformance');

/** Absolute path of a conformance file or folder; throws, naming it, when it is absent. */
export function conformancePath(name: string): string {
  const p = join(CONFORMANCE_DIR, name);
  if (!existsSync(p)) throw new Error(`conformance data ${p} is missing (test/fixtures/conformance/README.md lists what belongs there)`);
  return p;
}

/** The parsed JSON of a conformance file; throws, naming it, when it is absent. */
export function loadConformance<T>(name: string): T {
  return JSON.parse(readFileSync(conformancePath(name), 'utf8')) as T;
}
