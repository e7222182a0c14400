/**
 * A refresh under --compressed counts what the server did not send again as
 * it would have travelled (issue 43, item 4): the gzip bytes of the earlier
 * answers, counted at the server, not their decoded size.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { gzip } from '../helpers/compressed-bodies.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { page, startSite, type Route } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp } = useTempDirs('refresh-compressed-');

/** A page sent gzipped (when asked for) with an ETag, answered 304 when If-None-Match names it; `sent` counts body bytes. */
function gzipped(body: string, etag: string, sent: { bytes: number }): Route {
  const coded = gzip(body);
  return {
    handle: (req: IncomingMessage, res: ServerResponse) => {
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      const ok = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
      const bytes = ok ? coded : Buffer.from(body);
      sent.bytes += bytes.length;
      res.writeHead(200, { 'content-type': 'text/html', etag, ...(ok ? { 'content-encoding': 'gzip' } : {}) });
      res.end(bytes);
    },
  };
}

test('--compressed --since: "bytes not sent again" is the gzip bytes the first crawl was sent, not the decoded pages', async (t) => {
  const sent = { bytes: 0 };
  const filler = `<p>${'the same words again and again, '.repeat(200)}</p>`;
  const s = await startSite({
    '/': gzipped(page('home', ['/a.html', '/b.html'], filler), '"h"', sent),
    '/a.html': gzipped(page('a', [], filler), '"a"', sent),
    '/b.html': gzipped(page('b', [], filler), '"b"', sent),
  });
  t.after(() => s.close());
  const dir = temp();
  const [old, fresh] = [join(dir, 'old'), join(dir, 'new')];
  mkdirSync(old);
  mkdirSync(fresh);
  const first = await crawl(['--delay', '0', '--compressed', `${s.origin}/`, old, '1']);
  assert.equal(first.code, 0, first.stderr);
  const wire = sent.bytes;
  const decoded = Buffer.byteLength(page('home', ['/a.html', '/b.html'], filler)) + Buffer.byteLength(page('a', [], filler)) + Buffer.byteLength(page('b', [], filler));
  assert.ok(wire * 5 < decoded, `the pages travelled compressed (${wire} of ${decoded} bytes)`);
  sent.bytes = 0;
  const r = await crawl(['--delay', '0', '--compressed', '--since', old, `${s.origin}/`, fresh, '1']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(sent.bytes, 0, 'every page was answered 304');
  assert.match(r.stderr, new RegExp(`refresh of ${old}: 3 unchanged, 0 changed, 0 new, 0 gone; ${wire} bytes not sent again\\n`));
});
