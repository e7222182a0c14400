/**
 * A refresh's archive replays (issue 31): `crawler --wacz` over a small site
 * served with validators, one page changed, then `crawler --since --wacz`
 * into a new pageDirectory. The refresh's package, opened alone as a user
 * would open it, replays every page at the refresh's own capture, in
 * ReplayWeb.page in headless chromium, as it was live: the unchanged pages
 * through their server-not-modified revisits, which find the earlier
 * crawl's records in the same package; the changed page from its new
 * response. The site is closed before the replay.
 */
// run-tests: long (14 s: ReplayWeb.page in Chromium)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { staticServer } from '../../bench/static-server.js';
import { browserSkipReason } from '../helpers/browser.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { readPages } from '../helpers/page-files.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { assertReplayEqualsLive } from './replay-check.js';
import { replaySkipReason } from './replay-server.js';

const { temp } = useTempDirs('replay-refresh-');

const SITE: Record<string, string[]> = { 'index.html': ['a.html', 'b.html'], 'a.html': ['c.html'], 'b.html': ['c.html'], 'c.html': [] };

function html(name: string, links: readonly string[], words: string): string {
  return `<!doctype html><html><head><title>${name}: ${words}</title></head><body><h1>${name}</h1><p>${words}</p>\n${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}\n</body></html>\n`;
}

test('a refresh\'s WACZ replays every page as it was live, the unchanged ones through their revisits of the earlier records', { skip: browserSkipReason ?? replaySkipReason, timeout: 900_000 }, async () => {
  const root = temp();
  for (const [name, links] of Object.entries(SITE)) writeFileSync(join(root, name), html(name, links, 'as first crawled'));
  const server = staticServer(root, { validators: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let open = true;
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      open = false;
      server.closeAllConnections();
      server.close(() => resolve());
    });
  try {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dir = temp();
    const [old, fresh] = [join(dir, 'old'), join(dir, 'new')];
    mkdirSync(old);
    mkdirSync(fresh);
    const first = await crawl(['--delay', '0', '-q', '--wacz', join(dir, 'old.wacz'), `${origin}/index.html`, old, '3'], 60_000);
    assert.equal(first.code, 0, first.stderr);
    const b = join(root, 'b.html');
    writeFileSync(b, html('b.html', SITE['b.html'] as string[], 'changed since'));
    const later = new Date(statSync(b).mtimeMs + 10_000);
    utimesSync(b, later, later);
    const wacz = join(dir, 'new.wacz');
    const r = await crawl(['--delay', '0', '-q', '--since', old, '--wacz', wacz, `${origin}/index.html`, fresh, '3'], 60_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /with the earlier crawl's archive \(1 file\)/);
    // Each page's capture in the refresh's own archive: a revisit for the unchanged, a response for b.html.
    const timestamps = new Map<string, string>();
    const kinds: string[] = [];
    for (const line of readFileSync(join(dir, 'new.cdxj'), 'utf8').trim().split('\n')) {
      const [, ts, json] = /^\S+ (\d{14}) (\{.*\})$/.exec(line) ?? [];
      const fields = JSON.parse(json as string) as { url: string; mime?: string };
      if (fields.url.endsWith('.html')) {
        timestamps.set(fields.url, ts as string);
        kinds.push(`${fields.url.slice(origin.length)} ${fields.mime}`);
      }
    }
    assert.deepEqual(kinds.sort(), ['/a.html warc/revisit', '/b.html text/html', '/c.html warc/revisit', '/index.html warc/revisit']);
    const urls = readPages(fresh).map((p) => p.url);
    assert.equal(urls.length, 4);
    await assertReplayEqualsLive(wacz, urls, { timestamps, beforeReplay: close });
  } finally {
    if (open) await close();
  }
});
