/**
 * Failures in the crawl archive, in process (spec decision "The crawl
 * archive"): a request that never left has no `request` record, only the
 * `metadata` record of its failure; one that left and got no answer has
 * both; a response cut short carries the digest of the payload it recorded,
 * is no earlier capture for a later revisit, and is not in the pages list,
 * which holds the pages the crawl kept. Each archive is read back by warcio
 * and test/helpers/warc-check.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CrawlArchive } from '../../src/archive/crawl-archive.js';
import { CrawlerError } from '../../src/errors.js';
import type { WireExchange } from '../../src/http/wire-exchange.js';
import { parseHttpUrl, type HttpUrl } from '../../src/url/http-url.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, fieldsOf, sha1b32, type CheckedRecord } from '../helpers/warc-check.js';

const { temp } = useTempDirs('archive-failures-');

const T0 = Date.UTC(2026, 0, 1);

/** A wire exchange of `url` as the HTTP client reports it, answered with `response` in full unless `over` says otherwise. */
function exchange(url: HttpUrl, response: string, over: Partial<WireExchange> = {}): WireExchange {
  const bytes = Buffer.from(response, 'latin1');
  const bodyAt = bytes.indexOf('\r\n\r\n') + 4;
  return {
    url,
    method: 'GET',
    ip: '127.0.0.1',
    sent: true,
    startedAt: T0,
    endedAt: T0 + 5,
    request: Buffer.from(`GET ${url.target} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`),
    response: bytes,
    payload: bytes.length === 0 ? undefined : bytes.subarray(bodyAt),
    status: bytes.length === 0 ? 0 : Number(response.slice(9, 12)),
    reused: false,
    ...over,
  };
}

async function archiveOf(feed: (archive: CrawlArchive) => void): Promise<{ records: CheckedRecord[]; pages: string[] }> {
  const path = join(temp(), 'a.warc');
  const archive = await CrawlArchive.open({ path, maxSize: 1e9, resume: false, ordered: true, robots: 'obey', userAgent: 'ua', commandLine: ['crawler'] });
  feed(archive);
  const summary = await archive.finish();
  return { records: await checkArchive([path]), pages: summary.pages.map((p) => p.url) };
}

const of = (records: readonly CheckedRecord[], uri: string): string[] => records.filter((r) => r.headers.get('warc-target-uri') === uri).map((r) => r.type);

test('a request that never left (refused) has no request record, only the metadata record of its failure; one that left and got no answer has both', async () => {
  const refused = parseHttpUrl('http://127.0.0.1:9/refused');
  const silent = parseHttpUrl('http://h.example/silent');
  const { records } = await archiveOf((a) => {
    a.consume({ type: 'exchange', exchange: exchange(refused, '', { ip: undefined, sent: false, error: new CrawlerError('ERR_CONNECT', 'cannot connect: 127.0.0.1:9 (ECONNREFUSED)') }) });
    a.consume({ type: 'exchange', exchange: exchange(silent, '', { error: new CrawlerError('ERR_PREMATURE_CLOSE', 'connection closed before any response byte arrived') }) });
  });
  assert.deepEqual(of(records, refused.key), ['metadata']);
  const never = records.find((r) => r.headers.get('warc-target-uri') === refused.key) as CheckedRecord;
  assert.deepEqual(fieldsOf(never.block)[0], ['fetch-error', 'ERR_CONNECT: cannot connect: 127.0.0.1:9 (ECONNREFUSED)']);
  assert.equal(never.headers.get('warc-concurrent-to'), undefined, 'it names no record: there is none');
  assert.deepEqual(of(records, silent.key), ['request', 'metadata']);
  const [request, why] = records.filter((r) => r.headers.get('warc-target-uri') === silent.key) as [CheckedRecord, CheckedRecord];
  assert.equal(why.headers.get('warc-concurrent-to'), request.headers.get('warc-record-id'));
  assert.equal(request.headers.get('warc-ip-address'), '127.0.0.1');
});

test('a response cut short carries the digest of the payload it recorded, and is no capture for a later revisit to refer to', async () => {
  const cut = parseHttpUrl('http://h.example/cut');
  const whole = parseHttpUrl('http://h.example/whole');
  const part = '<html>the same bytes';
  const { records } = await archiveOf((a) => {
    // 20 of 50 bytes arrived; then a complete response whose payload is those very 20 bytes.
    a.consume({
      type: 'exchange',
      exchange: exchange(cut, `HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n${part}`, { payload: undefined, truncated: 'disconnect', error: new CrawlerError('ERR_SOCKET', 'connection error: ECONNRESET') }),
    });
    a.consume({ type: 'exchange', exchange: exchange(whole, `HTTP/1.1 200 OK\r\nContent-Length: ${part.length}\r\n\r\n${part}`, { startedAt: T0 + 10, endedAt: T0 + 15 }) });
  });
  const [c] = records.filter((r) => r.type === 'response' && r.headers.get('warc-target-uri') === cut.key);
  assert.equal(c?.headers.get('warc-truncated'), 'disconnect');
  assert.equal(c?.headers.get('warc-payload-digest'), sha1b32(Buffer.from(part)));
  assert.deepEqual(of(records, whole.key), ['request', 'response'], 'a whole response, not a revisit of a part of one');
  assert.equal(records.find((r) => r.type === 'response' && r.headers.get('warc-target-uri') === whole.key)?.headers.get('warc-payload-digest'), sha1b32(Buffer.from(part)));
});

test('the pages list holds the pages the crawl kept: not a 200 cut short, nor a failed one; a page cut short and then answered on its retry once', async () => {
  const home = parseHttpUrl('http://h.example/');
  const cut = parseHttpUrl('http://h.example/cut');
  const retried = parseHttpUrl('http://h.example/retried');
  const notHtml = parseHttpUrl('http://h.example/file.pdf');
  const page = (title: string): string => `<html><title>${title}</title></html>`;
  const ok = (body: string): string => `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const reset = new CrawlerError('ERR_SOCKET', 'connection error: ECONNRESET');
  const broken = { payload: undefined, truncated: 'disconnect' as const, error: reset };
  const { pages } = await archiveOf((a) => {
    a.consume({ type: 'exchange', exchange: exchange(home, ok(page('Home'))) });
    a.consume({ type: 'response', url: home, depth: 0, status: 200 });
    a.consume({ type: 'saved', url: home, depth: 0, id: 1 });
    a.consume({ type: 'scanning', url: home, depth: 0 });
    // Cut short: KeywordHunter tells no failed event for it, only the response with its error.
    a.consume({ type: 'exchange', exchange: exchange(cut, 'HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n<html>', broken) });
    a.consume({ type: 'response', url: cut, depth: 1, status: 200, error: reset });
    // Cut short, retried later in the crawl (no failed event), then answered and saved.
    a.consume({ type: 'exchange', exchange: exchange(retried, 'HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n<html>', broken) });
    a.consume({ type: 'response', url: retried, depth: 1, status: 200, error: reset });
    a.consume({ type: 'exchange', exchange: exchange(notHtml, ok('%PDF')) });
    a.consume({ type: 'response', url: notHtml, depth: 1, status: 200 });
    a.consume({ type: 'failed', url: notHtml.key, depth: 1, reason: '(not HTML: application/pdf)' });
    a.consume({ type: 'exchange', exchange: exchange(retried, ok(page('Retried')), { startedAt: T0 + 1000, endedAt: T0 + 1005 }) });
    a.consume({ type: 'response', url: retried, depth: 1, status: 200 });
    a.consume({ type: 'saved', url: retried, depth: 1, id: 2 });
  });
  assert.deepEqual(pages, [home.key, retried.key]);
});
