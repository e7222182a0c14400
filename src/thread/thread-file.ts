/**
 * Where a thread's code is (worker_threads): in tsc's output, its module
 * under dist/src; in a program's bundle (dist/bin/NAME.cjs, where
 * `import.meta` is empty), the thread's own bundle beside it
 * (scripts/bundle.ts makes both, from its THREADS list).
 */
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../package-root.js';

/** The thread `name`'s file: `dist/bin/NAME.cjs` beside a bundle, else `dist/src/MODULE` (`module` as in THREADS). */
export function threadFile(name: string, module: string): URL {
  if (typeof __filename === 'string' && __filename.endsWith('.cjs')) return pathToFileURL(join(dirname(__filename), `${name}.cjs`));
  return pathToFileURL(join(packageRoot(), 'dist', 'src', module));
}
