/**
 * The package's root directory, wherever the code runs from: tsc's output
 * (dist/src/...) or a program's bundle (dist/bin/NAME.cjs, where
 * `import.meta` is empty and `__filename` is the bundle's).
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(): string {
  if (typeof __filename === 'string' && __filename.endsWith('.cjs')) return resolve(dirname(__filename), '..', '..');
  // This file is dist/src/package-root.js.
  return fileURLToPath(new URL('../../', import.meta.url));
}
