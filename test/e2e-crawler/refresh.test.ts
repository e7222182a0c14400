/**
 * Issue 31's end-to-end refresh: ./crawler crawls a generated 1,000-page
 * site (bench/site.ts, served by bench/static-server.ts with validators:
 * ETag, Last-Modified and 304 as nginx answers them), 10 % of the site's
 * pages are changed, and `crawler --since` refreshes the first crawl into a
 * new pageDirectory. The changed files are exactly the changed pages, the
 * unchanged ones are byte for byte the earlier files, and, counted at the
 * server, the refresh cost the unchanged pages at most 5 % of the body
 * bytes the first crawl cost them (a 304 has no body: it is 0).
 */
// run-tests: long (15 s: a crawl and its refresh)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { generateSite } from '../../bench/site.js';
import { staticServer } from '../../bench/static-server.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { cs50Line } from '../helpers/cs50-log.js';
import { readPages, type SavedPage } from '../helpers/page-files.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('pc-refresh-');
const PAGES = 1000;

const siteRoot = dirs.temp('site-');
let server: Server;
let seed: string;
let origin: string;
/** Body bytes the server sent per file path (the query ignored, as the server ignores it), since the last reset. */
const sent = new Map<string, number>();

before(async () => {
  server = staticServer(siteRoot, { validators: true, onBody: (path, _status, bytes) => sent.set(path, (sent.get(path) ?? 0) + bytes) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  seed = generateSite(siteRoot, { pages: PAGES, origin }).seedUrl;
});
after(
  () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
);

/** The file a saved URL was served from (its path, without the query). */
function fileOf(url: string): string {
  return new URL(url).pathname;
}

const total = (paths: Iterable<string>, from: ReadonlyMap<string, number>): number => [...paths].reduce((n, p) => n + (from.get(p) ?? 0), 0);

test('a 1,000-page site, 10 % changed, refreshed: exactly the changed files differ, the rest are the earlier bytes, and the server sent almost nothing for them', { timeout: 300_000 }, async () => {
  const old = dirs.temp('old-');
  const fresh = join(dirs.temp(), 'refreshed');
  mkdirSync(fresh);
  const first = await crawl(['--delay', '0', '-q', seed, old, '6'], 120_000);
  assert.equal(first.code, 0, first.stderr);
  const firstSent = new Map(sent);
  sent.clear();
  const earlier = readPages(old);
  const files = [...new Set(earlier.map((p) => fileOf(p.url)))].sort();
  assert.ok(files.length >= PAGES, `the first crawl saved every page (${files.length} files, ${earlier.length} URLs)`);

  // Every tenth file of the site, the seed's among them, gets new text; its links stay, so the crawl's shape does too.
  const changed = new Set(files.filter((_, i) => i % 10 === 0));
  for (const path of changed) {
    const file = join(siteRoot, path);
    const body = readFileSync(file, 'utf8');
    writeFileSync(file, body.includes('</body>') ? body.replace('</body>', '<p>changed since the first crawl</p></body>') : `${body}<p>changed</p>\n`);
    const later = new Date(statSync(file).mtimeMs + 10_000);
    utimesSync(file, later, later);
  }

  const r = await crawl(['--delay', '0', '--since', old, seed, fresh, '6'], 120_000);
  assert.equal(r.code, 0, r.stderr);
  const now = readPages(fresh);
  const show = (p: SavedPage): string => `${p.id} ${p.url} ${p.depth}`;
  assert.deepEqual(now.map(show), earlier.map(show), 'the same pages, under the same IDs, at the same depths');
  const before = new Map(earlier.map((p) => [p.url, p.raw]));
  const differ = now.filter((p) => !p.raw.equals(before.get(p.url) as Buffer)).map((p) => p.url);
  const expected = now.filter((p) => changed.has(fileOf(p.url))).map((p) => p.url);
  assert.ok(expected.length >= changed.size, 'every changed file is a saved page');
  assert.deepEqual(differ, expected, 'the files that differ are exactly the changed pages');

  const unchangedFiles = files.filter((f) => !changed.has(f));
  const spentFirst = total(unchangedFiles, firstSent);
  const spentNow = total(unchangedFiles, sent);
  assert.ok(spentFirst > 1_000_000, `the first crawl sent the unchanged pages in full (${spentFirst} bytes)`);
  assert.ok(spentNow <= 0.05 * spentFirst, `the refresh cost the unchanged pages ${spentNow} body bytes, against ${spentFirst} the first time`);
  assert.ok(total(changed, sent) >= total(changed, firstSent), 'the changed pages were sent in full');

  // The log: every page keeps its Fetched line; the unchanged ones say so on the next line.
  const lines = r.stdout.split('\n');
  const unchangedLines = lines.filter((l) => /^ ?\d+ +Unchanged: /.test(l)).length;
  assert.equal(unchangedLines, now.length - expected.length);
  for (const p of now.slice(0, 50)) {
    const at = lines.indexOf(cs50Line(p.depth, 'Fetched', p.url));
    assert.ok(at >= 0, `Fetched ${p.url}`);
    assert.equal(lines[at + 1] === cs50Line(p.depth, 'Unchanged', p.url), !changed.has(fileOf(p.url)), `Unchanged after Fetched for ${p.url} exactly when it did not change`);
  }
  assert.match(r.stderr, new RegExp(`refresh of ${old}: ${now.length - expected.length} unchanged, ${expected.length} changed, 0 new, 0 gone; \\d+ bytes not sent again`));
});
