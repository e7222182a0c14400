/**
 * Crash safety and resume (spec decision "Nothing is lost"): a crawl killed
 * with SIGKILL at any moment, then run again with --resume, ends with
 * exactly the pages an uninterrupted crawl saves: the same (URL, depth) under
 * the same IDs 1..N, no gap, no duplicate, no temporary file. SIGINT and
 * SIGTERM stop after the page in flight with exit 130 and resume the same way.
 */
// run-tests: long (27 s: crawls killed and resumed)
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, watch } from 'node:fs';
import { numberedFiles, readPages } from '../helpers/page-files.js';
import { startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { runProgram, startProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const PAGES = 300;
const BIG_PAGE = 150; // one page of 8 MiB, so that a kill can land inside its write

/** A tree-plus-cross-links site of PAGES pages, answering after a small delay. */
function siteRoutes(): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (let i = 0; i < PAGES; i++) {
    const links = [1, 2, 3].map((k) => 3 * i + k).filter((j) => j < PAGES).map((j) => `/p${j}.html`);
    links.push(`/p${(i * 7) % PAGES}.html`, '/p0.html#top');
    const body = `<html><body><h1>page ${i}</h1>\n${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}\n${i === BIG_PAGE ? 'x'.repeat(8 * 1024 * 1024) : ''}</body></html>\n`;
    routes.set(`/p${i}.html`, {
      handle: (_req, res) => setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), 3),
    });
  }
  routes.set('/robots.txt', { status: 404 });
  return routes;
}

/** `URL DEPTH LENGTH` of each page file, by ID. */
function pageFiles(dir: string): Map<number, string> {
  return new Map(readPages(dir).map((p) => [p.id, `${p.url} ${p.depth} ${p.raw.length}`]));
}

function assertSameCrawl(dir: string, reference: Map<number, string>): void {
  const got = pageFiles(dir);
  assert.deepEqual(numberedFiles(dir), [...got.keys()].map(String), 'every numbered file is a page file');
  assert.equal(got.size, reference.size, 'page count');
  for (let id = 1; id <= reference.size; id++) assert.equal(got.get(id), reference.get(id), `page ${id}`);
  const leftovers = readdirSync(dir).filter((n) => n.startsWith('.tmp-'));
  assert.deepEqual(leftovers, [], 'no temporary file left');
}

const { temp: freshDir } = useTempDirs('resume-');

/** Starts a crawl and kills it with `signal` once `when` says so (fed stdout text and the directory). */
/** Runs a crawl and stops it with `signal` when `when` says (or at its first page file); resolves with its exit code, and its stderr in `stderr`. */
async function crawlAndKill(args: string[], dir: string, signal: NodeJS.Signals, when: (stdout: string) => boolean, watchTemp = false, stderr?: string[]): Promise<number | null> {
  const { child, done } = startProgram('crawler', args, { timeoutMs: 60_000 });
  let out = '';
  let killed = false;
  const kill = (): void => {
    if (killed) return;
    killed = true;
    child.kill(signal);
  };
  const watcher = watchTemp
    ? watch(dir, (_ev, name) => {
        // A page's temporary file (`.tmp-PID-N-ID`), not the marker's, which is written before the crawl state.
        if (name !== null && /^\.tmp-[0-9]+-[0-9]+-[0-9]+$/.test(String(name))) kill();
      })
    : undefined;
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (!watchTemp && when(out)) kill();
  });
  try {
    const r = await done;
    stderr?.push(r.stderr);
    return r.code;
  } finally {
    watcher?.close();
  }
}

const fetchedCount = (s: string): number => s.split('\n').filter((l) => l.includes('  Fetched: ')).length;

describe('crash safety and --resume', () => {
  let site: SiteServer;
  let seed: string;
  let reference: Map<number, string>;

  before(async () => {
    site = await startSite(siteRoutes());
    seed = `${site.origin}/p0.html`;
    const dir = freshDir();
    const r = await runProgram('crawler', ['--delay', '0', '--quiet', seed, dir, '6'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    reference = pageFiles(dir);
    assert.equal(reference.size, PAGES, 'the uninterrupted crawl saves every page');
  });
  after(async () => {
    await site.close();
  });

  // With --write-thread on, the files past the 50th page are written on their own thread, and the state
  // commits a page only once its file is in place.
  const kills: Array<[number, string[]]> = [[1, []], [40, []], [149, []], [220, []], [149, ['--write-thread', 'on']], [220, ['--write-thread', 'on']]];
  for (const [k, extra] of kills) {
    test(`SIGKILL after ${k} pages${extra.length > 0 ? ` (${extra.join(' ')})` : ''}, then --resume: the same pages under the same IDs`, async () => {
      const dir = freshDir();
      const args = ['--delay', '0', ...extra, seed, dir, '6'];
      const code = await crawlAndKill(args, dir, 'SIGKILL', (out) => fetchedCount(out) >= k);
      assert.notEqual(code, 0, 'the crawl was killed before its end');
      const resumed = await runProgram('crawler', ['--resume', '--quiet', ...args], { timeoutMs: 60_000 });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.match(resumed.stderr, /resuming/);
      assertSameCrawl(dir, reference);
    });
  }

  test('SIGKILL during a page write (temporary file present), then --resume', async () => {
    const dir = freshDir();
    const args = ['--delay', '0', '--quiet', seed, dir, '6'];
    await crawlAndKill(args, dir, 'SIGKILL', () => false, true);
    const resumed = await runProgram('crawler', ['--resume', ...args], { timeoutMs: 60_000 });
    assert.equal(resumed.code, 0, resumed.stderr);
    assertSameCrawl(dir, reference);
  });

  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    test(`${sig} stops cleanly with exit 130; --resume completes the same crawl`, async () => {
      const dir = freshDir();
      const args = ['--delay', '0', seed, dir, '6'];
      const stderr: string[] = [];
      const code = await crawlAndKill(args, dir, sig, (out) => fetchedCount(out) >= 60, false, stderr);
      assert.equal(code, 130);
      // Both notes say how to go on.
      assert.match(stderr[0] ?? '', new RegExp(`^crawler: ${sig} received, stopping after the pages in flight; the same command with --resume continues the crawl \\(again to quit now\\)$`, 'm'));
      assert.match(stderr[0] ?? '', /^crawler: interrupted after [0-9]+ pages in .*; the same command with --resume continues the crawl$/m);
      const partial = pageFiles(dir);
      assert.ok(partial.size >= 60 && partial.size < PAGES, `stopped part way (${partial.size} pages)`);
      for (const [id, v] of partial) assert.equal(v, reference.get(id), `page ${id} intact`);
      const resumed = await runProgram('crawler', ['--resume', '--quiet', ...args], { timeoutMs: 60_000 });
      assert.equal(resumed.code, 0, resumed.stderr);
      assertSameCrawl(dir, reference);
    });
  }

  test('--resume of a finished crawl changes nothing and exits 0', async () => {
    const dir = freshDir();
    const args = ['--delay', '0', '--quiet', seed, dir, '1'];
    assert.equal((await runProgram('crawler', args)).code, 0);
    const before1 = pageFiles(dir);
    const again = await runProgram('crawler', ['--resume', ...args]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(pageFiles(dir), before1);
  });

  test('--resume with another seed or maxDepth: exit 1, one clear line, nothing changed', async () => {
    const dir = freshDir();
    assert.equal((await runProgram('crawler', ['--delay', '0', '--quiet', seed, dir, '1'])).code, 0);
    const before1 = pageFiles(dir);
    const r = await runProgram('crawler', ['--resume', '--delay', '0', seed, dir, '2']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not of .* to depth 2/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.deepEqual(pageFiles(dir), before1);
  });
});
