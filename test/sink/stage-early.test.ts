/**
 * TsePageDirectory.stageEarly: a page answered ahead of its turn is written
 * at once under a temporary name (on the page files' thread when it runs),
 * and in its turn published by a rename under the next ID, or discarded.
 * Its body reads back byte for byte, from the thread's ring before the
 * thread has written it and from the file after; IDs stay in order; a
 * discarded page and the thread's work leave no temporary file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { THREAD_WINDOW, TsePageDirectory, type TsePage } from '../../src/sink/tse-pagedir.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('stage-early-');

function pageOf(i: number): TsePage {
  return { url: `http://127.0.0.1/p${i}.html`, depth: i % 3, body: Buffer.from(`<html>page ${i} ${'\u00e9'.repeat(i * 13)}</html>\n`) };
}

const kept = (i: number) => ({ url: parseHttpUrl(pageOf(i).url), depth: pageOf(i).depth, body: pageOf(i).body });
const fileOf = (i: number): string => `${pageOf(i).url}\n${pageOf(i).depth}\n${pageOf(i).body.toString('utf8')}`;
const temporary = (dir: string): string[] => readdirSync(dir).filter((n) => n.startsWith('.tmp-'));

for (const threaded of [false, true]) {
  test(`${threaded ? 'on the page files\' thread' : 'on the crawl\'s thread'}: staged early, read back, published in order by a rename, or discarded`, async () => {
    const dir = temp();
    const pages = new TsePageDirectory(dir, threaded ? { threadWhenOverUs: 0 } : {});
    let next = 1;
    if (threaded) {
      // The thread starts after the first window of pages.
      for (; next <= THREAD_WINDOW; next++) assert.equal(await pages.save(pageOf(next)), next);
      assert.equal(await pages.threaded(), true);
    }
    const first = next;
    const staged = [0, 1, 2, 3].map((k) => pages.stageEarly(kept(first + k)));
    // Read back before the thread can have written them (its batch waits), and again later.
    for (const [k, s] of staged.entries()) assert.ok(s.body().equals(pageOf(first + k).body), `body ${k} read back`);
    assert.equal(staged[1]!.key, pageOf(first + 1).url);
    assert.equal(staged[1]!.depth, pageOf(first + 1).depth);
    staged[2]!.discard();
    await staged[0]!.publish(first);
    await staged[1]!.publish(first + 1);
    assert.throws(() => staged[3]!.publish(first + 3), /next ID is/, 'an ID out of order is refused');
    await staged[3]!.publish(first + 2);
    assert.equal(pages.peekId, first + 3);
    await pages.written(first + 2);
    assert.equal(pages.isWritten(first + 2), true);
    await pages.finish();
    for (let i = 1; i < first; i++) assert.equal(readFileSync(join(dir, String(i)), 'utf8'), fileOf(i));
    assert.equal(readFileSync(join(dir, String(first)), 'utf8'), fileOf(first));
    assert.equal(readFileSync(join(dir, String(first + 1)), 'utf8'), fileOf(first + 1));
    assert.equal(readFileSync(join(dir, String(first + 2)), 'utf8'), fileOf(first + 3), 'the page staged fourth took the third ID');
    assert.deepEqual(temporary(dir), [], 'the discarded page and the renamed ones leave no temporary file');
  });
}

test('a page staged early and read back after the thread wrote it comes from its file', async () => {
  const dir = temp();
  const pages = new TsePageDirectory(dir, { threadWhenOverUs: 0 });
  for (let i = 1; i <= THREAD_WINDOW; i++) await pages.save(pageOf(i));
  assert.equal(await pages.threaded(), true);
  const s = pages.stageEarly(kept(99));
  await pages.written(THREAD_WINDOW); // nothing new: wait for the batch with a later save instead
  await pages.save(pageOf(100));
  await pages.written(THREAD_WINDOW + 1);
  assert.equal(temporary(dir).length, 1, 'its temporary file is written');
  assert.ok(s.body().equals(pageOf(99).body));
  s.discard();
  await pages.finish();
  assert.deepEqual(temporary(dir), []);
});
