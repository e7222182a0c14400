/**
 * Layers point one way (style.md, "Types and constants flow down"): no
 * import cycle among src's modules, and nothing outside src/cli imports from
 * src/cli (programs and outputs take their io type and exit codes from
 * src/program-io.ts). Read from the sources, type-only imports included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { PROJECT_ROOT } from './helpers/conformance.js';

const SRC = join(PROJECT_ROOT, 'src');
const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

/** Every .ts file under src, with the src files it imports (relative specifiers only). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts')) {
        const deps: string[] = [];
        for (const m of readFileSync(path, 'utf8').matchAll(IMPORT_RE)) {
          const spec = (m[1] ?? m[2]) as string;
          deps.push(relative(SRC, normalize(join(dirname(path), spec.replace(/\.js$/, '.ts')))));
        }
        graph.set(relative(SRC, path), deps);
      }
    }
  };
  walk(SRC);
  return graph;
}

/** The cycles found by a depth-first walk, each as "a -> b -> a". */
function cycles(graph: Map<string, string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (!graph.has(dep)) continue;
      if (state.get(dep) === 'open') found.push([...stack.slice(stack.indexOf(dep)), dep].join(' -> '));
      else if (state.get(dep) === undefined) visit(dep);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (state.get(file) === undefined) visit(file);
  return found;
}

test('the import graph is read: it knows the engine and the command line', () => {
  const graph = importGraph();
  assert.ok(graph.get('engine/crawl.ts')?.includes('engine/page-path.ts'), 'crawl.ts imports the page path');
  assert.ok(graph.get('cli/crawler-bin.ts')?.includes('cli/run-cli.ts'));
  assert.deepEqual(cycles(new Map([['a.ts', ['b.ts']], ['b.ts', ['a.ts']]])), ['a.ts -> b.ts -> a.ts'], 'a cycle is found');
});

test('no import cycle in src', () => {
  assert.deepEqual(cycles(importGraph()), []);
});

test('nothing outside src/cli imports from src/cli', () => {
  const upward: string[] = [];
  for (const [file, deps] of importGraph()) {
    if (file.startsWith('cli/')) continue;
    for (const dep of deps) if (dep.startsWith('cli/')) upward.push(`${file} -> ${dep}`);
  }
  assert.deepEqual(upward, []);
});
