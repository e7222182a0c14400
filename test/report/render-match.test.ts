/**
 * KeywordHunter's line in the report (issue 43, item 17): on a minified
 * page the keyword is marked in some context, the whole line folded below
 * and cut at a bound; in chromium the mark is on the first screen.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LINE_LIMIT, MATCH_CONTEXT, renderMatchLine } from '../../src/report/render-match.js';
import { browserSkipReason, withBrowser } from '../helpers/browser.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { exchange, recorder, run, T0, url } from './synthetic.js';

const { temp } = useTempDirs('render-match-');

test('a short line is shown whole, the keyword marked and escaped', () => {
  assert.equal(renderMatchLine('a <b>needle</b> & c', 'needle'), '<pre class="line" id="match">a &lt;b&gt;<mark>needle</mark>&lt;/b&gt; &amp; c</pre>');
});

test('a 14 KB minified line: the keyword with 120 characters each side, cut with an ellipsis, and the whole line folded', () => {
  const before = 'x'.repeat(7000);
  const after = 'y'.repeat(7000);
  const html = renderMatchLine(`${before}needle${after}`, 'needle');
  const context = /<pre class="line" id="match">(.*?)<\/pre>/.exec(html)?.[1] ?? '';
  assert.equal(context, `…${'x'.repeat(MATCH_CONTEXT)}<mark>needle</mark>${'y'.repeat(MATCH_CONTEXT)}…`);
  assert.match(html, /<details class="line"><summary>the whole line \(14,006 characters\)<\/summary><pre class="line">x{7000}needley{7000}<\/pre><\/details>$/);
});

test('a line longer than the bound is held only up to it, and says so', () => {
  const html = renderMatchLine(`needle${'z'.repeat(LINE_LIMIT * 2)}`, 'needle');
  assert.match(html, new RegExp(`the whole line \\(${(LINE_LIMIT * 2 + 6).toLocaleString('en-US')} characters, the first ${LINE_LIMIT.toLocaleString('en-US')} shown\\)`));
  assert.ok(html.length < LINE_LIMIT + 1000, `the report holds at most the bound (${html.length})`);
});

test('in chromium the keyword of a minified page is marked on the first screen', { skip: browserSkipReason }, async () => {
  const file = join(temp(), 'kh.html');
  const r = recorder(file, run({ program: 'KeywordHunter', keyword: 'needle', command: ['KeywordHunter', 'http://a.test/', 'needle'], pageDir: undefined }));
  r.consume(exchange('http://a.test/', T0 + 10, 20, 200));
  r.consume({ type: 'response', url: url('http://a.test/'), depth: 1, status: 200 });
  r.consume({ type: 'match', url: url('http://a.test/'), depth: 1, line: Buffer.from(`${'<div class="a">text</div>'.repeat(600)}needle${'<span>more</span>'.repeat(300)}`) });
  r.finish('the keyword was found');
  assert.ok(readFileSync(file, 'utf8').includes('<mark>needle</mark>'));
  await withBrowser(async (page, watch) => {
    await page.goto(`file://${file}`);
    const mark = page.locator('#match mark');
    assert.equal(await mark.textContent(), 'needle');
    const box = await mark.boundingBox();
    const chain = await page.locator('#chain').boundingBox();
    assert.ok(box !== null && chain !== null && box.height > 0, 'the mark is drawn');
    assert.ok(box.y - chain.y < 600, `the mark is near the top of the keyword section (${box.y - chain.y} px below it)`);
    assert.equal(await page.locator('details.line').getAttribute('open'), null, 'the whole line is folded');
    assert.deepEqual(watch.consoleErrors, []);
  });
});
