/**
 * The report's breadth-first tree, rendered from synthetic crawl events: a
 * failed page's reason is shown beside its status unless it only repeats it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderTree } from '../../src/report/render-tree.js';
import { exchange, recorder, T0, url } from './synthetic.js';

const A = 'http://a.test';

test('a failed page shows its reason beside its status, unless the reason is only that status', () => {
  const r = recorder('r.html');
  for (const e of [
    exchange(`${A}/`, T0 + 10, 5, 200),
    { type: 'response', url: url(`${A}/`), depth: 0, status: 200 },
    { type: 'saved', url: url(`${A}/`), depth: 0, id: 1 },
    { type: 'scanning', url: url(`${A}/`), depth: 0 },
    { type: 'link', depth: 0, raw: '/gone', url: url(`${A}/gone`), action: 'follow' },
    { type: 'link', depth: 0, raw: '/logo', url: url(`${A}/logo`), action: 'follow' },
    exchange(`${A}/gone`, T0 + 20, 5, 404),
    { type: 'response', url: url(`${A}/gone`), depth: 1, status: 404 },
    { type: 'failed', url: `${A}/gone`, depth: 1, reason: '(HTTP 404)' },
    exchange(`${A}/logo`, T0 + 30, 5, 200),
    { type: 'response', url: url(`${A}/logo`), depth: 1, status: 200 },
    { type: 'failed', url: `${A}/logo`, depth: 1, reason: '(not HTML: image/png)' },
  ] as const) {
    r.consume(e);
  }
  const html = renderTree(r.model, 'r.html');
  const line = (path: string): string => html.split('<li').find((li) => li.includes(`${A}${path}<`)) ?? '';
  assert.match(line('/gone'), />404</);
  assert.doesNotMatch(line('/gone'), /HTTP 404|class="why"/);
  assert.match(line('/logo'), /<span class="why">\(not HTML: image\/png\)<\/span>/);
});
