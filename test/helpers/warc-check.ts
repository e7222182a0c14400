/**
 * Checks an archive the crawler wrote, two ways:
 * - warcio (an independent reader, npm 2.4.11) parses every record of every
 *   file, HTTP headers included;
 * - our own checks, which warcio does not make, written here without the
 *   project's code: each record's Content-Length against its block, CRLF
 *   CRLF after each block, WARC-Block-Digest recomputed over the block,
 *   WARC-Payload-Digest over the HTTP body with this file's own de-chunking
 *   (of a response cut short, over the body as far as it arrived),
 *   every response (and revisit) paired with its request through
 *   WARC-Concurrent-To, a warcinfo first in each file, and, for `.gz`, one
 *   gzip member per record, each gunzippable on its own.
 * Returns the records, for the tests' own questions.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gunzipSync, inflateRawSync } from 'node:zlib';
import { WARCParser } from 'warcio';

export interface CheckedRecord {
  file: string;
  type: string;
  headers: Map<string, string>;
  block: Buffer;
  /** For request, response and revisit records: the HTTP status (responses) and the body with the transfer coding removed. */
  status: number | undefined;
  payload: Buffer | undefined;
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** sha1 in base32 (RFC 4648), written here apart from src/archive/digest.ts. */
export function sha1b32(data: Buffer): string {
  const h = createHash('sha1').update(data).digest();
  let bits = '';
  for (const b of h) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += B32[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return `sha1:${out}`;
}

/**
 * RFC 9112 §7.1 de-chunking, as simply as can be (no limits: test data). A
 * body `cut` short (WARC-Truncated) gives the data of its chunks as far as
 * it arrived: a chunk-size line cut short gives nothing, a chunk cut in its
 * data the part that arrived.
 */
export function dechunk(body: Buffer, cut = false): Buffer {
  const out: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const eol = body.indexOf('\n', pos);
    if (cut && eol === -1) return Buffer.concat(out);
    assert.ok(eol !== -1, 'chunk-size line ends');
    const size = parseInt(body.toString('latin1', pos, eol).split(';')[0]!.trim(), 16);
    assert.ok(Number.isInteger(size), 'chunk size is hex');
    pos = eol + 1;
    if (size === 0) return Buffer.concat(out);
    out.push(body.subarray(pos, pos + size));
    pos += size;
    if (body[pos] === 13) pos++;
    if (cut && pos >= body.length) return Buffer.concat(out);
    assert.equal(body[pos], 10, 'CRLF after chunk data');
    pos++;
  }
}

/**
 * The HTTP message in a block: status (responses), fields and the body after
 * the header section (past any 1xx). A block `cut` short (WARC-Truncated)
 * may end inside its header section: undefined then.
 */
function httpOf(block: Buffer, cut: boolean): { status: number | undefined; fields: string; body: Buffer } | undefined {
  let start = 0;
  for (;;) {
    const end = block.indexOf('\r\n\r\n', start);
    if (cut && end === -1) return undefined;
    assert.ok(end !== -1, 'the HTTP header section ends');
    const head = block.toString('latin1', start, end);
    const status = /^HTTP\/\d\.\d (\d{3})/.exec(head)?.[1];
    if (status !== undefined && status[0] === '1') {
      start = end + 4;
      continue;
    }
    return { status: status === undefined ? undefined : Number(status), fields: head, body: block.subarray(end + 4) };
  }
}

/** Splits a .gz file into its members (by inflating, not by any length we wrote), each checked gunzippable alone. */
export function gzipMembers(file: Buffer): Buffer[] {
  const members: Buffer[] = [];
  let pos = 0;
  while (pos < file.length) {
    assert.equal(file[pos], 0x1f);
    assert.equal(file[pos + 1], 0x8b);
    const flags = file[pos + 3] as number;
    let p = pos + 10;
    if (flags & 4) p += 2 + file.readUInt16LE(p);
    if (flags & 8) p = file.indexOf(0, p) + 1;
    if (flags & 16) p = file.indexOf(0, p) + 1;
    if (flags & 2) p += 2;
    const { engine } = inflateRawSync(file.subarray(p), { info: true }) as unknown as { engine: { bytesWritten: number } };
    const end = p + engine.bytesWritten + 8;
    const member = file.subarray(pos, end);
    gunzipSync(member); // each member alone (its CRC and length checked)
    members.push(member);
    pos = end;
  }
  return members;
}

/** Our own walk over a file's records (decompressed), checking Content-Length and the CRLF CRLF after each block. */
function walk(file: string, data: Buffer, gz: boolean): CheckedRecord[] {
  const pieces = gz ? gzipMembers(data).map((m) => gunzipSync(m)) : [data];
  const out: CheckedRecord[] = [];
  for (const piece of pieces) {
    let pos = 0;
    let inPiece = 0;
    while (pos < piece.length) {
      const headEnd = piece.indexOf('\r\n\r\n', pos);
      assert.ok(headEnd !== -1, `${file}: a record header ends`);
      const lines = piece.toString('utf8', pos, headEnd).split('\r\n');
      assert.equal(lines[0], 'WARC/1.1', `${file}: version line`);
      const headers = new Map<string, string>();
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':');
        headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
      }
      const length = Number(headers.get('content-length'));
      assert.ok(Number.isInteger(length), `${file}: Content-Length`);
      const block = piece.subarray(headEnd + 4, headEnd + 4 + length);
      assert.equal(block.length, length, `${file}: the block is as long as Content-Length says`);
      assert.equal(piece.toString('latin1', headEnd + 4 + length, headEnd + 8 + length), '\r\n\r\n', `${file}: CRLF CRLF after the block`);
      pos = headEnd + 8 + length;
      inPiece++;
      const type = headers.get('warc-type') as string;
      let status: number | undefined;
      let payload: Buffer | undefined;
      if (type === 'request' || type === 'response' || type === 'revisit') {
        const cut = headers.has('warc-truncated') && type === 'response';
        const http = httpOf(block, cut);
        status = http?.status;
        if (http !== undefined) {
          const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(`\r\n${http.fields}`) && type !== 'revisit';
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(`\r\n${http.fields}`)?.[1];
          payload = chunked ? dechunk(http.body, cut) : cut && length !== undefined ? http.body.subarray(0, Number(length)) : http.body;
        }
      }
      out.push({ file, type, headers, block, status, payload });
    }
    if (gz) assert.equal(inPiece, 1, `${file}: one record per gzip member`);
  }
  return out;
}

/** warcio parses every record of `path`, reading each fully; returns their WARC-Record-IDs in order. */
async function warcioIds(path: string): Promise<string[]> {
  const ids: string[] = [];
  const parser = new WARCParser([readFileSync(path)]);
  for await (const record of parser) {
    await record.readFully(false);
    if (record.warcType === 'response' || record.warcType === 'request' || record.warcType === 'revisit') {
      assert.ok(record.httpHeaders !== null, `warcio read the HTTP headers of ${record.warcType} ${record.warcTargetURI}`);
    }
    ids.push(record.warcHeader('WARC-Record-ID') as string);
  }
  return ids;
}

/** Checks every file of an archive (in order); returns all their records. */
export async function checkArchive(paths: readonly string[]): Promise<CheckedRecord[]> {
  const all: CheckedRecord[] = [];
  for (const path of paths) {
    const records = walk(path, readFileSync(path), path.endsWith('.gz'));
    assert.ok(records.length > 0, `${path} holds records`);
    assert.equal(records[0]?.type, 'warcinfo', `${path} starts with a warcinfo`);
    assert.deepEqual(await warcioIds(path), records.map((r) => r.headers.get('warc-record-id')), `warcio reads ${path} as we do`);
    all.push(...records);
  }
  const byId = new Map(all.map((r) => [r.headers.get('warc-record-id') as string, r]));
  assert.equal(byId.size, all.length, 'record IDs are unique');
  for (const r of all) {
    const h = r.headers;
    assert.match(h.get('warc-record-id') ?? '', /^<urn:uuid:[0-9a-f-]{36}>$/);
    assert.match(h.get('warc-date') ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'WARC-Date with fractional seconds');
    assert.equal(h.get('warc-block-digest'), sha1b32(r.block), `block digest of ${r.type} ${h.get('warc-target-uri')}`);
    if (r.type === 'warcinfo') continue;
    const uri = h.get('warc-target-uri') ?? '';
    assert.match(uri, /^https?:\/\/[^<>\s]+$/, 'WARC-Target-URI without angle brackets');
    if (r.type === 'response' && h.get('warc-payload-digest') !== undefined) {
      assert.equal(h.get('warc-payload-digest'), sha1b32(r.payload as Buffer), `payload digest of ${uri}`);
    }
    if (r.type === 'response' || r.type === 'revisit') {
      assert.equal(h.get('content-type'), 'application/http;msgtype=response');
      const request = byId.get(h.get('warc-concurrent-to') ?? '');
      assert.equal(request?.type, 'request', `the response of ${uri} is paired with a request`);
      assert.equal(request?.headers.get('warc-concurrent-to'), h.get('warc-record-id'), 'and the request names it back');
      assert.equal(request?.headers.get('warc-target-uri'), uri);
      assert.equal(request?.headers.get('warc-ip-address'), h.get('warc-ip-address'));
    }
    // A refresh of a crawl that kept no archive has no record to refer to: only the URL (WARC 1.1 §6.7.3 makes the rest optional).
    if (r.type === 'revisit' && h.get('warc-refers-to') === undefined) {
      assert.equal(h.get('warc-profile'), 'http://netpreserve.org/warc/1.1/revisit/server-not-modified', `only a server-not-modified revisit refers to no record (${uri})`);
      assert.equal(h.get('warc-refers-to-target-uri'), uri);
    } else if (r.type === 'revisit') {
      const original = byId.get(h.get('warc-refers-to') ?? '');
      assert.equal(original?.type, 'response', 'a revisit refers to a response');
      assert.equal(original?.headers.get('warc-payload-digest'), h.get('warc-payload-digest'));
      assert.equal(original?.headers.get('warc-target-uri'), h.get('warc-refers-to-target-uri'));
      assert.equal(original?.headers.get('warc-date'), h.get('warc-refers-to-date'));
    }
    if (r.type === 'request') assert.equal(h.get('content-type'), 'application/http;msgtype=request');
  }
  return all;
}

/** The `name: value` lines of a warc-fields block. */
export function fieldsOf(block: Buffer): Array<[string, string]> {
  return block
    .toString('utf8')
    .split('\r\n')
    .filter((l) => l !== '')
    .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]);
}

/** The target URIs of response records (not revisits), in order. */
export function responseUris(records: readonly CheckedRecord[]): string[] {
  return records.filter((r) => r.type === 'response').map((r) => r.headers.get('warc-target-uri') as string);
}
