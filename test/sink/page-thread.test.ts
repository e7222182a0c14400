/**
 * The page files' thread (src/sink/page-thread.ts) behind TsePageDirectory:
 * it starts only when the median write of most recent windows of pages took
 * longer than the bound (`threadWhenOverUs`); then the files are written beside the crawl, and `isWritten`/`written` say when a page's
 * file is in place (a crawl state commits nothing before); a write the
 * thread cannot make stops it at that page: the next save and `finish`
 * reject with ERR_WRITE naming the file, the pages before it are in place
 * and none after it is written.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SLOW_WINDOWS, THREAD_WINDOW, TsePageDirectory, type TsePage } from '../../src/sink/tse-pagedir.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('page-thread-');

function pageOf(i: number): TsePage {
  return { url: `http://127.0.0.1/p${i}.html`, depth: i % 4, body: Buffer.from(`<html>page ${i} ${'é'.repeat(i * 37)}</html>\n`) };
}

function expected(i: number): string {
  const p = pageOf(i);
  return `${p.url}\n${p.depth}\n${p.body.toString('utf8')}`;
}

/** Saves pages first..last; returns the ID each got. */
async function saveAll(pages: TsePageDirectory, first: number, last: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = first; i <= last; i++) ids.push(await pages.save(pageOf(i)));
  return ids;
}

describe('TsePageDirectory: the page files thread', () => {
  test('without threadWhenOverUs no thread starts, and each file is in place when save resolves', async () => {
    const dir = temp();
    const pages = new TsePageDirectory(dir);
    for (let i = 1; i <= 120; i++) {
      assert.equal(await pages.save(pageOf(i)), i);
      assert.equal(readFileSync(join(dir, String(i)), 'utf8'), expected(i), `page ${i} written at once`);
      assert.ok(pages.isWritten(i));
    }
    assert.equal(await pages.threaded(), false);
    await pages.finish();
  });

  test('auto: one slow window now and then (a GC pause, a preemption) never starts the thread; most of the last 5 do', async () => {
    // A clock under the test's control: each page write takes 1 ms in a slow window, 10 us in a fast one.
    const windows: boolean[] = [];
    let calls = 0;
    let t = 0;
    const now = (): number => {
      const page = Math.floor(calls / 2);
      if (calls++ % 2 === 1) t += windows[Math.floor(page / THREAD_WINDOW)] === true ? 1 : 0.01;
      return t;
    };
    const pages = new TsePageDirectory(temp(), { threadWhenOverUs: 150, now });
    let saved = 0;
    const window = async (slow: boolean): Promise<boolean> => {
      windows.push(slow);
      await saveAll(pages, saved + 1, saved + THREAD_WINDOW);
      saved += THREAD_WINDOW;
      return pages.threaded();
    };
    // One slow window in every three: never more than 2 of the last 5 slow.
    for (const slow of [true, false, false, true, false, false, true, false, false, false]) assert.equal(await window(slow), false, `window ${windows.length}`);
    // Two slow in a row, then the third: the majority of the last 5.
    assert.equal(await window(true), false);
    assert.equal(await window(true), false);
    assert.equal(SLOW_WINDOWS, 3);
    assert.equal(await window(true), true, 'the thread starts at the third slow window of the last 5');
    await pages.finish();
  });

  test('auto: windows where a few writes stall for milliseconds (the mean over the bound, the median under) never start the thread', async () => {
    // Each write takes `cost(page)` ms on a clock under the test's control.
    let cost = (page: number): number => (page % THREAD_WINDOW < 10 ? 5 : 0.01);
    let calls = 0;
    let t = 0;
    const now = (): number => {
      const page = Math.floor(calls / 2);
      if (calls++ % 2 === 1) t += cost(page);
      return t;
    };
    const pages = new TsePageDirectory(temp(), { threadWhenOverUs: 150, now });
    // 10 writes of 5 ms and 40 of 10 us: a mean of 1 ms a write, a median of 10 us.
    await saveAll(pages, 1, 6 * THREAD_WINDOW);
    assert.equal(await pages.threaded(), false, 'six windows, each with a fifth of its writes stalled');
    // A slow disk: every write 200 us. The third such window starts it.
    cost = () => 0.2;
    await saveAll(pages, 6 * THREAD_WINDOW + 1, 8 * THREAD_WINDOW);
    assert.equal(await pages.threaded(), false);
    await saveAll(pages, 8 * THREAD_WINDOW + 1, 9 * THREAD_WINDOW);
    assert.equal(await pages.threaded(), true);
    await pages.finish();
  });

  test('writes faster than the bound: no thread; slower: the thread starts at the end of the first window', async () => {
    const fast = new TsePageDirectory(temp(), { threadWhenOverUs: 1_000_000 });
    await saveAll(fast, 1, 3 * THREAD_WINDOW);
    assert.equal(await fast.threaded(), false, 'no page write takes a second');
    await fast.finish();
    const slow = new TsePageDirectory(temp(), { threadWhenOverUs: 0 });
    await saveAll(slow, 1, THREAD_WINDOW - 1);
    assert.equal(await slow.threaded(), false, 'not before the window is full');
    await saveAll(slow, THREAD_WINDOW, THREAD_WINDOW);
    assert.equal(await slow.threaded(), true, 'every write takes more than 0 us');
    await slow.finish();
  });

  test('with the thread, a file is not in place until written() says so; then byte-exact', async () => {
    const dir = temp();
    const pages = new TsePageDirectory(dir, { threadWhenOverUs: 0 });
    await saveAll(pages, 1, THREAD_WINDOW);
    assert.equal(await pages.threaded(), true);
    // Pages now wait in a batch (sent at 16 pages or after 20 ms): not yet in place, and not committable.
    const id = await pages.save(pageOf(THREAD_WINDOW + 1));
    assert.equal(id, THREAD_WINDOW + 1);
    assert.equal(pages.isWritten(id - 1), true, 'pages written by the crawl itself are in place');
    assert.equal(pages.isWritten(id), false, 'the page is queued, not written');
    assert.equal(existsSync(join(dir, String(id))), false);
    await pages.written(id);
    assert.equal(pages.isWritten(id), true);
    assert.equal(readFileSync(join(dir, String(id)), 'utf8'), expected(id));
    await saveAll(pages, id + 1, 300);
    await pages.finish();
    for (let i = 1; i <= 300; i++) assert.equal(readFileSync(join(dir, String(i)), 'utf8'), expected(i), `page ${i}`);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
    assert.equal(pages.failed, false);
  });

  test('a resumed crawl numbers on from firstId', async () => {
    const dir = temp();
    const pages = new TsePageDirectory(dir, { firstId: 101, threadWhenOverUs: 0 });
    await saveAll(pages, 1, THREAD_WINDOW);
    assert.equal(await pages.threaded(), true);
    assert.deepEqual(await saveAll(pages, THREAD_WINDOW + 1, 120), Array.from({ length: 120 - THREAD_WINDOW }, (_, k) => 101 + THREAD_WINDOW + k));
    await pages.finish();
    for (let i = 1; i <= 120; i++) assert.equal(readFileSync(join(dir, String(100 + i)), 'utf8'), expected(i));
  });

  test('a file the thread cannot write: the crawl stops at that page, nothing after it is written, and it is named', async () => {
    const dir = temp();
    const bad = THREAD_WINDOW + 30;
    // A directory where that page goes: rename(2) of the page file over it fails (EISDIR).
    mkdirSync(join(dir, String(bad)));
    const pages = new TsePageDirectory(dir, { threadWhenOverUs: 0 });
    await saveAll(pages, 1, THREAD_WINDOW);
    assert.equal(await pages.threaded(), true);
    let refused: unknown;
    let saved = THREAD_WINDOW;
    try {
      for (let i = THREAD_WINDOW + 1; i <= 300; i++) {
        await pages.save(pageOf(i));
        saved = i;
        if (i % 10 === 0) await pages.written(i); // as a crawl's commit does
      }
    } catch (err) {
      refused = err;
    }
    const named = new RegExp(`^cannot write .*/${bad}: EISDIR: illegal operation on a directory$`);
    assert.ok(refused !== undefined, 'a save after the failure rejects');
    assert.equal((refused as { code?: string }).code, 'ERR_WRITE');
    assert.match((refused as Error).message, named);
    assert.ok(saved >= bad && saved < 300, `the crawl stopped soon after page ${bad} (last saved ${saved})`);
    assert.equal(pages.failed, true);
    assert.equal(pages.isWritten(bad - 1), true, 'pages before it are in place');
    assert.equal(pages.isWritten(bad), false, 'that page is not');
    assert.equal(pages.isWritten(saved), false);
    const sameFailure = (err: unknown): boolean => (err as { code?: string }).code === 'ERR_WRITE' && named.test((err as Error).message);
    await assert.rejects(pages.written(bad), sameFailure);
    await assert.rejects(pages.finish(), sameFailure);
    for (let i = 1; i < bad; i++) assert.equal(readFileSync(join(dir, String(i)), 'utf8'), expected(i), `page ${i}`);
    for (let i = bad + 1; i <= saved; i++) assert.equal(existsSync(join(dir, String(i))), false, `page ${i} not written after the failure`);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
  });
});
