/**
 * ./crawler end to end with answers that are not HTML and are long (a
 * `.py` file, a download without an extension, chunked): their bodies are
 * not read (the connection is closed before the server could send them),
 * and the crawl's log and page files are byte for byte those of the same
 * crawl when those answers are short and read whole. The archive tells the
 * truth about it: such a response record holds the head, no more, and says
 * WARC-Truncated: length.
 */
import { before, after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { crawl } from '../helpers/crawler-e2e.js';
import { cs50Line } from '../helpers/cs50-log.js';
import { numberedFiles, pageList } from '../helpers/page-files.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import type { RunResult } from '../helpers/spawn.js';
import { UNWANTED_BODY_DRAIN_BYTES } from '../../src/http/response-parser.js';
import { checkArchive, fieldsOf, sha1b32, type CheckedRecord } from '../helpers/warc-check.js';

const { temp: tempDir } = useTempDirs('crawler-nonhtml-');

const LONG = 8 * 1024 * 1024;
const PIECE = 64 * 1024;

/** What the server managed to send of each long answer's body, and whether the client had closed first. */
const sent = new Map<string, { bytes: number; closedEarly: boolean }>();
let long = false;
let site: SiteServer;

/** Writes `total` bytes of body, a piece at a time (paced), until done or the client is gone. */
function stream(path: string, res: ServerResponse, total: number): void {
  let bytes = 0;
  const next = (): void => {
    if (bytes >= total || res.destroyed || res.socket?.destroyed === true) {
      sent.set(path, { bytes, closedEarly: bytes < total });
      if (bytes >= total) res.end();
      return;
    }
    const piece = Buffer.alloc(Math.min(PIECE, total - bytes), 0x23);
    res.write(piece, (err) => {
      if (err == null) bytes += piece.length;
      setTimeout(next, 2);
    });
  };
  next();
}

function answer(path: string, type: string, chunked: boolean): (req: unknown, res: ServerResponse) => void {
  return (_req, res) => {
    const total = long ? LONG : 100;
    res.writeHead(200, { 'content-type': type, ...(chunked ? {} : { 'content-length': String(total) }) });
    stream(path, res, total);
  };
}

before(async () => {
  site = await startSite({
    '/index.html': { body: page('home', ['tool.py', 'download?id=7', 'feed', 'after.html']) },
    '/tool.py': { handle: answer('/tool.py', 'text/x-python', false) },
    '/download?id=7': { handle: answer('/download?id=7', 'application/zip', false) },
    '/feed': { handle: answer('/feed', 'application/octet-stream', true) },
    '/after.html': { body: page('after', ['index.html']) },
  });
});

after(() => site.close());

describe('long answers that are not HTML', () => {
  interface Run {
    r: RunResult;
    dir: string;
    warc: string;
  }
  let short: Run;
  let longRun: Run;
  const u = (p: string): string => `${site.origin}/${p}`;

  const run = async (): Promise<Run> => {
    const dir = tempDir();
    const warc = join(tempDir(), 'crawl.warc');
    return { r: await crawl(['--delay', '0', '--warc', warc, u('index.html'), dir, '1']), dir, warc };
  };
  const responseOf = (records: readonly CheckedRecord[], url: string): CheckedRecord => {
    const found = records.filter((x) => x.type === 'response' && x.headers.get('warc-target-uri') === url);
    assert.equal(found.length, 1, `one response record for ${url}`);
    return found[0] as CheckedRecord;
  };

  before(async () => {
    long = false;
    short = await run();
    sent.clear();
    long = true;
    longRun = await run();
  });

  test('the crawl completes, each such answer a Failed line with its type', () => {
    assert.equal(longRun.r.code, 0, longRun.r.stderr);
    const lines = longRun.r.stdout.split('\n');
    assert.ok(lines.includes(cs50Line(1, 'Failed', u('tool.py'), '(not HTML: text/x-python)')), longRun.r.stdout);
    assert.ok(lines.includes(cs50Line(1, 'Failed', u('download?id=7'), '(not HTML: application/zip)')), longRun.r.stdout);
    assert.ok(lines.includes(cs50Line(1, 'Failed', u('feed'), '(not HTML: application/octet-stream)')), longRun.r.stdout);
    assert.deepEqual(pageList(longRun.dir), [`1 ${u('index.html')} 0`, `2 ${u('after.html')} 1`]);
  });

  test('the server saw the connection closed long before it had sent those bodies', () => {
    for (const path of ['/tool.py', '/download?id=7', '/feed']) {
      const s = sent.get(path);
      assert.ok(s !== undefined, `${path} was answered`);
      assert.ok(s.closedEarly && s.bytes < LONG / 2, `${path}: ${s.bytes} of ${LONG} bytes sent`);
    }
  });

  test('the log and the page files are byte for byte those of the crawl whose answers were short and read whole', () => {
    assert.equal(short.r.code, 0, short.r.stderr);
    assert.equal(longRun.r.stdout, short.r.stdout);
    const words = (x: Run): string => x.r.stderr.replaceAll(x.dir, 'DIR').replaceAll(dirname(x.warc), 'WARCDIR');
    assert.equal(words(longRun), words(short));
    assert.deepEqual(numberedFiles(longRun.dir), numberedFiles(short.dir));
    for (const name of numberedFiles(short.dir)) assert.deepEqual(readFileSync(join(longRun.dir, name)), readFileSync(join(short.dir, name)), `page file ${name}`);
  });

  test('the archive keeps each such response as far as it was read, with WARC-Truncated: length; a short one whole', async () => {
    const records = await checkArchive([longRun.warc]);
    for (const path of ['tool.py', 'download?id=7', 'feed']) {
      const r = responseOf(records, u(path));
      assert.equal(r.headers.get('warc-truncated'), 'length', path);
      if (path === 'feed') {
        // Chunked: the chunks within the threshold were read, up to the size line of the one that passed it.
        assert.match(r.block.toString('latin1'), /\r\n[0-9a-f]+\r\n$/, `${path}: the record ends with a chunk-size line`);
        assert.ok((r.payload?.length ?? -1) <= UNWANTED_BODY_DRAIN_BYTES, `${path}: ${r.payload?.length} bytes of payload recorded`);
      } else {
        assert.ok(r.block.toString('latin1').endsWith('\r\n\r\n'), `${path}: the record ends with the head`);
        assert.equal(r.headers.get('warc-payload-digest'), sha1b32(Buffer.alloc(0)), `${path}: the payload recorded is empty`);
      }
      const page = records.find((x) => x.type === 'metadata' && x.headers.get('warc-target-uri') === u(path) && fieldsOf(x.block).some(([k]) => k === 'failure'));
      assert.ok(page !== undefined && fieldsOf(page.block).some(([k, v]) => k === 'failure' && v.startsWith('(not HTML: ')), `${path}: its page record says why it was not kept`);
      assert.ok(!records.some((x) => x.type === 'metadata' && x.headers.get('warc-target-uri') === u(path) && fieldsOf(x.block).some(([k]) => k === 'fetch-error')), `${path}: no fetch-error: it was no failure to fetch`);
    }
    const whole = responseOf(await checkArchive([short.warc]), u('tool.py'));
    assert.equal(whole.headers.get('warc-truncated'), undefined);
    assert.equal(whole.payload?.length, 100);
  });
});
