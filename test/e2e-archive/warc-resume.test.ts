/**
 * The crawl archive end to end (spawned programs): after kill -9 at three
 * points, `crawler --resume` cuts a partial last record and goes on, and the
 * archive then parses (warcio and our checker) and holds every page of an
 * uninterrupted crawl; so it does after the archive's disk filled up; in a
 * shared crawl two workers write two archives that together hold every page.
 */
// run-tests: long (16 s: kill -9 and resume with an archive)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crawl } from '../helpers/crawler-e2e.js';
import { resizeTmpfs } from '../helpers/fs-faults.js';
import { crawlKilledAfter, slowSite } from '../helpers/killed-crawl.js';
import { runProgram, startProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, responseUris } from '../helpers/warc-check.js';

const { temp, tmpfs } = useTempDirs('warc-resume-');

for (const ext of ['.warc', '.warc.gz']) {
  test(`kill -9 at three points, then --resume: the ${ext} archive parses and holds every page of an uninterrupted crawl`, async (t) => {
    const { site, all } = await slowSite();
    t.after(() => site.close());
    const dir = temp();
    const pages = join(dir, 'pages');
    mkdirSync(pages);
    const warc = join(dir, `crawl${ext}`);
    const args = ['--delay', '0', '--warc', warc, `${site.origin}/p0.html`, pages, '1'];
    await crawlKilledAfter(args, 3);
    await crawlKilledAfter(['--resume', ...args], 10);
    // A record cut short, as a kill in the middle of its write leaves it: the start of the file's last record.
    const bytes = readFileSync(warc);
    appendFileSync(warc, bytes.subarray(bytes.length - 200, bytes.length - 120));
    // Counted in this run: at least 30 - 3 - 10 pages are left for it, whatever the crash lost.
    await crawlKilledAfter(['--resume', ...args], 5);
    const last = await crawl(['--resume', ...args]);
    assert.equal(last.code, 0, last.stderr);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('crawl')).sort(), ['crawl.cdxj', `crawl${ext}`], 'one archive and its index');
    const records = await checkArchive([warc]);
    const archived = new Set(responseUris(records));
    for (const url of all) assert.ok(archived.has(url), `${url} is in the archive`);
    // What the file holds, not what the last run wrote (issue 43, item 2).
    assert.match(last.stderr, new RegExp(`archived ${all.length} pages in ${warc.replace(/[.]/g, '[.]')}\\n`));
    assert.equal(records.filter((r) => r.type === 'warcinfo').length, 4, 'a warcinfo for the first run and one per resume');
  });
}

test("the archive's disk fills up: exit 1 naming the archive, and after --resume with room the archive holds every page", async (t) => {
  // 30 pages of some 8 KB: the first run's archive can hold only a few of them.
  const { site, all } = await slowSite(8000);
  t.after(() => site.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const disk = tmpfs(t, '64k');
  if (disk === undefined) return;
  const warc = join(disk, 'crawl.warc');
  const args = ['--delay', '0', '--warc', warc, `${site.origin}/p0.html`, pages, '1'];
  const full = await crawl(args);
  assert.equal(full.code, 1, full.stderr);
  // The cause first, then how to go on.
  const lines = full.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, `two lines: ${full.stderr}`);
  assert.match(lines[0] as string, /^crawler: the disk is full: cannot write the archive .*crawl\.warc \(ENOSPC\)$/);
  assert.match(lines[1] as string, /--resume continues the crawl/);
  assert.equal(resizeTmpfs(disk, '4m'), undefined);
  // The pages whose records were lost are not done in the crawl state: the resumed crawl fetches them again.
  const resumed = await crawl(['--resume', ...args]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const archived = new Set(responseUris(await checkArchive([warc])));
  for (const url of all) assert.ok(archived.has(url), `${url} is in the archive`);
});

test('a shared crawl: two workers write two archives, named apart, that together hold every page', async (t) => {
  const { site, all } = await slowSite();
  t.after(() => site.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const warc = join(dir, 'shared.warc.gz');
  const args = ['-q', '--frontier', `sqlite:${join(dir, 'frontier.db')}`, '--delay', '0', '--warc', warc, `${site.origin}/p0.html`, pages, '1'];
  const runs = await Promise.all([startProgram('crawler', args).done, startProgram('crawler', args).done]);
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const files = readdirSync(dir).filter((n) => n.startsWith('shared') && !n.endsWith('.cdxj')).sort();
  assert.equal(files.length, 2, `one archive per worker: ${files.join(' ')}`);
  assert.equal(readdirSync(dir).filter((n) => n.endsWith('.cdxj')).length, 2, 'and one index per worker');
  for (const f of files) assert.match(f, /^shared-w[A-Za-z0-9_-]+-\d+\.warc\.gz$/);
  const archived = new Set<string>();
  for (const f of files) for (const uri of responseUris(await checkArchive([join(dir, f)]))) archived.add(uri);
  for (const url of all) assert.ok(archived.has(url), `${url} is in one of the archives`);
});

test('a WARC file that is not ours: one line on stderr, exit 1, before any request, the file as it was', async (t) => {
  const { site } = await slowSite();
  t.after(() => site.close());
  const dir = temp();
  const warc = join(dir, 'theirs.warc.gz');
  const theirs = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]);
  writeFileSync(warc, theirs);
  const r = await runProgram('KeywordHunter', ['--warc', warc, `${site.origin}/p0.html`, 'x']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `KeywordHunter: --warc: ${warc} exists and is not an archive this program wrote; not overwriting it\n`);
  assert.equal(r.stdout, '');
  assert.equal(site.requests.length, 0);
  assert.deepEqual(readFileSync(warc), theirs);
});
