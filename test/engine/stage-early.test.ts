/**
 * Pages staged early (PageSink.stageEarly, held-answers.ts): in a broad
 * crawl most answers wait for the hosts before them, and their page files
 * are written meanwhile under temporary names; in their turn each is
 * published by a rename under its ID. The directory ends exactly as a crawl
 * at concurrency 1 leaves it; a page at the depth limit is never read back;
 * what a stop leaves behind is removed; a page that cannot be staged early
 * is saved in its turn as any other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError } from '../../src/errors.js';
import type { CrawlEvent } from '../../src/engine/events.js';
import type { EarlyStagedPage, PageToKeep } from '../../src/sink/page-sink.js';
import { TsePageDirectory } from '../../src/sink/tse-pagedir.js';
import { runCrawl } from '../helpers/crawl-run.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('pc-stage-early-');
const RUN = 12;
const OTHERS = 5;

/**
 * Host A: a seed linking RUN pages of A, then a page on each of OTHERS
 * hosts; each other page links one page of its own host (`/o2.html`,
 * depth 2). A's run waits its delay page after page, so the others'
 * answers arrive ahead of their turn.
 */
async function site(t: import('node:test').TestContext): Promise<{ a: SiteServer; others: SiteServer[] }> {
  const others: SiteServer[] = [];
  for (let i = 0; i < OTHERS; i++) {
    const s = await startSite({
      '/robots.txt': { status: 404 },
      '/o.html': { body: page(`other ${i}`, ['/o2.html'], 'x'.repeat(3000 + i)) },
      '/o2.html': { body: page(`deeper ${i}`) },
    });
    t.after(() => s.close());
    others.push(s);
  }
  const routes: Record<string, Route> = { '/robots.txt': { status: 404 } };
  const run = Array.from({ length: RUN }, (_, i) => `/a${i}.html`);
  routes['/'] = { body: page('seed', [...run, ...others.map((o) => `${o.origin}/o.html`)]) };
  for (const p of run) routes[p] = { body: page(p, [], 'y'.repeat(2000)) };
  const a = await startSite(routes);
  t.after(() => a.close());
  return { a, others };
}

/** A page directory that counts what it stages early, how often a staged body is read back, and which it published. */
class CountingDirectory extends TsePageDirectory {
  early = 0;
  readBack = 0;
  failEarly = false;
  override stageEarly(kept: PageToKeep): EarlyStagedPage {
    if (this.failEarly) throw new CrawlerError('ERR_WRITE', 'no space left on the test device');
    this.early++;
    const staged = super.stageEarly(kept);
    return {
      key: staged.key,
      depth: staged.depth,
      publish: (id) => staged.publish(id),
      discard: () => staged.discard(),
      body: () => (this.readBack++, staged.body()),
    };
  }
}

/** The page files of `dir`, by name, and any other name in it. */
function pageFiles(dir: string): { files: Map<string, string>; others: string[] } {
  const files = new Map<string, string>();
  const others: string[] = [];
  for (const name of readdirSync(dir)) {
    if (/^[1-9][0-9]*$/.test(name)) files.set(name, readFileSync(join(dir, name), 'latin1'));
    else others.push(name);
  }
  return { files, others };
}

async function crawl(seed: string, o: { concurrency: number; maxDepth: number; sink: TsePageDirectory }): Promise<CrawlEvent[]> {
  const events: CrawlEvent[] = [];
  await runCrawl({ seed, inScope: () => true, delayMs: 40, concurrency: o.concurrency, maxDepth: o.maxDepth, sink: o.sink, onEvent: (e) => void events.push(e) });
  await o.sink.finish();
  return events;
}

const saved = (events: CrawlEvent[]): string[] => events.flatMap((e) => (e.type === 'saved' ? [`${e.id} ${e.url.key} ${e.depth}`] : []));

test('pages answered ahead are written while they wait and renamed in their turn: the directory and the saved events are those of concurrency 1', async (t) => {
  const { a } = await site(t);
  const one = dirs.temp();
  const sequential = await crawl(`${a.origin}/`, { concurrency: 1, maxDepth: 2, sink: new TsePageDirectory(one) });
  const four = dirs.temp();
  const sink = new CountingDirectory(four);
  const broad = await crawl(`${a.origin}/`, { concurrency: 4, maxDepth: 2, sink });
  assert.ok(sink.early >= OTHERS, `the other hosts' pages waited for A's run and were staged early (${sink.early})`);
  assert.deepEqual(saved(broad), saved(sequential));
  assert.equal(saved(broad).length, 1 + RUN + 2 * OTHERS);
  const want = pageFiles(one);
  const got = pageFiles(four);
  assert.deepEqual([...got.files.keys()].sort(), [...want.files.keys()].sort());
  for (const [name, text] of want.files) assert.equal(got.files.get(name), text, `page file ${name}`);
  assert.deepEqual(got.others.filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
});

test('a page staged early at the depth limit is published without its body being read back; one above it is read back for its links', async (t) => {
  const { a } = await site(t);
  const limit = new CountingDirectory(dirs.temp());
  await crawl(`${a.origin}/`, { concurrency: 4, maxDepth: 1, sink: limit });
  assert.ok(limit.early > 0);
  assert.equal(limit.readBack, 0, 'depth 1 is the limit: no page is scanned, no body read back');
  const deeper = new CountingDirectory(dirs.temp());
  const events = await crawl(`${a.origin}/`, { concurrency: 4, maxDepth: 2, sink: deeper });
  assert.ok(deeper.readBack > 0, 'the other hosts\' pages (depth 1 of 2) are read back and scanned');
  assert.equal(saved(events).filter((l) => l.includes('/o2.html')).length, OTHERS, 'their links were followed');
});

test('a crawl stopped with pages staged early (a signal) leaves no temporary file, and the pages saved are in order', async (t) => {
  const { a } = await site(t);
  const dir = dirs.temp();
  const sink = new CountingDirectory(dir);
  const stop = new AbortController();
  const events: CrawlEvent[] = [];
  await runCrawl({
    seed: `${a.origin}/`,
    inScope: () => true,
    delayMs: 40,
    concurrency: 4,
    maxDepth: 2,
    sink,
    signal: stop.signal,
    // Stopped in A's run, while the other hosts' pages wait staged.
    onEvent: (e) => {
      events.push(e);
      if (e.type === 'saved' && e.id === 4) stop.abort();
    },
  });
  await sink.finish();
  assert.ok(sink.early > 0, 'answers were staged early before the stop');
  assert.ok(saved(events).length < 1 + RUN + 2 * OTHERS, 'stopped before the end');
  const ids = saved(events).map((l) => Number(l.split(' ')[0]));
  assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1));
  const { files, others } = pageFiles(dir);
  assert.equal(files.size, ids.length);
  assert.deepEqual(others.filter((n) => n.startsWith('.tmp-')), [], 'the pages staged early and never published are removed');
});

test('a page that cannot be staged early is saved in its turn as any other', async (t) => {
  const { a } = await site(t);
  const one = dirs.temp();
  const sequential = await crawl(`${a.origin}/`, { concurrency: 1, maxDepth: 2, sink: new TsePageDirectory(one) });
  const dir = dirs.temp();
  const sink = new CountingDirectory(dir);
  sink.failEarly = true;
  const events = await crawl(`${a.origin}/`, { concurrency: 4, maxDepth: 2, sink });
  assert.equal(sink.early, 0);
  assert.deepEqual(saved(events), saved(sequential));
  assert.deepEqual(pageFiles(dir).files, pageFiles(one).files);
});
