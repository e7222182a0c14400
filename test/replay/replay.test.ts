/**
 * Replay in a real browser (issue 14): a WACZ made by writeCdxj + writeWacz
 * from WARCs of a loopback test site opens in ReplayWeb.page (npm
 * replaywebpage 2.4.6, served on loopback) in headless chromium, and each
 * replayed page has the title and text of the live one. The live site is
 * closed before replay, so every byte replayed came out of the WACZ; the
 * `dup.html` capture is a revisit record, which replays only if the index
 * leads the app to the original.
 */
// run-tests: long (12 s: ReplayWeb.page in Chromium)
import { test } from 'node:test';
import { join } from 'node:path';
import { writeCdxj } from '../../src/archive/cdxj.js';
import { writeWacz } from '../../src/archive/wacz.js';
import { browserSkipReason } from '../helpers/browser.js';
import { startSite } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { capture, FIXTURE_PATHS, fixtureSite, writeWarcFixtures } from '../helpers/warc-fixtures.js';
import { assertReplayEqualsLive } from './replay-check.js';
import { replaySkipReason } from './replay-server.js';

const dirs = useTempDirs('replay-');

test('a WACZ of a loopback site replays in ReplayWeb.page with the live pages\' titles and text', { skip: browserSkipReason ?? replaySkipReason, timeout: 600_000 }, async () => {
  const site = await startSite(fixtureSite());
  let open = true;
  try {
    const dir = dirs.temp();
    const captures = await capture(FIXTURE_PATHS.map((p) => site.origin + p));
    const fx = await writeWarcFixtures(dir, captures, 'crawl');
    // the plain WARC: writeWacz gzips it per record and re-points the index
    const cdxj = join(dir, 'crawl.cdxj');
    await writeCdxj([fx.plain], cdxj);
    const wacz = join(dir, 'crawl.wacz');
    const pages = ['/', '/about.html', '/dup.html', '/q?b=2&a=1', '/chunked.html'].map((p) => {
      const c = captures.find((x) => x.url === site.origin + p);
      return { url: site.origin + p, ts: c?.date ?? '' };
    });
    await writeWacz({ out: wacz, warcPaths: [fx.plain], cdxjPath: cdxj, pages, title: 'Replay test', software: 'polite-crawler tests' });
    await assertReplayEqualsLive(
      wacz,
      pages.map((p) => p.url),
      {
        beforeReplay: async () => {
          await site.close();
          open = false;
        },
      },
    );
  } finally {
    if (open) await site.close();
  }
});
