/**
 * The page files' thread (src/sink/page-thread.ts) behind TsePageDirectory:
 * a short crawl never starts it; past `threadAfter` saved pages the files
 * are written beside the crawl, and `isWritten`/`written` say when a page's
 * file is in place (a crawl state commits nothing before); a write the
 * thread cannot make stops it at that page: the next save and `finish`
 * reject with ERR_WRITE naming the file, the pages before it are in place
 * and none after it is written.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TsePageDirectory, type TsePage } from '../../src/sink/tse-pagedir.js';
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
  test('below threadAfter no thread starts and each file is in place when save resolves', async () => {
    const dir = temp();
    const pages = new TsePageDirectory(dir, { threadAfter: 50 });
    for (let i = 1; i <= 49; i++) {
      assert.equal(await pages.save(pageOf(i)), i);
      assert.equal(readFileSync(join(dir, String(i)), 'utf8'), expected(i), `page ${i} written at once`);
      assert.ok(pages.isWritten(i));
    }
    assert.equal(await pages.threaded(), false, 'no thread asked for');
    await pages.finish();
  });

  test('past threadAfter the thread writes the files: not in place until written() says so, then byte-exact', async () => {
    const dir = temp();
    const pages = new TsePageDirectory(dir, { threadAfter: 3 });
    assert.deepEqual(await saveAll(pages, 1, 3), [1, 2, 3]);
    assert.equal(await pages.threaded(), true, 'the thread started after 3 pages');
    // Pages now wait in a batch (sent at 16 pages or after 20 ms): not yet in place, and not committable.
    const id = await pages.save(pageOf(4));
    assert.equal(id, 4);
    assert.equal(pages.isWritten(3), true, 'pages written by the crawl itself are in place');
    assert.equal(pages.isWritten(4), false, 'page 4 is queued, not written');
    assert.equal(existsSync(join(dir, '4')), false);
    await pages.written(4);
    assert.equal(pages.isWritten(4), true);
    assert.equal(readFileSync(join(dir, '4'), 'utf8'), expected(4));
    await saveAll(pages, 5, 200);
    await pages.finish();
    for (let i = 1; i <= 200; i++) assert.equal(readFileSync(join(dir, String(i)), 'utf8'), expected(i), `page ${i}`);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
    assert.equal(pages.failed, false);
  });

  test('a resumed crawl numbers on from firstId', async () => {
    const dir = temp();
    const pages = new TsePageDirectory(dir, { firstId: 101, threadAfter: 2 });
    await saveAll(pages, 1, 2);
    assert.equal(await pages.threaded(), true);
    assert.deepEqual(await saveAll(pages, 3, 40), Array.from({ length: 38 }, (_, k) => 103 + k));
    await pages.finish();
    for (let i = 1; i <= 40; i++) assert.equal(readFileSync(join(dir, String(100 + i)), 'utf8'), expected(i));
  });

  test('a file the thread cannot write: the crawl stops at that page, nothing after it is written, and it is named', async () => {
    const dir = temp();
    // A directory where page 30 goes: rename(2) of the page file over it fails (EISDIR).
    mkdirSync(join(dir, '30'));
    const pages = new TsePageDirectory(dir, { threadAfter: 5 });
    await saveAll(pages, 1, 5);
    assert.equal(await pages.threaded(), true);
    let refused: unknown;
    let saved = 5;
    try {
      for (let i = 6; i <= 200; i++) {
        await pages.save(pageOf(i));
        saved = i;
        if (i % 10 === 0) await pages.written(i); // as a crawl's commit does
      }
    } catch (err) {
      refused = err;
    }
    assert.ok(refused !== undefined, 'a save after the failure rejects');
    assert.equal((refused as { code?: string }).code, 'ERR_WRITE');
    assert.match((refused as Error).message, /^cannot write .*\/30: EISDIR$/);
    assert.ok(saved >= 30 && saved < 200, `the crawl stopped soon after page 30 (last saved ${saved})`);
    assert.equal(pages.failed, true);
    assert.equal(pages.isWritten(29), true, 'pages before it are in place');
    assert.equal(pages.isWritten(30), false, 'page 30 is not');
    assert.equal(pages.isWritten(saved), false);
    await assert.rejects(pages.written(30), /cannot write .*\/30: EISDIR/);
    await assert.rejects(pages.finish(), /cannot write .*\/30: EISDIR/);
    for (let i = 1; i <= 29; i++) assert.equal(readFileSync(join(dir, String(i)), 'utf8'), expected(i), `page ${i}`);
    for (let i = 31; i <= saved; i++) assert.equal(existsSync(join(dir, String(i))), false, `page ${i} not written after the failure`);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp-')), [], 'no temporary file left');
  });
});
