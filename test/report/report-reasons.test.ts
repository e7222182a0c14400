/**
 * crawler --report counts the links it left out by the reasons --json gives
 * (issue 43, item 8): the program hands the report the scope's reasons, so
 * --exclude is counted as excluded, not as external.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crawlerMain } from '../../src/cli/crawler.js';
import { recordingIo } from '../helpers/fakes.js';
import { page, startSite } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('report-reasons-');

test('crawler --report --exclude: the report counts excluded, external and non-HTML links apart, as --json names them', async (t) => {
  const s = await startSite({
    '/': { body: page('home', ['/genindex.html', '/genindex-A.html', 'http://192.0.2.1/', '/manual.pdf', '/a.html']) },
    '/a.html': { body: page('a', ['/']) },
  });
  t.after(() => s.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const report = join(dir, 'r.html');
  const rec = recordingIo();
  const code = await crawlerMain(['--delay', '0', '--ignore-robots', '-q', '--exclude', 'genindex', '--report', report, `${s.origin}/`, pages, '2'], rec.io);
  assert.equal(code, 0, rec.stderr.join(''));
  const html = readFileSync(report, 'utf8');
  const counts = Object.fromEntries([...html.matchAll(/data-skip="([^"]+)" data-count="(\d+)"/g)].map((m) => [m[1], Number(m[2])]));
  assert.deepEqual(counts, { excluded: 2, external: 1, extension: 1, duplicate: 1 });
});
