/**
 * How a private crawl takes over its pageDirectory (src/sink/pagedir-start.ts,
 * and readEarlierCrawl in src/frontier/private-sqlite.ts), in process:
 * - the numbered files a new crawl may remove are exactly those the earlier
 *   crawl's state records (1..its last ID, the earlier files it owned, the
 *   pages a crash left above its last ID naming URLs it knew); any other
 *   stops the start with one line naming it, unless --overwrite;
 * - the earlier crawl's state files are set aside until the first page is
 *   saved (keep), and put back, byte for byte, by a start that fails
 *   (undo), which in a directory that held nothing of ours removes the marker
 *   and the new state files too;
 * - the record is read from a real SQLite state, and reading it folds the
 *   write-ahead log into the file.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCrawlerError } from '../../src/errors.js';
import { readEarlierCrawl, SqliteFrontier } from '../../src/frontier/private-sqlite.js';
import type { FrontierEntry } from '../../src/frontier/private-store.js';
import { ownedPageFiles, PageDirStart, SET_ASIDE, type PageDirStartOptions } from '../../src/sink/pagedir-start.js';
import { STATE_FILE, type EarlierCrawlRecord } from '../../src/sink/state-file.js';
import { MARKER, MARKER_TEXT, TsePageDirectory } from '../../src/sink/tse-pagedir.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('pagedir-start-');

/** A record as an earlier crawl's state would give it; `closed` counts close() calls. */
function record(lastId: number, ownedThrough = 0, known: string[] = []): EarlierCrawlRecord & { closed: number } {
  const r = { lastId, ownedThrough, closed: 0, knows: (key: string) => known.includes(key), close: () => void r.closed++ };
  return r;
}

function pageFile(dir: string, id: number, url = `http://127.0.0.1/p${id}.html`): void {
  writeFileSync(join(dir, String(id)), `${url}\n1\n<p>page ${id}</p>\n`);
}

function refusalOf(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    assert.ok(isCrawlerError(err, 'ERR_PAGE_DIRECTORY'), String(err));
    assert.doesNotMatch(err.message, /\n/, 'one line');
    return err.message;
  }
  assert.fail('the start was not refused');
}

describe('ownedPageFiles: remove only what we wrote', () => {
  test('a user\'s 999 beside the 22 pages the earlier crawl recorded: refused with one line naming it; --overwrite gives it up', () => {
    const dir = temp();
    for (let id = 1; id <= 22; id++) pageFile(dir, id);
    writeFileSync(join(dir, '999'), 'my notes\n');
    const r = record(22);
    const message = refusalOf(() => ownedPageFiles(dir, () => r, false));
    assert.equal(message, `pageDirectory "${dir}" holds "999", which the earlier crawl's state does not record as written by it (it records 1..22): not ours to remove (--overwrite to replace it)`);
    assert.equal(r.closed, 1, 'the record is closed when the start is refused');
    assert.equal(ownedPageFiles(dir, () => record(22), true), 999);
    assert.equal(readFileSync(join(dir, '999'), 'utf8'), 'my notes\n', 'nothing is removed here');
  });

  test('exactly the recorded IDs are ours: 1..lastId and the earlier files it still owned', () => {
    const dir = temp();
    for (let id = 1; id <= 10; id++) pageFile(dir, id);
    assert.equal(ownedPageFiles(dir, () => record(10), false), 10);
    assert.equal(ownedPageFiles(dir, () => record(3, 10), false), 10, 'pages 4..10 of a crawl before it');
    assert.match(refusalOf(() => ownedPageFiles(dir, () => record(3, 8), false)), /holds "9" \(and 1 more numbered file\), .*\(it records 1\.\.8\).*replace them\)$/);
  });

  test('pages a crash left just above the last committed ID are ours when each names a URL the state knows; the run ends at the first that does not', () => {
    const dir = temp();
    for (let id = 1; id <= 6; id++) pageFile(dir, id);
    const known = ['http://127.0.0.1/p4.html', 'http://127.0.0.1/p5.html'];
    assert.match(refusalOf(() => ownedPageFiles(dir, () => record(3, 0, known), false)), /holds "6", .*\(it records 1\.\.5\)/);
    assert.equal(ownedPageFiles(dir, () => record(3, 0, [...known, 'http://127.0.0.1/p6.html']), false), 6);
    // The same URLs in files with a gap before them are no crash's: a crash leaves a run from lastId + 1.
    const gap = temp();
    for (const id of [1, 2, 3, 5]) pageFile(gap, id);
    assert.match(refusalOf(() => ownedPageFiles(gap, () => record(3, 0, known), false)), /holds "5"/);
  });

  test('at the end, removeStale removes the stale files up to the owned ID, not a numbered file above it', async () => {
    const dir = temp();
    for (let id = 1; id <= 5; id++) pageFile(dir, id);
    writeFileSync(join(dir, '9'), 'put there during the crawl\n');
    const pages = new TsePageDirectory(dir, { firstId: 3 });
    assert.equal(await pages.removeStale(5), 3);
    assert.deepEqual(listing(dir), ['1', '2', '9']);
  });

  test('numbered files but no state that records them (a marker alone, a shared worker\'s directory): refused; directories named by numbers are no page files', () => {
    const dir = temp();
    pageFile(dir, 1);
    pageFile(dir, 2);
    assert.match(refusalOf(() => ownedPageFiles(dir, () => undefined, false)), /holds "1" \(and 1 more numbered file\), which no state of an earlier crawl here records as written by it: not ours to remove \(--overwrite to replace them\)$/);
    const only = temp();
    mkdirSync(join(only, '7'));
    writeFileSync(join(only, '007'), 'not a page file name');
    assert.equal(ownedPageFiles(only, () => assert.fail('no numbered file: the state is not read'), false), 0);
  });
});

/** The state files a crawl keeps in its directory (the SQLite file with its log, and two others). */
const STATE_NAMES = [STATE_FILE, `${STATE_FILE}-wal`, `${STATE_FILE}-shm`, '.pacing', '.journal'];

function options(extra: Partial<PageDirStartOptions> = {}): PageDirStartOptions {
  return { resume: false, overwrite: false, stateFiles: ['.pacing', '.journal'], readEarlier: () => undefined, ...extra };
}

/** Writes every state file with `text` in it. */
function writeState(dir: string, text: string): void {
  for (const n of STATE_NAMES) writeFileSync(join(dir, n), `${n} ${text}`);
}

function listing(dir: string): string[] {
  return readdirSync(dir).sort();
}

describe('PageDirStart: nothing is lost by a start that fails', () => {
  test('a directory that held nothing of ours: undo removes the marker and every state file the start made', () => {
    const dir = temp();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const start = PageDirStart.begin(dir, options());
    assert.equal(readFileSync(join(dir, MARKER), 'utf8'), MARKER_TEXT);
    assert.equal(start.ownedThrough, 0);
    writeState(dir, 'new');
    start.undo();
    assert.deepEqual(listing(dir), ['notes.txt'], 'as it was found');
  });

  test('an earlier crawl of ours: its state is set aside, and put back byte for byte by undo; its pages are not touched', () => {
    const dir = temp();
    writeFileSync(join(dir, MARKER), MARKER_TEXT);
    writeState(dir, 'earlier');
    for (let id = 1; id <= 3; id++) pageFile(dir, id);
    const start = PageDirStart.begin(dir, options({ readEarlier: () => record(3) }));
    assert.equal(start.ownedThrough, 3);
    for (const n of STATE_NAMES) {
      assert.ok(!existsSync(join(dir, n)), `${n} set aside`);
      assert.equal(readFileSync(join(dir, n + SET_ASIDE), 'utf8'), `${n} earlier`);
    }
    writeState(dir, 'new');
    start.undo();
    for (const n of STATE_NAMES) assert.equal(readFileSync(join(dir, n), 'utf8'), `${n} earlier`, `${n} put back`);
    assert.deepEqual(listing(dir), ['.crawler', '.journal', '.pacing', STATE_FILE, `${STATE_FILE}-shm`, `${STATE_FILE}-wal`, '1', '2', '3'].sort());
  });

  test('keep (the first page is saved): the set-aside state is removed, the new one stays, and a later undo does nothing', () => {
    const dir = temp();
    writeFileSync(join(dir, MARKER), MARKER_TEXT);
    writeFileSync(join(dir, STATE_FILE), 'earlier');
    const start = PageDirStart.begin(dir, options());
    writeFileSync(join(dir, STATE_FILE), 'new');
    start.keep();
    start.undo();
    assert.deepEqual(listing(dir), ['.crawler', STATE_FILE]);
    assert.equal(readFileSync(join(dir, STATE_FILE), 'utf8'), 'new');
  });

  test('state set aside by a start that crashed is removed by the next start', () => {
    const dir = temp();
    writeFileSync(join(dir, MARKER), MARKER_TEXT);
    writeFileSync(join(dir, STATE_FILE + SET_ASIDE), 'the crashed start\'s earlier state');
    writeFileSync(join(dir, STATE_FILE), 'the crashed start\'s own');
    const start = PageDirStart.begin(dir, options());
    assert.equal(readFileSync(join(dir, STATE_FILE + SET_ASIDE), 'utf8'), 'the crashed start\'s own');
    start.keep();
    assert.deepEqual(listing(dir), ['.crawler']);
  });

  test('--resume sets nothing aside and checks no file; its undo removes only a marker it wrote', () => {
    const ours = temp();
    writeFileSync(join(ours, MARKER), MARKER_TEXT);
    writeState(ours, 'the crawl');
    writeFileSync(join(ours, '999'), 'mine');
    PageDirStart.begin(ours, options({ resume: true, readEarlier: () => assert.fail('not read on resume') })).undo();
    assert.deepEqual(listing(ours), ['.crawler', '999', ...STATE_NAMES].sort());
    const empty = temp();
    PageDirStart.begin(empty, options({ resume: true })).undo();
    assert.deepEqual(listing(empty), []);
  });

  test('a start refused for a file that is not ours changes nothing', () => {
    const dir = temp();
    writeFileSync(join(dir, MARKER), MARKER_TEXT);
    writeState(dir, 'earlier');
    pageFile(dir, 1);
    writeFileSync(join(dir, '999'), 'mine');
    const before = listing(dir);
    refusalOf(() => PageDirStart.begin(dir, options({ readEarlier: () => record(1) })));
    assert.deepEqual(listing(dir), before);
  });
});

describe('readEarlierCrawl: the record in a real crawl state', () => {
  const entry = (key: string, depth: number): FrontierEntry => ({ key, url: key, depth });

  test('the last committed ID, the earlier files owned, the URLs known (the seed from the start); the log folded into the file', () => {
    const dir = temp();
    const s = new SqliteFrontier(dir, { seed: 'http://h/', maxDepth: 2, resume: false, ownedThrough: 40 });
    s.add(entry('http://h/', 0));
    s.complete(s.take() as FrontierEntry, { links: [entry('http://h/a', 1)], documentId: 1 });
    s.complete(s.take() as FrontierEntry, { links: [], documentId: 2 });
    s.close();
    const r = readEarlierCrawl(dir);
    assert.ok(r !== undefined);
    assert.equal(r.lastId, 2);
    assert.equal(r.ownedThrough, 40);
    assert.equal(r.knows('http://h/a'), true);
    assert.equal(r.knows('http://h/b'), false);
    r.close();
    assert.deepEqual(listing(dir), [STATE_FILE], 'no write-ahead log left beside it');
    // A new crawl that has committed nothing but its start still knows its seed (page 1, should a crash leave it).
    const fresh = temp();
    const f = new SqliteFrontier(fresh, { seed: 'http://h/', maxDepth: 2, resume: false });
    f.abandon();
    const rf = readEarlierCrawl(fresh);
    assert.deepEqual([rf?.lastId, rf?.ownedThrough, rf?.knows('http://h/')], [0, 0, true]);
    rf?.close();
  });

  test('no state, a damaged one, or a link in its place: no record', () => {
    assert.equal(readEarlierCrawl(temp()), undefined);
    const damaged = temp();
    writeFileSync(join(damaged, STATE_FILE), 'not a database at all, but long enough to look like one '.repeat(20));
    assert.equal(readEarlierCrawl(damaged), undefined);
    const linked = temp();
    const real = temp();
    new SqliteFrontier(real, { seed: 'http://h/', maxDepth: 1, resume: false }).close();
    symlinkSync(join(real, STATE_FILE), join(linked, STATE_FILE));
    assert.equal(readEarlierCrawl(linked), undefined);
  });
});
