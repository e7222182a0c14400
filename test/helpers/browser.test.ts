/** The test browser itself (browser.ts): headless chromium renders a page and reports its console errors and requests. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { browserSkipReason, withBrowser } from './browser.js';

test('the test browser renders a page and reports its console errors and requests', { skip: browserSkipReason }, async () => {
  await withBrowser(async (page, watch) => {
    await page.setContent('<title>t</title><p id="x">hello</p><script>console.error("boom")</script>');
    assert.equal(await page.textContent('#x'), 'hello');
    assert.deepEqual(watch.consoleErrors, ['boom']);
    assert.equal(watch.requests.length, 0);
  });
});
