/**
 * A --resume continues the files the crawl was started with (issue 43,
 * items 1 and 2; spec decision "What the programs say"): stopped by SIGINT,
 * a crawl resumed with --resume alone writes to its archive, package and
 * report again and says so in one line; the archive then holds every page
 * and "archived N" and the package's page list count what it holds; a
 * --resume naming other files, or files the crawl was not started with, is
 * refused before any request, with nothing written.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertCleanError, crawl } from '../helpers/crawler-e2e.js';
import { crawlKilledAfter, slowSite } from '../helpers/killed-crawl.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, responseUris } from '../helpers/warc-check.js';
import { waczPages } from '../archive/wacz-read.js';

const { temp } = useTempDirs('resume-outputs-');

test('SIGINT, then --resume alone: the archive, package and report go on, said in one line, and count the whole crawl', async (t) => {
  const { site, all } = await slowSite();
  t.after(() => site.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const wacz = join(dir, 'crawl.wacz');
  const report = join(dir, 'report.html');
  const seed = [`${site.origin}/p0.html`, pages, '1'];
  await crawlKilledAfter(['--delay', '0', '--wacz', wacz, '--report', report, ...seed], 5, 'SIGINT');
  const warc = join(dir, 'crawl.warc.gz');
  const first = new Set(responseUris(await checkArchive([warc])));
  assert.ok(first.size >= 5 && first.size < all.length, `the first run archived part of the crawl (${first.size})`);

  const resumed = await crawl(['--delay', '0', '--resume', ...seed]);
  assert.equal(resumed.code, 0, resumed.stderr);
  const said = resumed.stderr.split('\n').filter((l) => l.includes('resuming into'));
  assert.deepEqual(said, [`crawler: resuming into the files the crawl was started with: the archive ${warc}, its package ${wacz}, the report ${report}`]);
  const archived = new Set(responseUris(await checkArchive([warc])));
  for (const url of all) assert.ok(archived.has(url), `${url} is in the archive`);
  assert.match(resumed.stderr, new RegExp(`archived ${all.length} pages in `), 'the summary counts what the file holds');
  const listed = await waczPages(wacz);
  assert.deepEqual(listed.map((p) => p.url).sort(), [...all].sort(), 'the package lists every page once');
  assert.ok(listed.every((p) => /^Page \d+$/.test(p.title ?? '')), 'the earlier pages keep their titles');
  const html = readFileSync(report, 'utf8');
  assert.match(html, new RegExp(`data-figure="saved" data-value="${all.length}"`), 'the report covers the whole crawl');
});

test('--resume naming another archive or report: refused before any request, naming both files, nothing written', async (t) => {
  const { site } = await slowSite();
  t.after(() => site.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const warc = join(dir, 'a.warc.gz');
  const seed = [`${site.origin}/p0.html`, pages, '1'];
  await crawlKilledAfter(['--delay', '0', '--warc', warc, ...seed], 3, 'SIGINT');
  const asked = site.requests.length;

  const other = join(dir, 'b.warc.gz');
  const r = await crawl(['--resume', '--warc', other, ...seed]);
  assertCleanError(r, new RegExp(`^crawler: --resume: the crawl in ${pages} writes --warc ${warc}, not ${other}; resume without --warc`), { usageHint: false });
  assert.equal(existsSync(other), false, 'the other archive is not begun');

  const rep = join(dir, 'r.html');
  const r2 = await crawl(['--resume', '--report', rep, ...seed]);
  assertCleanError(r2, /^crawler: --resume: the crawl in .* was started without --report, so a --report file begun now would miss its first pages/, { usageHint: false });
  assert.equal(existsSync(rep), false, 'no report written');
  assert.equal(site.requests.length, asked, 'no request was made');
});

test('a crawl started without an archive: --resume --warc is refused, and --resume alone says nothing of outputs', async (t) => {
  const { site, all } = await slowSite();
  t.after(() => site.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const seed = [`${site.origin}/p0.html`, pages, '1'];
  await crawlKilledAfter(['--delay', '0', ...seed], 3, 'SIGINT');
  const warc = join(dir, 'late.warc');
  const r = await crawl(['--resume', '--warc', warc, ...seed]);
  assertCleanError(r, /^crawler: --resume: the crawl in .* was started without --warc/, { usageHint: false });
  assert.equal(existsSync(warc), false);
  const done = await crawl(['--delay', '0', '--resume', ...seed]);
  assert.equal(done.code, 0, done.stderr);
  assert.doesNotMatch(done.stderr, /resuming into|archived/);
  assert.match(done.stderr, new RegExp(`saved ${all.length} pages`));
});
