/**
 * ./crawler against the CS50 TSE "letters" playground
 * (test/fixtures/conformance/cs50-letters/), served on loopback: at every
 * maxDepth 0 to 10 the pages saved must be expected.json's (URL, depth) set,
 * page_count of them, under the IDs of its breadth-first order; and the log
 * must be the reference crawler's, line for line as a multiset (its stack
 * gives another order, not other lines), in the same column layout.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { conformancePath } from '../helpers/conformance.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { cs50Line, parseLog } from '../helpers/cs50-log.js';
import { pageList, readPages } from '../helpers/page-files.js';
import { startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('crawler-e2e-');

interface Expected {
  seed: string;
  by_maxDepth: Record<string, { page_count: number; files_bfs_order: Array<{ id: number; url: string; depth: number }> }>;
}

const FOLDER = 'cs50-letters';
const root = conformancePath(FOLDER);
const REFERENCE_HOST = 'http://cs50tse.cs.dartmouth.edu';

let site: SiteServer;
let expected: Expected;
/** Expected URL with the reference host replaced by the loopback server's origin. */
const local = (url: string): string => url.replace(REFERENCE_HOST, site.origin);

before(async () => {
  expected = JSON.parse(readFileSync(join(root, 'expected.json'), 'utf8')) as Expected;
  const routes = new Map<string, Route>();
  const dir = join(root, 'site', 'tse', 'letters');
  for (const name of readdirSync(dir)) routes.set(`/tse/letters/${name}`, { body: readFileSync(join(dir, name)) });
  site = await startSite(routes);
});

after(async () => {
  await site?.close();
});

describe('CS50 letters site, every maxDepth 0 to 10', { concurrency: true }, () => {
  for (let maxDepth = 0; maxDepth <= 10; maxDepth++) {
    test(`maxDepth ${maxDepth}: expected.json's pages, page_count, IDs in breadth-first order, bodies as served`, async () => {
      const want = expected.by_maxDepth[String(maxDepth)];
      assert.ok(want !== undefined, `expected.json has maxDepth ${maxDepth}`);
      const dir = tempDir();
      const r = await crawl(['--delay', '0', local(expected.seed), dir, String(maxDepth)]);
      assert.equal(r.code, 0, r.stderr);
      const pages = pageList(dir);
      assert.equal(pages.length, want.page_count, 'page_count');
      assert.deepEqual(pages, want.files_bfs_order.map((f) => `${f.id} ${local(f.url)} ${f.depth}`));
      assert.deepEqual(
        [...pages].map((l) => l.replace(/^\d+ /, '')).sort(),
        want.files_bfs_order.map((f) => `${local(f.url)} ${f.depth}`).sort(),
        '(URL, depth) set',
      );
      const body = (p: string): Buffer => readFileSync(join(root, 'site', new URL(p).pathname));
      for (const p of readPages(dir)) assert.ok(p.body.equals(body(p.url)), `page ${p.id} is the file as served`);
      const log = parseLog(r.stdout);
      assert.equal(log.filter((l) => l.word === 'Fetched').length, want.page_count, 'one Fetched line per page');
      for (const l of log) if (l.word === 'Scanning') assert.ok(l.depth < maxDepth, `no page at maxDepth is scanned: ${l.line}`);
    });
  }
});

describe('CS50 letters site, the log against the reference log', () => {
  let ours: string[] = [];
  let reference: string[] = [];

  before(async () => {
    const dir = tempDir();
    const r = await crawl(['--delay', '0', local(expected.seed), dir, '10']);
    assert.equal(r.code, 0, r.stderr);
    ours = r.stdout.trimEnd().split('\n');
    reference = readFileSync(join(root, 'reference', 'letters-10.official.log'), 'utf8')
      .split('\n')
      .filter((l) => /^[ 0-9][0-9] /.test(l)) // drop the command line and blank lines
      .map((l) => l.trimEnd().replaceAll(REFERENCE_HOST, site.origin));
  });

  test('the reference log parses as CS50 lines with our own formatter (the test helper matches the reference)', () => {
    assert.ok(reference.length > 50, `reference log has ${reference.length} lines`);
    const parsed = parseLog(reference.join('\n') + '\n');
    for (const l of parsed) assert.equal(l.line, cs50Line(l.depth, l.word, l.url));
  });

  test('same lines as the reference, as a multiset (same words, depths, indents, URLs); only the order differs', () => {
    assert.deepEqual([...ours].sort(), [...reference].sort());
  });

  test('the same column layout for each (depth, word) as the reference', () => {
    const layout = (lines: string[]): Map<string, string> => {
      const m = new Map<string, string>();
      for (const l of lines) {
        const prefix = l.slice(0, l.indexOf(': ') + 2);
        m.set(prefix.replace(/\s+/g, ' ').trim(), prefix);
      }
      return m;
    };
    const theirs = layout(reference);
    const mine = layout(ours);
    for (const [key, prefix] of theirs) assert.equal(JSON.stringify(mine.get(key)), JSON.stringify(prefix), `layout of "${key}"`);
  });

  test('breadth first: our depths never decrease along the Fetched lines (the reference, with its stack, goes back up)', () => {
    const depths = parseLog(ours.join('\n') + '\n').filter((l) => l.word === 'Fetched').map((l) => l.depth);
    assert.deepEqual(depths, [...depths].sort((a, b) => a - b));
    const refDepths = parseLog(reference.join('\n') + '\n').filter((l) => l.word === 'Fetched').map((l) => l.depth);
    assert.notDeepEqual(refDepths, [...refDepths].sort((a, b) => a - b), 'the reference is not breadth first');
  });
});
