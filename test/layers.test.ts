/**
 * Layers point one way (style.md, "Types and constants flow down"): no
 * import cycle among src's modules, nothing outside src/cli imports from
 * src/cli (programs and outputs take their io type and exit codes from
 * src/program-io.ts), and every import between src's folders points down
 * their order (RANK). Read from the sources, type-only imports included.
 *
 * The order, from the bottom; a folder imports only from folders of a
 * lower rank, and folders of one rank know nothing of each other:
 *   0  src's root files: errors.ts and net-errors.ts (our codes, and the
 *      system's network errors in them), program-io.ts, package-*.ts.
 *   1  thread/ (the send ring), url/ (RFC 3986, our URLs): leaves.
 *   2  sink/: the files a crawl writes and how they are named (atomic
 *      files, the page directory, the state file, the archive's rotated
 *      series, the spill of answers held ahead). The stores keep their
 *      state in it and read an earlier crawl's page files from it.
 *   3  frontier/: the stores (state, politeness, the earlier crawl read for
 *      a refresh; the shape of EarlierPages). http/: the network. The
 *      stores and the network know nothing of each other (style.md 6).
 *   4  robots/, extract/, sitemap/: what is made of a fetched body.
 *   5  engine/: the page path and the schedulers, over all of the above.
 *   6  archive/, output/: consumers of the engine's events.
 *   7  report/: a record of the events, in output's words.
 *   8  programs/: each program's policy and run.
 *   9  cli/: parse, build, run, exit code.
 * index.ts, the public API, may import anything.
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

/** src's folders by layer, from the bottom ('' is src's root files); the order is the doc comment's. */
const RANK: ReadonlyMap<string, number> = new Map([
  ['', 0],
  ['thread', 1],
  ['url', 1],
  ['sink', 2],
  ['frontier', 3],
  ['http', 3],
  ['robots', 4],
  ['extract', 4],
  ['sitemap', 4],
  ['engine', 5],
  ['archive', 6],
  ['output', 6],
  ['report', 7],
  ['programs', 8],
  ['cli', 9],
]);

/** The public API: it may import from every layer. */
const PUBLIC_API = 'index.ts';

/** The folder a file of src is in ('' for a root file). */
function folderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

/**
 * Every import between two folders that does not point down `rank`, as
 * "file -> dep (folder/ at rank -> folder/ at rank)": up, sideways (one
 * rank), or from or to a folder the table does not rank.
 */
function upwardImports(graph: Map<string, string[]>, rank: ReadonlyMap<string, number>): string[] {
  const name = (folder: string): string => `${folder === '' ? 'src' : folder}/ ${rank.has(folder) ? `at ${rank.get(folder)}` : 'has no rank'}`;
  const found: string[] = [];
  for (const [file, deps] of graph) {
    if (file === PUBLIC_API) continue;
    const from = folderOf(file);
    for (const dep of deps) {
      const to = folderOf(dep);
      if (to === from) continue;
      const up = rank.get(from) ?? -1;
      const down = rank.get(to) ?? Infinity;
      if (down >= up) found.push(`${file} -> ${dep} (${name(from)} -> ${name(to)})`);
    }
  }
  return found;
}

test('the import graph is read: it knows the engine and the command line', () => {
  const graph = importGraph();
  assert.ok(graph.get('engine/crawl.ts')?.includes('engine/page-path.ts'), 'crawl.ts imports the page path');
  assert.ok(graph.get('engine/crawl.ts')?.includes('frontier/earlier-pages.ts'), 'a type-only import counts');
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

test('an import that does not point down the ranks is found, and named with its two folders', () => {
  const rank = new Map([['', 0], ['low', 1], ['mid', 2], ['side', 2], ['top', 3]]);
  const graph = new Map([
    ['errors.ts', []],
    ['low/a.ts', ['errors.ts', 'low/b.ts']],
    ['mid/c.ts', ['low/a.ts', 'top/e.ts']],
    ['side/d.ts', ['mid/c.ts', 'errors.ts']],
    ['top/e.ts', ['mid/c.ts', 'side/d.ts', 'odd/f.ts']],
    ['odd/f.ts', ['low/a.ts']],
    ['index.ts', ['top/e.ts', 'odd/f.ts']],
    ['low/b.ts', ['errors.ts', 'mid/c.ts']],
  ]);
  assert.deepEqual(upwardImports(graph, rank), [
    'mid/c.ts -> top/e.ts (mid/ at 2 -> top/ at 3)',
    'side/d.ts -> mid/c.ts (side/ at 2 -> mid/ at 2)',
    'top/e.ts -> odd/f.ts (top/ at 3 -> odd/ has no rank)',
    'odd/f.ts -> low/a.ts (odd/ has no rank -> low/ at 1)',
    'low/b.ts -> mid/c.ts (low/ at 1 -> mid/ at 2)',
  ]);
  assert.deepEqual(upwardImports(new Map([['low/a.ts', ['errors.ts']], ['top/e.ts', ['side/d.ts', 'low/a.ts']]]), rank), [], 'imports that point down pass');
});

test("src's folders all have a rank, and every import between them points down", () => {
  const graph = importGraph();
  const unranked = [...new Set([...graph.keys()].filter((f) => f !== PUBLIC_API).map(folderOf))].filter((f) => !RANK.has(f));
  assert.deepEqual(unranked, [], `folders of src without a place in RANK: ${unranked.join(', ')}`);
  const upward = upwardImports(graph, RANK);
  assert.deepEqual(upward, [], `imports that do not point down the layers (RANK):\n  ${upward.join('\n  ')}`);
});
