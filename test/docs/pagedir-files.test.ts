/**
 * The README's table of the files in a pageDirectory (issue 43, item 14)
 * names every file the program writes there: two crawls into one directory
 * (the second replacing the first, with --report), each name seen during
 * the crawls (listed by the site's handler as each page is asked for) and
 * after them must match a row of the table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crawlerMain } from '../../src/cli/crawler.js';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import { recordingIo } from '../helpers/fakes.js';
import { page, startSite, type Route } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('pagedir-files-');

/** The README table's file names as patterns: `PID`, `START` and `N` stand for digits, `NAME` for any name, `1`, `2` for the page IDs. */
function readmeNames(): RegExp[] {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8').split('\n');
  const start = readme.findIndex((l) => l.startsWith('| File | What it is for |'));
  assert.ok(start >= 0, 'the README has the table');
  const out: RegExp[] = [];
  for (const row of readme.slice(start + 2)) {
    if (!row.startsWith('|')) break;
    const cell = row.split('|')[1] ?? '';
    for (const m of cell.matchAll(/`([^`]+)`/g)) {
      const name = m[1] as string;
      if (/^[0-9]+$/.test(name)) out.push(/^[1-9][0-9]*$/);
      else out.push(new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/PID|START|N(?!AME)/g, '[0-9]+').replace(/NAME/g, '.+')}$`));
    }
  }
  return out;
}

test('every file the program writes in a pageDirectory is in the README\'s table', async (t) => {
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const seen = new Set<string>();
  const look = (): void => {
    for (const n of readdirSync(pages)) seen.add(n);
  };
  const watched = (body: string): Route => ({
    handle: (_req, res) => {
      look();
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(body);
    },
  });
  const s = await startSite({
    '/': watched(page('home', ['/a.html', '/b.html'])),
    '/a.html': watched(page('a', ['/b.html'])),
    '/b.html': watched(page('b')),
  });
  t.after(() => s.close());
  for (let run = 0; run < 2; run++) {
    const rec = recordingIo();
    const code = await crawlerMain(['--delay', '0', '-q', '--report', join(dir, 'r.html'), `${s.origin}/`, pages, '1'], rec.io);
    assert.equal(code, 0, rec.stderr.join(''));
    look();
  }
  for (const must of ['.crawler', '.crawler-state.db', '.crawler-report.jsonl', '.crawler-state.db.earlier', '1']) assert.ok(seen.has(must), `${must} was seen (seen: ${[...seen].join(' ')})`);
  assert.ok([...seen].some((n) => n.startsWith('.crawler-lock-')), 'the lock was seen');
  const names = readmeNames();
  const unlisted = [...seen].filter((n) => !names.some((re) => re.test(n)));
  assert.deepEqual(unlisted, [], 'every name seen is in the README\'s table');
});
