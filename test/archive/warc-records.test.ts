/**
 * The crawl archive (spec decision "The crawl archive"), run in process
 * through each program's main: every exchange a request/response pair byte
 * for byte as on the wire, robots.txt and every redirect hop included; a
 * payload seen before a revisit; a metadata record per page (depth, via,
 * outlinks); failures kept as evidence (WARC-Truncated, a metadata record
 * after a request that got no answer); rotation by size and gzip members;
 * a file that is not ours never overwritten. Every archive is read by
 * warcio and by test/helpers/warc-check.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WARCParser } from 'warcio';
import { keywordHunterMain } from '../../src/cli/keyword-hunter.js';
import { crawlerMain } from '../../src/cli/crawler.js';
import { isCrawlerError } from '../../src/errors.js';
import { recordingIo } from '../helpers/fakes.js';
import { startRaw } from '../helpers/raw-server.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page, startSite } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, fieldsOf, responseUris, sha1b32, type CheckedRecord } from '../helpers/warc-check.js';
import { waczPages } from './wacz-read.js';

const { temp } = useTempDirs('warc-records-');

function chunk(data: string, ext = ''): string {
  return `${data.length.toString(16)}${ext}\r\n${data}\r\n`;
}
const CHUNKED_START =
  'HTTP/1.1 200 OK\r\n' +
  'Content-Type: text/html\r\n' +
  'X-Folded: first part\r\n' +
  '\tcontinued on a second line\r\n' +
  'Transfer-Encoding: chunked\r\n' +
  'Trailer: X-Checksum\r\n' +
  '\r\n' +
  chunk('<html><title>Start</t') +
  chunk('itle><a href="/second">2</a>\n', ';ext=1') +
  chunk('</html>') +
  '0\r\n' +
  'X-Checksum: abc\r\n' +
  '\r\n';
const SECOND_BODY = '<html><title>Second</title>kept alive on one connection</html>';
const SECOND = `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${SECOND_BODY.length}\r\n\r\n${SECOND_BODY}`;
const NO_ROBOTS = 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n';

function byType(records: readonly CheckedRecord[], type: string, uri?: string): CheckedRecord[] {
  return records.filter((r) => r.type === type && (uri === undefined || r.headers.get('warc-target-uri') === uri));
}

test('byte-exact: a chunked response with folded headers and trailers, then a keep-alive Content-Length one, each stored as the bytes sent; each request as the bytes received', async (t) => {
  const sent: string[] = [];
  const server = await startRaw(async (conn) => {
    for (let head = await conn.nextRequest(); head !== undefined; head = await conn.nextRequest()) {
      const path = head.split(' ')[1];
      const answer = path === '/robots.txt' ? NO_ROBOTS : path === '/start' ? CHUNKED_START : SECOND;
      sent.push(answer);
      if (answer === CHUNKED_START) {
        // In pieces that split lines and chunks.
        for (let i = 0; i < answer.length; i += 37) {
          conn.socket.write(answer.slice(i, i + 37));
          await sleep(2);
        }
      } else conn.socket.write(answer);
    }
  });
  t.after(() => server.close());
  const dir = temp();
  const warc = join(dir, 'exact.warc');
  const { io, out } = recordingIo();
  assert.equal(await keywordHunterMain(['--warc', warc, `${server.origin}/start`, 'no such keyword'], io), 0);
  assert.match(out(), /NOT_FOUND_KEYWORD:/);
  assert.equal(server.connections.length, 1, 'one kept-alive connection');
  const records = await checkArchive([warc]);
  const responses = byType(records, 'response');
  assert.deepEqual(responses.map((r) => r.block.toString('latin1')), sent, 'each response block is the bytes sent, to the byte');
  const requests = byType(records, 'request');
  assert.equal(requests.map((r) => r.block.toString('latin1')).join(''), server.connections[0]?.received().toString('latin1'), 'the request blocks are the bytes received');
  const start = responses[1] as CheckedRecord;
  assert.equal(start.payload?.toString('latin1'), '<html><title>Start</title><a href="/second">2</a>\n</html>');
  assert.equal(start.headers.get('warc-ip-address'), '127.0.0.1');
  assert.equal(start.headers.get('warc-target-uri'), `${server.origin}/start`);
  const info = fieldsOf(records[0]?.block as Buffer);
  assert.deepEqual(info.map(([k]) => k).slice(0, 6), ['software', 'format', 'conformsTo', 'robots', 'http-header-user-agent', 'command-line']);
  assert.match(info[0]?.[1] ?? '', /^polite-crawler\/\d/);
  assert.equal(info[1]?.[1], 'WARC File Format 1.1');
  assert.equal(info[4]?.[1], 'ee122-KeywordHunter');
  assert.match(info[5]?.[1] ?? '', /^KeywordHunter --warc \S+exact\.warc http:\/\/127\.0\.0\.1:\d+\/start "no such keyword"$/);
});

test('KeywordHunter through robots.txt and a redirect chain: every hop a request/response pair, a repeated payload a revisit, a metadata record per page', async (t) => {
  const same = page('Same', ['/private/x.html', '/d.html']);
  const site = await startSite({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' },
    '/a.html': { status: 301, headers: { location: '/b.html' }, body: 'moved' },
    '/b.html': { status: 302, headers: { location: '/c.html' }, body: 'found' },
    '/c.html': { body: same },
    '/d.html': { body: same },
  });
  t.after(() => site.close());
  const dir = temp();
  const warc = join(dir, 'chain.warc.gz');
  const { io } = recordingIo();
  assert.equal(await keywordHunterMain(['--warc', warc, `${site.origin}/a.html`, 'absent'], io), 0);
  const records = await checkArchive([warc]);
  const o = site.origin;
  assert.deepEqual(
    byType(records, 'request').map((r) => r.headers.get('warc-target-uri')),
    [`${o}/robots.txt`, `${o}/a.html`, `${o}/b.html`, `${o}/c.html`, `${o}/d.html`],
    'every request, robots.txt and each hop',
  );
  assert.deepEqual(responseUris(records), [`${o}/robots.txt`, `${o}/a.html`, `${o}/b.html`, `${o}/c.html`]);
  assert.deepEqual(byType(records, 'response').map((r) => r.status), [200, 301, 302, 200]);
  const [revisit] = byType(records, 'revisit');
  assert.equal(revisit?.headers.get('warc-target-uri'), `${o}/d.html`);
  assert.equal(revisit?.headers.get('warc-profile'), 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
  assert.equal(revisit?.headers.get('warc-refers-to-target-uri'), `${o}/c.html`);
  assert.match(revisit?.block.toString('latin1') ?? '', /^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n$/, 'the revisit keeps the header section only');
  const meta = (uri: string): Array<[string, string]> => fieldsOf(byType(records, 'metadata', uri)[0]?.block as Buffer);
  assert.deepEqual(meta(`${o}/a.html`), [['depth', '1'], ['outlink', `${o}/b.html`]]);
  assert.deepEqual(meta(`${o}/c.html`), [['depth', '1'], ['via', `${o}/b.html`], ['outlink', `${o}/private/x.html`], ['outlink', `${o}/d.html`]]);
  assert.deepEqual(meta(`${o}/d.html`), [['depth', '2'], ['via', `${o}/c.html`], ['outlink', `${o}/private/x.html`], ['outlink', `${o}/d.html`]]);
  const c = byType(records, 'response', `${o}/c.html`)[0];
  assert.equal(byType(records, 'metadata', `${o}/c.html`)[0]?.headers.get('warc-concurrent-to'), c?.headers.get('warc-record-id'), 'the page metadata names its response');
});

/** warcio's reading of the response records of `path` cut short: target URI and the content it decodes (chunked framing removed). */
async function warcioTruncated(path: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for await (const record of new WARCParser([readFileSync(path)])) {
    if (record.warcType !== 'response' || record.warcHeader('WARC-Truncated') === undefined) {
      await record.readFully(false);
      continue;
    }
    out.set(record.warcTargetURI ?? '', Buffer.from(await record.readFully(true)));
  }
  return out;
}

test('failures are evidence: a response cut short keeps the digest of what arrived, a request that left and got no answer a request and a metadata record, one that never left (refused) only the metadata record', async (t) => {
  const port = await refusedPort();
  const cutHead = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n\r\n';
  const chunkedHead = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n';
  // The second chunk says 0x40 bytes and only 13 arrive.
  const chunkedCut = `${chunkedHead}${chunk('<html><title>Cut</title>')}40\r\nonly part of `;
  const server = await startRaw(async (conn) => {
    for (let head = await conn.nextRequest(); head !== undefined; head = await conn.nextRequest()) {
      const path = head.split(' ')[1];
      if (path === '/robots.txt') conn.socket.write(NO_ROBOTS);
      else if (path === '/start') {
        const links = ['/cut', '/chunked-cut', '/silent', `http://127.0.0.1:${port}/x`].map((l) => `<a href="${l}">l</a>`).join(' ');
        const body = `<html><title>Start</title>${links}</html>`;
        conn.socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      } else if (path === '/silent') {
        // The request arrived; no answer comes.
        conn.socket.end();
        return;
      } else {
        conn.socket.write(path === '/cut' ? `${cutHead}<html>the first part only` : chunkedCut);
        await sleep(20);
        conn.socket.resetAndDestroy();
        return;
      }
    }
  });
  t.after(() => server.close());
  const dir = temp();
  const warc = join(dir, 'fail.warc');
  const wacz = join(dir, 'fail.wacz');
  const { io } = recordingIo();
  assert.equal(await keywordHunterMain(['--warc', warc, '--wacz', wacz, `${server.origin}/start`, 'absent'], io), 0);
  const records = await checkArchive([warc]);
  const o = server.origin;

  // Cut short: the bytes that arrived, and the digest of the payload they hold.
  const cut = byType(records, 'response', `${o}/cut`)[0];
  assert.equal(cut?.headers.get('warc-truncated'), 'disconnect');
  assert.equal(cut?.block.toString('latin1'), `${cutHead}<html>the first part only`);
  assert.equal(cut?.headers.get('warc-payload-digest'), sha1b32(Buffer.from('<html>the first part only')));
  const chunked = byType(records, 'response', `${o}/chunked-cut`)[0];
  assert.equal(chunked?.headers.get('warc-truncated'), 'disconnect');
  assert.equal(chunked?.block.toString('latin1'), chunkedCut);
  assert.equal(chunked?.headers.get('warc-payload-digest'), sha1b32(Buffer.from('<html><title>Cut</title>only part of ')), 'the chunks\' data as far as it arrived');
  // warcio, reading the records on its own, decodes the same payloads.
  const decoded = await warcioTruncated(warc);
  assert.equal(sha1b32(decoded.get(`${o}/cut`) as Buffer), cut?.headers.get('warc-payload-digest'));
  assert.equal(sha1b32(decoded.get(`${o}/chunked-cut`) as Buffer), chunked?.headers.get('warc-payload-digest'));
  // The index carries those digests.
  const index = readFileSync(join(dir, 'fail.cdxj'), 'utf8').trim().split('\n').map((l) => JSON.parse(l.slice(l.indexOf(' {') + 1)) as Record<string, string>);
  for (const r of [cut, chunked]) {
    const line = index.find((l) => l['url'] === r?.headers.get('warc-target-uri'));
    assert.equal(line?.['digest'], r?.headers.get('warc-payload-digest'), `the index line of ${line?.['url']}`);
  }

  // Why each failed: a metadata record with the reason.
  const why = (uri: string): CheckedRecord | undefined => byType(records, 'metadata', uri).find((r) => fieldsOf(r.block).some(([k]) => k === 'fetch-error'));
  // Sent, no answer: the request record, then the reason, naming it.
  const silent = `${o}/silent`;
  assert.equal(byType(records, 'request', silent).length, 1);
  assert.equal(byType(records, 'response', silent).length, 0);
  assert.match(fieldsOf(why(silent)?.block as Buffer)[0]?.[1] ?? '', /^ERR_PREMATURE_CLOSE: /);
  assert.equal(why(silent)?.headers.get('warc-concurrent-to'), byType(records, 'request', silent)[0]?.headers.get('warc-record-id'));
  assert.ok(records.indexOf(why(silent) as CheckedRecord) > records.indexOf(byType(records, 'request', silent)[0] as CheckedRecord), 'the reason follows the request');
  // Never sent: no request record (none of its bytes reached a server), only the reason, naming no record.
  const refused = `http://127.0.0.1:${port}/x`;
  assert.equal(byType(records, 'request', refused).length, 0);
  assert.equal(byType(records, 'response', refused).length, 0);
  assert.match(fieldsOf(why(refused)?.block as Buffer)[0]?.[1] ?? '', /^ERR_CONNECT: cannot connect to 127\.0\.0\.1:\d+: connection refused$/);
  assert.equal(why(refused)?.headers.get('warc-concurrent-to'), undefined);
  assert.equal(why(refused)?.headers.get('warc-ip-address'), undefined);

  // The pages list holds the page searched, not the ones cut short.
  assert.deepEqual((await waczPages(wacz)).map((p) => p.url), [`${o}/start`]);
});

test('--warc-max-size rotates to NAME-00002.warc.gz and on, each file starting with a warcinfo, every member gunzippable alone', async (t) => {
  const routes: Record<string, { body: string }> = {};
  const N = 24;
  const all = Array.from({ length: N }, (_, i) => `/p${i}.html`);
  for (let i = 0; i < N; i++) routes[`/p${i}.html`] = { body: page(`Page ${i}`, i === 0 ? all : ['/p0.html'], `<p>${'text '.repeat(40)} ${i}</p>`) };
  const site = await startSite(routes);
  t.after(() => site.close());
  const dir = temp();
  const pages = join(dir, 'pages');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(pages);
  const warc = join(dir, 'crawl.warc.gz');
  const { io } = recordingIo();
  assert.equal(await crawlerMain(['-q', '--delay', '0', '--warc', warc, '--warc-max-size', '3KiB', `${site.origin}/p0.html`, pages, '1'], io), 0);
  const files = readdirSync(dir).filter((n) => n.startsWith('crawl') && n.endsWith('.warc.gz')).sort();
  assert.ok(existsSync(join(dir, 'crawl.cdxj')), 'the index of the whole series beside its first file');
  assert.ok(files.length >= 4, `rotated into several files: ${files.join(' ')}`);
  assert.equal(files[0], 'crawl-00002.warc.gz');
  assert.ok(files.includes('crawl.warc.gz'));
  const ordered = ['crawl.warc.gz', ...files.filter((f) => f !== 'crawl.warc.gz')].map((f) => join(dir, f));
  const records = await checkArchive(ordered);
  for (const f of ordered) {
    const size = statSync(f).size;
    const count = (await checkArchive([f])).length;
    assert.ok(size <= 3 * 1024 || count <= 2, `${f}: ${size} bytes in ${count} records`);
  }
  const uris = new Set(responseUris(records));
  for (let i = 0; i < N; i++) assert.ok(uris.has(`${site.origin}/p${i}.html`), `page ${i} archived`);
});

test('an existing file that is not an archive of ours is refused with one line and left as it was; one of ours is replaced', async (t) => {
  const site = await startSite({ '/': { body: page('Home') } });
  t.after(() => site.close());
  const dir = temp();
  const warc = join(dir, 'theirs.warc');
  writeFileSync(warc, 'WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 20\r\n\r\nsoftware: wget/1.21\r\n\r\n\r\n');
  const before = readFileSync(warc);
  await assert.rejects(keywordHunterMain(['--warc', warc, `${site.origin}/`, 'Home'], recordingIo().io), (err: unknown) => {
    assert.ok(isCrawlerError(err, 'ERR_WRITE'));
    assert.match(err.message, /^--warc: \S+theirs\.warc exists and is not an archive this program wrote; not overwriting it$/);
    return true;
  });
  assert.deepEqual(readFileSync(warc), before);
  assert.equal(site.requests.length, 0, 'refused before any request');
  const ours = join(dir, 'ours.warc');
  for (let run = 0; run < 2; run++) assert.equal(await keywordHunterMain(['--warc', ours, `${site.origin}/`, 'Home'], recordingIo().io), 0);
  const records = await checkArchive([ours]);
  assert.equal(byType(records, 'warcinfo').length, 1, 'the second run replaced the first');
  assert.ok(existsSync(ours));
});
