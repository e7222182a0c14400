/**
 * `--compressed` and replay: a crawl with `--compressed --wacz` over a site
 * that sends its pages in gzip and in br keeps those bytes in the archive
 * with their Content-Encoding; ReplayWeb.page in headless chromium decodes
 * them and shows each page with the live page's title and text (the live
 * site closed first, so every byte replayed came out of the WACZ).
 * ReplayWeb.page (2.4.6, 2.5.3 alike) decodes one coding only: a page sent
 * in two (`gzip, br`), which the crawler decodes, replays as bytes (README).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { browserSkipReason } from '../helpers/browser.js';
import { negotiated } from '../helpers/compressed-bodies.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { readPages } from '../helpers/page-files.js';
import { page, startSite } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, fieldsOf } from '../helpers/warc-check.js';
import { assertReplayEqualsLive } from './replay-check.js';
import { replaySkipReason } from './replay-server.js';

const { temp } = useTempDirs('replay-compressed-');

test('crawler --compressed --wacz: a gzip page and a br page replay in ReplayWeb.page as they were live', { skip: browserSkipReason ?? replaySkipReason, timeout: 900_000 }, async (t) => {
  const site = await startSite({
    '/': negotiated(page('Front page, gzip', ['/br.html'], '<p>Sent gzipped over the wire.</p>'), 'gzip'),
    '/br.html': negotiated(page('Second page, br', [], '<p>Sent in brotli over the wire.</p>'), 'br'),
  });
  let open = true;
  const closeSite = async (): Promise<void> => {
    if (open) await site.close();
    open = false;
  };
  t.after(closeSite);
  const dir = temp();
  const pages = join(dir, 'pages');
  mkdirSync(pages);
  const wacz = join(dir, 'compressed.wacz');
  const r = await crawl(['--delay', '0', '--compressed', '--wacz', wacz, `${site.origin}/`, pages, '1'], 60_000);
  assert.equal(r.code, 0, r.stderr);
  const saved = readPages(pages).map((p) => p.url);
  assert.deepEqual(saved, ['/', '/br.html'].map((p) => `${site.origin}${p}`));
  // What is replayed is what came: compressed, with its Content-Encoding.
  const records = await checkArchive([join(dir, 'compressed.warc.gz')]);
  const codings = records.filter((x) => x.type === 'response' && !x.headers.get('warc-target-uri')?.endsWith('/robots.txt')).map((x) => fieldsOf(x.block).find(([n]) => n.toLowerCase() === 'content-encoding')?.[1]);
  assert.deepEqual(codings, ['gzip', 'br']);
  await assertReplayEqualsLive(wacz, saved, { beforeReplay: closeSite });
});
