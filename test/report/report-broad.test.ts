/**
 * The report of a broad crawl (issue: thousands of hosts): the timeline
 * draws the 50 busiest hosts and one lane of all hosts together; the host
 * table lists every host, folded, and sorts by a click on a radio button (CSS only,
 * the report runs no script); a command line of hundreds of flags is
 * folded. At 10,000 hosts the file stays under 2 MB and Chromium loads it
 * in under 1 s.
 */
// run-tests: serial (Chromium must open a 10,000-host report within 1 s, a bound on CPU work that other test files running beside it could break)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LANE_LIMIT } from '../../src/report/render-timeline.js';
import { COMMAND_FOLD } from '../../src/report/render-summary.js';
import { browserSkipReason, withBrowser } from '../helpers/browser.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { bigCrawl, recorder, run } from './synthetic.js';

const { temp } = useTempDirs('pc-report-broad-');
const HOSTS = 10_000;

test('10,000 hosts: under 2 MB, the busiest 50 hosts and an all-hosts lane, every host in a folded table, the command folded; Chromium loads it in under 1 s and sorts the table', { skip: browserSkipReason }, async () => {
  const file = join(temp(), 'broad.html');
  const internals = Array.from({ length: 500 }, (_, i) => ['--internal', `http://h${i}.test/`]).flat();
  const command = ['crawler', '--delay', '1', '--concurrency', '256', ...internals, 'http://h0.test/dir/page-0.html?q=0', 'pages', '2'];
  const r = recorder(file, run({ pageDir: join(temp(), 'pages'), command }));
  // Two requests a host, the hosts' second ones a second later; host 0 gets a third.
  for (const e of bigCrawl(2 * HOSTS + 1, HOSTS)) r.consume(e);
  r.finish('the crawl finished');
  const size = statSync(file).size;
  assert.ok(size < 2_000_000, `${size} bytes`);
  const html = readFileSync(file, 'utf8');
  assert.equal(html.match(/<g class="lane" data-host=/g)?.length, LANE_LIMIT, 'the busiest hosts have a lane each');
  assert.ok(html.includes('<g class="lane all" data-hosts="10000">'), 'a lane of all hosts');
  assert.ok(html.includes('the 50 with the most requests have a lane each'));
  assert.ok(html.includes('<g class="lane" data-host="http://h0.test">'), 'the busiest host (3 requests) has its lane');
  assert.equal(html.match(/<tr data-host=/g)?.length, HOSTS, 'every host in the table');
  assert.ok(html.includes("<summary>Every host's gaps: 10,000 hosts, 0 with a gap below its interval; the least gap to its interval: http://h0.test, 1.000 s against 1.000 s</summary>"), 'the folded table says what it holds');
  assert.ok(command.join(' ').length > COMMAND_FOLD);
  assert.ok(html.includes(`<details class="command"><summary>the whole command (${command.length.toLocaleString('en-US')} arguments)</summary>`), 'the command is folded');
  await withBrowser(async (page, watch) => {
    // The page's own load time, the least of three loads: what the page costs, not what else the machine is doing.
    const loads: number[] = [];
    for (let i = 0; i < 3; i++) {
      await page.goto(`file://${file}`, { waitUntil: 'load' });
      loads.push(await page.evaluate<number>("(() => { const t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime; })()"));
    }
    const nav = Math.min(...loads);
    console.log(`10,000 hosts: ${(size / 1e6).toFixed(2)} MB, load ${loads.map((l) => l.toFixed(0)).join(', ')} ms in the page`);
    assert.ok(nav < 1000, `loaded in ${loads.map((l) => l.toFixed(0)).join(', ')} ms`);
    assert.equal(await page.evaluate<boolean>("document.querySelector('details.hosts').open"), false, 'the table of every host opens folded');
    await page.click('details.hosts > summary');
    // Which host the table shows first, by layout (flex order), for each order.
    const first = (): Promise<string> =>
      page.evaluate<string>("(() => { const rows = [...document.querySelectorAll('table.gaps tbody tr')]; rows.sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top); return rows[0].getAttribute('data-host'); })()");
    assert.equal(await first(), 'http://h0.test', 'by least gap: h0 has the least gap (1 s after its second request: its third came at once)');
    await page.click('label[for="gap-sort-r"]');
    assert.equal(await first(), 'http://h0.test', 'by requests: h0 has the most');
    await page.click('label[for="gap-sort-h"]');
    assert.equal(await first(), 'http://h0.test', 'by host: h0 sorts first');
    const last = await page.evaluate<string>("(() => { const rows = [...document.querySelectorAll('table.gaps tbody tr')]; rows.sort((a, b) => b.getBoundingClientRect().top - a.getBoundingClientRect().top); return rows[0].getAttribute('data-host'); })()");
    assert.equal(last, 'http://h9999.test');
    assert.equal(await page.$$eval('script', (s) => s.length), 0, 'no script');
    assert.deepEqual(watch.consoleErrors, []);
    assert.deepEqual([...new Set(watch.requests)], [`file://${file}`], 'the report loads nothing but itself');
  });
});
