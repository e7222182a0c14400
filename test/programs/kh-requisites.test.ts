/**
 * KeywordHunter --page-requisites (in process): refused without an archive;
 * with --warc, the protocol on stdout is byte for byte that of the same
 * search without the flag, the archive holds each searched page's
 * requisites once (the page that holds the keyword's too, fetched before
 * the search ends), robots.txt of their host is obeyed, and stderr sums
 * them up in one line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { keywordHunterMain } from '../../src/cli/keyword-hunter.js';
import { isCrawlerError } from '../../src/errors.js';
import { recordingIo } from '../helpers/fakes.js';
import { startSite, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, responseUris } from '../helpers/warc-check.js';

const { temp } = useTempDirs('kh-requisites-');

async function sites(t: import('node:test').TestContext): Promise<{ site: SiteServer; cdn: SiteServer }> {
  const cdn = await startSite({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private/\n' },
    '/logo.png': { headers: { 'content-type': 'image/png' }, body: 'png-logo' },
    '/private/x.png': { headers: { 'content-type': 'image/png' }, body: 'never' },
  }, '127.0.0.2');
  const html = (body: string) => ({ headers: { 'content-type': 'text/html' }, body });
  const site = await startSite({
    '/index.html': html(`<link rel="stylesheet" href="/s.css"><img src="${cdn.origin}/logo.png"><img src="${cdn.origin}/private/x.png"><a href="/two.html">two</a>`),
    '/two.html': html('<link rel="stylesheet" href="/s.css"><img src="/two.png"><p>the needle is here</p>'),
    '/s.css': { headers: { 'content-type': 'text/css' }, body: 'p { background: url(bg.png) }' },
    '/bg.png': { headers: { 'content-type': 'image/png' }, body: 'png-bg' },
    '/two.png': { headers: { 'content-type': 'image/png' }, body: 'png-two' },
  });
  t.after(async () => {
    await site.close();
    await cdn.close();
  });
  return { site, cdn };
}

test('KeywordHunter --page-requisites without --warc or --wacz: one line saying what to add, nothing asked', async (t) => {
  const { site } = await sites(t);
  const rec = recordingIo();
  await assert.rejects(keywordHunterMain(['--page-requisites', `${site.origin}/index.html`, 'needle'], rec.io), (err: unknown) => isCrawlerError(err) && /--page-requisites keeps what it fetches in the archive only: give --warc FILE or --wacz FILE too/.test(err.message));
  assert.deepEqual(site.requests, []);
});

test('KeywordHunter --page-requisites --warc: the protocol as without the flag; every searched page\'s requisites archived once, robots.txt obeyed', async (t) => {
  const { site, cdn } = await sites(t);
  const dir = temp();
  const start = `${site.origin}/index.html`;
  const plain = recordingIo();
  assert.equal(await keywordHunterMain([start, 'needle'], plain.io), 0);
  const warc = join(dir, 'kh.warc');
  const rec = recordingIo();
  assert.equal(await keywordHunterMain(['--page-requisites', '--warc', warc, start, 'needle'], rec.io), 0);
  assert.equal(rec.out(), plain.out(), 'stdout is the protocol, unchanged by the flag');
  assert.match(rec.out(), /^FOUND_KEYWORD:/m);
  const err = rec.stderr.join('');
  assert.match(err, /^KeywordHunter: page requisites: 4 fetched \(\d+ bytes\) for the archive; 1 disallowed by robots\.txt$/m);
  const uris = responseUris(await checkArchive([warc]));
  for (const u of [`${site.origin}/s.css`, `${site.origin}/bg.png`, `${cdn.origin}/logo.png`, `${site.origin}/two.png`]) assert.equal(uris.filter((x) => x === u).length, 1, `${u} archived once: ${uris.join(', ')}`);
  assert.ok(!uris.includes(`${cdn.origin}/private/x.png`));
  assert.ok(!cdn.paths().includes('/private/x.png'), 'robots.txt of the requisite\'s host obeyed');
});
