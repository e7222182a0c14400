/**
 * WARC files for the index and package tests, made before our own writer
 * exists and independently of it: real responses of a loopback test server,
 * serialized by warcio (WARCRecord.create + WARCSerializer), both as a plain
 * `.warc` and as a `.warc.gz` of one gzip member per record (warcio gzips
 * each record it serializes on its own).
 *
 * Each capture becomes a `request` and a `response` record, or a `revisit`
 * (identical-payload-digest profile) when its body repeats an earlier one,
 * then a `metadata` record (`application/warc-fields`) with its outlinks; a
 * `warcinfo` record comes first. Answers are read off a raw socket, so a
 * chunked one is stored with its framing, as our writer stores it.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { WARCRecord } from 'warcio';
import { WARCSerializer } from 'warcio/node';
import { after, before } from 'node:test';
import { page, startSite, type Route, type SiteServer } from './site-server.js';
import { useTempDirs } from './temp-dirs.js';

/** One exchange with the test server, as it was answered. */
export interface Capture {
  url: string;
  /** WARC-Date of the exchange (the fixtures space them a second apart). */
  date: string;
  status: number;
  statusText: string;
  /** Response header fields in order, names as sent. */
  headers: [string, string][];
  /** The body as sent: with its chunked framing when it was chunked. */
  body: Buffer;
}

/** Fetches each of `urls` once (GET, no redirects followed) and dates the answers a second apart from `start`. */
export async function capture(urls: readonly string[], start = Date.parse('2026-12-01T10:00:00.250Z')): Promise<Capture[]> {
  const out: Capture[] = [];
  for (const [i, url] of urls.entries()) {
    const got = await httpGet(url);
    out.push({ ...got, url, date: new Date(start + i * 1000).toISOString() });
  }
  return out;
}

/**
 * One GET over a raw socket (`Connection: close`, read until the server
 * closes): the answer exactly as it came off the wire, chunked framing
 * included, which is what a response record holds.
 */
function httpGet(url: string): Promise<Omit<Capture, 'url' | 'date'>> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: target.hostname, port: Number(target.port) }, () => {
      socket.write(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: close\r\n\r\n`);
    });
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const raw = Buffer.concat(chunks);
      const end = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
      const m = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine);
      if (end < 0 || m === null) {
        reject(new Error(`not an HTTP response from ${url}`));
        return;
      }
      const headers = lines.map((l): [string, string] => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]);
      resolve({ status: Number(m[1]), statusText: m[2] ?? '', headers, body: raw.subarray(end + 4) });
    });
  });
}

const DIGEST = { algo: 'sha-1', prefix: 'sha1:', base32: true } as const;

/** WARC/1.1 records (warcio's) for `captures`, in crawl order. */
export function fixtureRecords(captures: readonly Capture[]): WARCRecord[] {
  const records: WARCRecord[] = [
    WARCRecord.createWARCInfo(
      { filename: 'fixture.warc', warcVersion: 'WARC/1.1' },
      { software: 'polite-crawler test fixtures (warcio)', format: 'WARC File Format 1.1' },
    ),
  ];
  const seen = new Map<string, Capture>();
  for (const c of captures) {
    const target = new URL(c.url);
    const request = WARCRecord.create(
      {
        url: c.url,
        date: c.date,
        type: 'request',
        warcVersion: 'WARC/1.1',
        statusline: `GET ${target.pathname}${target.search} HTTP/1.1`,
        httpHeaders: [['Host', target.host], ['User-Agent', 'fixture']],
        keepHeadersCase: true,
      },
      [],
    );
    const digest = createHash('sha1').update(c.body).digest('hex');
    const first = seen.get(digest);
    seen.set(digest, first ?? c);
    const http = { statusline: `HTTP/1.1 ${c.status} ${c.statusText}`, httpHeaders: c.headers, keepHeadersCase: true };
    const response =
      first === undefined
        ? WARCRecord.create({ url: c.url, date: c.date, type: 'response', warcVersion: 'WARC/1.1', ...http }, [c.body])
        : WARCRecord.create(
            {
              url: c.url,
              date: c.date,
              type: 'revisit',
              warcVersion: 'WARC/1.1',
              refersToUrl: first.url,
              refersToDate: first.date,
              warcHeaders: {
                'WARC-Profile': 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
                'WARC-Payload-Digest': payloadDigest(c.body),
              },
              ...http,
            },
            [],
          );
    const links = [...c.body.toString('latin1').matchAll(/href="([^"]*)"/g)].map((m) => `outlink: ${new URL(m[1] ?? '', c.url).href}\r\n`);
    const metadata = WARCRecord.create(
      {
        url: c.url,
        date: c.date,
        type: 'metadata',
        warcVersion: 'WARC/1.1',
        warcHeaders: { 'Content-Type': 'application/warc-fields' },
      },
      [Buffer.from(links.join(''))],
    );
    records.push(request, response, metadata);
  }
  return records;
}

/** `sha1:` + base32 of `body`, as WARC-Payload-Digest is written. */
export function payloadDigest(body: Uint8Array): string {
  return `sha1:${base32(createHash('sha1').update(body).digest())}`;
}

function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** The serialized records: one buffer each (a gzip member each when `gzip`). */
export async function serializeRecords(records: readonly WARCRecord[], gzip: boolean): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const r of records) out.push(Buffer.from(await WARCSerializer.serialize(r, { gzip, digest: DIGEST })));
  return out;
}

/** The fixture files written into `dir`: `NAME.warc` and `NAME.warc.gz` with the same records, and each record's bytes. */
export interface WarcFixtures {
  captures: readonly Capture[];
  plain: string;
  gz: string;
  plainRecords: Buffer[];
  gzRecords: Buffer[];
}

/** Writes `captures` as `dir/NAME.warc` and `dir/NAME.warc.gz`. */
export async function writeWarcFixtures(dir: string, captures: readonly Capture[], name = 'fixture'): Promise<WarcFixtures> {
  // Each serialization reads its records' payload streams: build them afresh for each form.
  const plainRecords = await serializeRecords(fixtureRecords(captures), false);
  const gzRecords = await serializeRecords(fixtureRecords(captures), true);
  const plain = join(dir, `${name}.warc`);
  const gz = join(dir, `${name}.warc.gz`);
  writeFileSync(plain, Buffer.concat(plainRecords));
  writeFileSync(gz, Buffer.concat(gzRecords));
  return { captures, plain, gz, plainRecords, gzRecords };
}

/** The paths of fixtureSite(), in the order the fixtures capture them. */
export const FIXTURE_PATHS = ['/', '/about.html', '/dup.html', '/q?b=2&a=1', '/old', '/missing.html', '/chunked.html', '/style.css'] as const;

/**
 * A small site with what an index must handle: pages, a page whose body
 * repeats another's (a revisit), a query, a redirect, a 404, a chunked
 * answer and a stylesheet. Routes for startSite.
 */
export function fixtureSite(): Record<string, Route> {
  const about = page('About us', ['/'], '<link rel="stylesheet" href="/style.css"><p>We crawl politely.</p>');
  return {
    '/': { body: page('Home page', ['/about.html', '/dup.html', '/q?b=2&a=1', '/old', '/chunked.html'], '<p>Welcome home.</p>') },
    '/about.html': { body: about },
    '/dup.html': { body: about },
    '/q?b=2&a=1': { body: page('Query page', ['/'], '<p>Sorted keys.</p>') },
    '/old': { status: 301, headers: { location: '/about.html' }, body: '' },
    '/missing.html': { status: 404, body: page('Not here') },
    '/chunked.html': {
      handle: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.write('<html><head><title>Chunked page</title></head><body>\n');
        res.end('<p>Sent in two chunks.</p></body></html>\n');
      },
    },
    '/style.css': { headers: { 'content-type': 'text/css' }, body: 'p { color: rgb(1, 2, 3); }\n' },
  };
}

/** What useWarcFixtures gives a test file, once its `before` hook has run. */
export interface FixtureSetup {
  site: SiteServer;
  fx: WarcFixtures;
  /** A temporary directory holding the fixtures, removed after the file's tests. */
  dir: string;
}

/**
 * For a test file: before its tests, serves fixtureSite() on loopback and
 * writes the fixtures of all of FIXTURE_PATHS into a temporary directory;
 * afterwards, closes the site and removes the directory.
 */
export function useWarcFixtures(prefix: string): FixtureSetup {
  const dirs = useTempDirs(prefix);
  const setup = {} as FixtureSetup;
  before(async () => {
    setup.site = await startSite(fixtureSite());
    setup.dir = dirs.temp();
    setup.fx = await writeWarcFixtures(setup.dir, await capture(FIXTURE_PATHS.map((p) => setup.site.origin + p)));
  });
  after(() => setup.site.close());
  return setup;
}
