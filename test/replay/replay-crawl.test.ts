/**
 * Issue 14's replay check on a real crawl: `crawler --wacz` over the
 * built-in demo site (redirect, robots.txt disallow, 404, a 429 answered
 * on the retry), the site closed, then every saved page replayed in
 * ReplayWeb.page in headless chromium with the live page's title and text.
 */
// run-tests: long (53 s: ReplayWeb.page in Chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_SEED_PATH, startDemoSite } from '../../scripts/demo-site.js';
import { browserSkipReason } from '../helpers/browser.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { readPages } from '../helpers/page-files.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { assertReplayEqualsLive } from './replay-check.js';
import { replaySkipReason } from './replay-server.js';

const { temp } = useTempDirs('replay-crawl-');

test('crawler --wacz over the demo site: every saved page replays in ReplayWeb.page as it was live', { skip: browserSkipReason ?? replaySkipReason, timeout: 900_000 }, async () => {
  const site = await startDemoSite();
  let open = true;
  try {
    const dir = temp();
    const pages = join(dir, 'pages');
    mkdirSync(pages);
    const wacz = join(dir, 'demo.wacz');
    const r = await crawl(['--delay', '0', '--wacz', wacz, `${site.origin}${DEMO_SEED_PATH}`, pages, '3'], 60_000);
    assert.equal(r.code, 0, r.stderr);
    const saved = readPages(pages).map((p) => p.url);
    assert.ok(saved.length >= 10, `the demo crawl saved ${saved.length} pages`);
    assert.ok(saved.includes(`${site.origin}/busy.html`), 'the page answered 429 first was saved on its retry');
    await assertReplayEqualsLive(wacz, saved, {
      beforeReplay: async () => {
        await site.close();
        open = false;
      },
    });
  } finally {
    if (open) await site.close();
  }
});
