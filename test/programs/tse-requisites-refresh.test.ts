/**
 * crawler --since with --page-requisites, in process over a static server
 * that keeps validators as nginx does: a refresh asks each requisite the
 * earlier crawl archived with its validators; a 304 is a revisit record of
 * the earlier capture, and what an unchanged stylesheet named (its
 * @import and url()) is asked about too, read from the earlier crawl's
 * state since a 304 sends no body. A changed file is fetched in full. A
 * refresh of a refresh still refers to the first capture.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crawlerMain } from '../../src/cli/crawler.js';
import { recordingIo } from '../helpers/fakes.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { serveWithValidators, type ValidatorSite } from '../helpers/validator-site.js';
import { checkArchive, type CheckedRecord } from '../helpers/warc-check.js';

const { temp } = useTempDirs('tse-requisites-refresh-');


async function startSite(t: TestContext): Promise<ValidatorSite> {
  const root = temp('site-');
  mkdirSync(join(root, 'css'));
  writeFileSync(join(root, 'index.html'), '<html><head><link rel="stylesheet" href="css/s.css"></head><body><img src="a.png"><a href="two.html">two</a></body></html>\n');
  writeFileSync(join(root, 'two.html'), '<html><head><link rel="stylesheet" href="css/s.css"></head><body>two</body></html>\n');
  writeFileSync(join(root, 'css', 's.css'), '@import "base.css";\np { background: url(../bg.png) }\n');
  writeFileSync(join(root, 'css', 'base.css'), 'body { color: red }\n');
  writeFileSync(join(root, 'a.png'), 'png-a');
  writeFileSync(join(root, 'bg.png'), 'png-bg'.repeat(100));
  return serveWithValidators(t, root);
}

async function crawler(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const rec = recordingIo();
  const code = await crawlerMain(['--delay', '0', '--ignore-robots', '--page-requisites', ...args], rec.io);
  return { code, out: rec.out(), err: rec.stderr.join('') };
}

function newDir(name: string): string {
  const d = join(temp(), name);
  mkdirSync(d);
  return d;
}

/** The record of `type` for `path` in `records`, which must be there once. */
function one(records: CheckedRecord[], type: string, url: string): CheckedRecord {
  const found = records.filter((r) => r.type === type && r.headers.get('warc-target-uri') === url);
  assert.equal(found.length, 1, `one ${type} record of ${url}: ${records.map((r) => `${r.type} ${r.headers.get('warc-target-uri') ?? ''}`).join(', ')}`);
  return found[0] as CheckedRecord;
}

test('a refresh asks each requisite with its validators: a 304 is a revisit of the earlier capture, an unchanged stylesheet\'s URLs are asked too, a changed file comes in full', async (t) => {
  const site = await startSite(t);
  const seed = `${site.origin}/index.html`;
  const dir = temp();
  const old = newDir('old');
  const oldWarc = join(dir, 'old.warc');
  const first = await crawler(['--warc', oldWarc, seed, old, '1']);
  assert.equal(first.code, 0, first.err);
  assert.match(first.err, /^crawler: page requisites: 4 fetched \(\d+ bytes\) for the archive$/m);
  const requisites = ['/css/s.css', '/css/base.css', '/bg.png', '/a.png'];
  for (const p of requisites) assert.ok(site.answers.includes(`200 ${p}`), `${p}: ${site.answers.join(', ')}`);

  site.answers.length = 0;
  site.change('a.png', 'png-a, changed');
  const fresh = newDir('fresh');
  const freshWarc = join(dir, 'fresh.warc');
  const second = await crawler(['--since', old, '--warc', freshWarc, seed, fresh, '1']);
  assert.equal(second.code, 0, second.err);
  // Every requisite asked with its validators: three unchanged, the changed image in full.
  for (const p of ['/css/s.css', '/css/base.css', '/bg.png']) assert.ok(site.answers.includes(`304 ${p} conditional`), `${p}: ${site.answers.join(', ')}`);
  assert.ok(site.answers.includes('200 /a.png conditional'), site.answers.join(', '));
  assert.equal(site.answers.filter((a) => /\/(css\/s\.css|css\/base\.css|bg\.png|a\.png)/.test(a)).length, 4, 'each requisite once');
  // bg.png's 600 bytes, s.css's 53 and base.css's 20 were not sent again.
  assert.match(second.err, /^crawler: page requisites: 1 fetched \(14 bytes\) for the archive; 3 unchanged since the earlier crawl \(673 bytes not sent again\)$/m);

  const records = await checkArchive([oldWarc, freshWarc]);
  const fresher = records.filter((r) => r.file === freshWarc);
  for (const p of ['/css/s.css', '/css/base.css', '/bg.png']) {
    const revisit = one(fresher, 'revisit', `${site.origin}${p}`);
    const original = one(records.filter((r) => r.file === oldWarc), 'response', `${site.origin}${p}`);
    assert.equal(revisit.headers.get('warc-refers-to'), original.headers.get('warc-record-id'), `${p}: the revisit refers to the earlier capture`);
  }
  assert.equal(one(fresher, 'response', `${site.origin}/a.png`).payload?.toString(), 'png-a, changed');

  // A refresh of the refresh: nothing changed, every requisite a revisit of the first capture (or the changed image's new one).
  site.answers.length = 0;
  const third = newDir('third');
  const thirdWarc = join(dir, 'third.warc');
  const again = await crawler(['--since', fresh, '--warc', thirdWarc, seed, third, '1']);
  assert.equal(again.code, 0, again.err);
  for (const p of requisites) assert.ok(site.answers.includes(`304 ${p} conditional`), `${p}: ${site.answers.join(', ')}`);
  assert.match(again.err, /^crawler: page requisites: 0 fetched \(0 bytes\) for the archive; 4 unchanged since the earlier crawl \(687 bytes not sent again\)$/m);
  const all = await checkArchive([oldWarc, freshWarc, thirdWarc]);
  const firstId = one(all.filter((r) => r.file === oldWarc), 'response', `${site.origin}/bg.png`).headers.get('warc-record-id');
  assert.equal(one(all.filter((r) => r.file === thirdWarc), 'revisit', `${site.origin}/bg.png`).headers.get('warc-refers-to'), firstId);
  const changedId = one(all.filter((r) => r.file === freshWarc), 'response', `${site.origin}/a.png`).headers.get('warc-record-id');
  assert.equal(one(all.filter((r) => r.file === thirdWarc), 'revisit', `${site.origin}/a.png`).headers.get('warc-refers-to'), changedId);
});

test('a refresh of a crawl made without --page-requisites fetches the requisites in full', async (t) => {
  const site = await startSite(t);
  const seed = `${site.origin}/index.html`;
  const dir = temp();
  const plain = newDir('plain');
  const rec = recordingIo();
  assert.equal(await crawlerMain(['--delay', '0', '--ignore-robots', seed, plain, '1'], rec.io), 0, rec.stderr.join(''));
  site.answers.length = 0;
  const fresh = newDir('fresh');
  const r = await crawler(['--since', plain, '--warc', join(dir, 'f.warc'), seed, fresh, '1']);
  assert.equal(r.code, 0, r.err);
  for (const p of ['/css/s.css', '/css/base.css', '/bg.png', '/a.png']) assert.ok(site.answers.includes(`200 ${p}`), `${p} in full: ${site.answers.join(', ')}`);
  assert.match(r.err, /^crawler: page requisites: 4 fetched \(\d+ bytes\) for the archive$/m);
});
