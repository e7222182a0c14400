/**
 * crawler --since OLD_DIR, in process (crawlerMain over a recording io):
 * the refresh writes a new pageDirectory exactly as a fresh crawl would,
 * byte for byte when nothing changed while the server sends no page body,
 * and when some pages changed exactly those files differ; OLD_DIR is only
 * read. The log's Unchanged lines, the JSON events, the stderr summary, the
 * report's figures, the archive's server-not-modified revisits, the refusals
 * (one line each) and resuming a refresh. The site is the bench's static
 * server with validators (ETag, Last-Modified, 304), on loopback.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { staticServer } from '../../bench/static-server.js';
import { crawlerMain } from '../../src/cli/crawler.js';
import { isCrawlerError } from '../../src/errors.js';
import { openDatabase } from '../../src/frontier/sqlite-open.js';
import { DirLock } from '../../src/sink/dir-lock.js';
import { STATE_FILE } from '../../src/sink/state-file.js';
import { UNASKED_304 } from '../../src/programs/tse.js';
import { cs50Line } from '../helpers/cs50-log.js';
import { recordingIo } from '../helpers/fakes.js';
import { readPages } from '../helpers/page-files.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, sha1b32 } from '../helpers/warc-check.js';
import { readZip, waczPages } from '../archive/wacz-read.js';

const { temp } = useTempDirs('tse-refresh-');

/** The site: `path` to its links. Every page holds its title, some text and its links. */
const LINKS: Record<string, string[]> = {
  'index.html': ['a.html', 'b.html', 'c.html'],
  'a.html': ['d.html', 'index.html'],
  'b.html': ['d.html', 'e.html'],
  'c.html': ['a.html'],
  'd.html': ['e.html'],
  'e.html': [],
};

function html(name: string, links: readonly string[], version = 1): string {
  return `<html><head><title>${name} v${version}</title></head><body>\n<p>${'text '.repeat(200)}</p>\n${links.map((l) => `<a href="${l}">${l}</a>`).join('\n')}\n</body></html>\n`;
}

interface Site {
  root: string;
  origin: string;
  /** Body bytes sent per path since the last reset, and the statuses answered. */
  sent: Map<string, number>;
  statuses: number[];
  reset(): void;
  /** Writes a page anew (a later modification time, so its validators change). */
  change(name: string, body: string): void;
  close(): Promise<void>;
}

async function startSiteDir(t: import('node:test').TestContext): Promise<Site> {
  const root = temp('site-');
  for (const [name, links] of Object.entries(LINKS)) writeFileSync(join(root, name), html(name, links));
  const sent = new Map<string, number>();
  const statuses: number[] = [];
  const server: Server = staticServer(root, {
    validators: true,
    onBody: (path, status, bytes) => {
      sent.set(path, (sent.get(path) ?? 0) + bytes);
      statuses.push(status);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t.after(close);
  return {
    root,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent,
    statuses,
    reset: () => {
      sent.clear();
      statuses.length = 0;
    },
    change: (name, body) => {
      const file = join(root, name);
      writeFileSync(file, body);
      const later = new Date(statSync(file).mtimeMs + 10_000);
      utimesSync(file, later, later);
    },
    close,
  };
}

/** Runs crawler; resolves with its status, stdout and stderr (a refusal: status 1 and its one line). */
async function crawler(args: string[]): Promise<{ code: number; out: string; err: string; error?: string }> {
  const rec = recordingIo();
  try {
    const code = await crawlerMain(['--delay', '0', '--ignore-robots', ...args], rec.io);
    return { code, out: rec.out(), err: rec.stderr.join('') };
  } catch (err) {
    if (!isCrawlerError(err)) throw err;
    return { code: 1, out: rec.out(), err: rec.stderr.join(''), error: err.message };
  }
}

function newDir(name: string): string {
  const d = join(temp(), name);
  mkdirSync(d);
  return d;
}

/** A temporary directory holding `old` and `new` page directories (and, beside them, whatever a test writes). */
function beside(): { dir: string; old: string; fresh: string } {
  const dir = temp();
  const old = join(dir, 'old');
  const fresh = join(dir, 'new');
  mkdirSync(old);
  mkdirSync(fresh);
  return { dir, old, fresh };
}

/** Every file of a directory with its bytes' digest, size and mtime: what "only read" must leave as it was. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const st = statSync(path);
    out[name] = `${st.size} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  }
  return out;
}

/** The numbered files of a directory, by name, as bytes. */
function pageFiles(dir: string): Map<string, Buffer> {
  return new Map(readPages(dir).map((p) => [String(p.id), p.raw]));
}

test('nothing changed on the site: the refresh writes what a fresh crawl writes, byte for byte, and the server sends no page body', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const old = newDir('old');
  assert.equal((await crawler(['-q', seed, old, '3'])).code, 0);
  const oldBytes = [...site.sent.values()].reduce((a, b) => a + b, 0);
  const before = snapshot(old);
  site.reset();
  const fresh = newDir('refreshed');
  const r = await crawler(['--since', old, seed, fresh, '3']);
  assert.equal(r.code, 0, r.err);
  assert.ok(oldBytes > 6 * 1000, `the first crawl sent the pages (${oldBytes} bytes)`);
  assert.deepEqual([...site.sent.values()].reduce((a, b) => a + b, 0), 0, 'no body was sent');
  assert.deepEqual(site.statuses, Object.keys(LINKS).map(() => 304), 'every page was answered 304');
  // What a fresh crawl of the same site writes, now.
  const again = newDir('again');
  assert.equal((await crawler(['-q', seed, again, '3'])).code, 0);
  assert.deepEqual(pageFiles(fresh), pageFiles(again), 'the same files as a fresh crawl');
  assert.deepEqual(pageFiles(fresh), pageFiles(old), 'and as the earlier crawl');
  assert.deepEqual(snapshot(old), before, 'OLD_DIR is only read: every file as it was, nothing added');
  // The log: every saved page keeps its Fetched line, followed by Unchanged.
  const lines = r.out.split('\n');
  for (const p of readPages(fresh)) {
    const at = lines.indexOf(cs50Line(p.depth, 'Fetched', p.url));
    assert.ok(at >= 0, `Fetched ${p.url}`);
    assert.equal(lines[at + 1], cs50Line(p.depth, 'Unchanged', p.url), `Unchanged right after Fetched for ${p.url}`);
  }
  assert.match(r.err, new RegExp(`refresh of ${old}: 6 unchanged, 0 changed, 0 new, 0 gone; \\d+ bytes not sent again`));
});

test('some pages changed: exactly their files differ from the earlier crawl; a new page is new, a page no longer linked is gone', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const old = newDir('old');
  assert.equal((await crawler(['-q', seed, old, '3'])).code, 0);
  const oldPages = readPages(old);
  // b.html changes and links f.html too, a new page (after the others: their IDs and depths stay); d.html changes.
  site.change('b.html', html('b.html', ['d.html', 'e.html', 'f.html'], 2));
  site.change('d.html', html('d.html', ['e.html'], 2));
  writeFileSync(join(site.root, 'f.html'), html('f.html', []));
  // c.html changes to no longer link a.html (a.html is still linked from the seed).
  site.change('c.html', html('c.html', [], 2));
  site.reset();
  const fresh = newDir('refreshed');
  const report = join(temp(), 'refresh.html');
  const r = await crawler(['--json', '--report', report, '--since', old, seed, fresh, '3']);
  assert.equal(r.code, 0, r.err);
  const now = readPages(fresh);
  const byUrl = new Map(oldPages.map((p) => [p.url, p]));
  assert.deepEqual(now.slice(0, oldPages.length).map((p) => `${p.id} ${p.url} ${p.depth}`), oldPages.map((p) => `${p.id} ${p.url} ${p.depth}`), 'the same pages under the same IDs');
  const differ = now.filter((p) => !byUrl.get(p.url)?.raw.equals(p.raw)).map((p) => p.url.slice(site.origin.length));
  assert.deepEqual(differ.sort(), ['/b.html', '/c.html', '/d.html', '/f.html']);
  // Exactly the changed pages were sent in full (and the new one).
  assert.deepEqual([...site.sent].filter(([, n]) => n > 0).map(([p]) => p).sort(), ['/b.html', '/c.html', '/d.html', '/f.html']);
  const events = r.out.trim().split('\n').map((l) => JSON.parse(l) as { event: string; url: string });
  const unchanged = events.filter((e) => e.event === 'Unchanged').map((e) => e.url.slice(site.origin.length));
  assert.deepEqual(unchanged.sort(), ['/a.html', '/e.html', '/index.html']);
  assert.equal(events.filter((e) => e.event === 'Fetched').length, now.length, 'a Fetched event for every saved page');
  assert.match(r.err, /: 3 unchanged, 3 changed, 1 new, 0 gone;/);
  const figures = Object.fromEntries([...readFileSync(report, 'utf8').matchAll(/data-figure="(refresh-[a-z]+)" data-value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  const spared = oldPages.filter((p) => ['/a.html', '/e.html', '/index.html'].includes(p.url.slice(site.origin.length))).reduce((a, p) => a + p.body.length, 0);
  assert.deepEqual(figures, { 'refresh-unchanged': '3', 'refresh-changed': '3', 'refresh-new': '1', 'refresh-gone': '0', 'refresh-spared': String(spared) });
  // No page links e.html or f.html any more: a refresh of the refresh finds them gone.
  site.change('d.html', html('d.html', [], 3));
  site.change('b.html', html('b.html', ['d.html'], 3));
  const third = newDir('third');
  const r3 = await crawler(['-q', '--report', report, '--since', fresh, seed, third, '3']);
  assert.equal(r3.code, 0, r3.err);
  assert.match(r3.err, /: \d+ unchanged, 2 changed, 0 new, 2 gone;/);
  const gone = [...readFileSync(report, 'utf8').matchAll(/<li class="url" data-url="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(gone.includes(`${site.origin}/e.html`) && gone.includes(`${site.origin}/f.html`), `gone pages listed: ${gone.join(' ')}`);
});

test('a 304 that answered no conditional request fails that page with the reason; the crawl goes on', async (t) => {
  const { startSite, page } = await import('../helpers/site-server.js');
  const s = await startSite({ '/': { body: page('home', ['/odd.html', '/ok.html']) }, '/odd.html': { status: 304 }, '/ok.html': { body: page('ok') } });
  t.after(() => s.close());
  const dir = newDir('pages');
  const r = await crawler([`${s.origin}/`, dir, '1']);
  assert.equal(r.code, 0);
  assert.ok(r.out.includes(cs50Line(1, 'Failed', `${s.origin}/odd.html`, UNASKED_304)), r.out);
  assert.deepEqual(readPages(dir).map((p) => p.url), [`${s.origin}/`, `${s.origin}/ok.html`]);
});

test('with --warc, an unchanged page is a server-not-modified revisit of its earlier record, with the earlier payload digest; its index line has no status', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const { dir, old, fresh } = beside();
  assert.equal((await crawler(['-q', '--warc', join(dir, 'old.warc.gz'), seed, old, '3'])).code, 0);
  site.change('b.html', html('b.html', ['d.html', 'e.html'], 2));
  const r = await crawler(['-q', '--warc', join(dir, 'new.warc.gz'), '--wacz', join(dir, 'new.wacz'), '--since', old, seed, fresh, '3']);
  assert.equal(r.code, 0, r.err);
  // The package holds both archives under one index, and lists every page saved, the unchanged ones too.
  const zip = await readZip(join(dir, 'new.wacz'));
  assert.deepEqual([...zip.keys()].filter((k) => k.startsWith('archive/')).sort(), ['archive/new.warc.gz', 'archive/old.warc.gz']);
  const packaged = zip.get('indexes/index.cdxj')?.data.toString('utf8').trim().split('\n') ?? [];
  assert.deepEqual(new Set(packaged.map((l) => (JSON.parse(l.slice(l.indexOf('{'))) as { filename: string }).filename)), new Set(['old.warc.gz', 'new.warc.gz']));
  assert.equal(packaged.length, readFileSync(join(dir, 'old.cdxj'), 'utf8').trim().split('\n').length + readFileSync(join(dir, 'new.cdxj'), 'utf8').trim().split('\n').length);
  assert.deepEqual((await waczPages(join(dir, 'new.wacz'))).map((p) => p.url).sort(), readPages(fresh).map((p) => p.url).sort());
  // checkArchive holds each revisit to its original: its payload digest, target URI and date.
  const records = await checkArchive([join(dir, 'old.warc.gz'), join(dir, 'new.warc.gz')]);
  const inNew = records.filter((x) => x.file.endsWith('new.warc.gz'));
  const revisits = inNew.filter((x) => x.type === 'revisit');
  assert.deepEqual(revisits.map((x) => (x.headers.get('warc-target-uri') as string).slice(site.origin.length)).sort(), ['/a.html', '/c.html', '/d.html', '/e.html', '/index.html']);
  for (const v of revisits) {
    assert.equal(v.headers.get('warc-profile'), 'http://netpreserve.org/warc/1.1/revisit/server-not-modified');
    assert.equal(v.status, 304, 'its block is the 304 as it came');
    const uri = v.headers.get('warc-target-uri') as string;
    const body = readPages(old).find((p) => p.url === uri)?.body as Buffer;
    assert.equal(v.headers.get('warc-payload-digest'), sha1b32(body), `${uri}: the earlier payload's digest`);
    assert.notEqual(v.headers.get('warc-payload-digest'), sha1b32(Buffer.alloc(0)), 'never the empty body\'s');
  }
  assert.deepEqual(inNew.filter((x) => x.type === 'response' && x.status === 200).map((x) => (x.headers.get('warc-target-uri') as string).slice(site.origin.length)), ['/b.html']);
  const index = readFileSync(join(dir, 'new.cdxj'), 'utf8').trim().split('\n');
  const revisitLines = index.filter((l) => l.includes('"warc/revisit"'));
  assert.equal(revisitLines.length, 5);
  for (const l of revisitLines) assert.doesNotMatch(l, /"status"/, l);
});

test('with --warc, an earlier crawl that kept no archive: the revisit refers to the URL only and carries the digest of the earlier copy', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const { dir, old, fresh } = beside();
  assert.equal((await crawler(['-q', seed, old, '0'])).code, 0);
  assert.equal((await crawler(['-q', '--warc', join(dir, 'new.warc'), '--since', old, seed, fresh, '0'])).code, 0);
  const records = (await checkArchive([join(dir, 'new.warc')])).filter((x) => x.type === 'revisit');
  assert.equal(records.length, 1);
  const v = records[0]!;
  assert.equal(v.headers.get('warc-refers-to-target-uri'), seed);
  assert.equal(v.headers.get('warc-refers-to'), undefined);
  assert.equal(v.headers.get('warc-refers-to-date'), undefined);
  assert.equal(v.headers.get('warc-payload-digest'), sha1b32(readPages(old)[0]!.body));
});

test('--since refuses, with one line and before any request: a missing or plain path, the pageDirectory itself, a directory not ours, one in use, one without state, one of an older version', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const old = newDir('old');
  assert.equal((await crawler(['-q', seed, old, '1'])).code, 0);
  site.reset();
  const dest = newDir('dest');
  const refused = async (since: string, pattern: RegExp, into = dest): Promise<void> => {
    const r = await crawler(['--since', since, seed, into, '1']);
    assert.equal(r.code, 1, `${since}: refused`);
    assert.match(r.error ?? '', pattern);
    assert.doesNotMatch(r.error ?? '', /\n/, 'one line');
    assert.deepEqual(site.statuses, [], 'no request');
  };
  await refused(join(temp(), 'missing'), /^--since ".*missing" does not exist/);
  const file = join(temp(), 'a-file');
  writeFileSync(file, 'x');
  await refused(file, /is not a directory/);
  await refused(old, /is the pageDirectory itself/, old);
  await refused(temp(), /holds no crawl of ours \(no \.crawler marker\)/);
  const lock = await DirLock.acquire(old, { program: 'crawler', label: 'pageDirectory', code: 'ERR_PAGE_DIRECTORY' });
  try {
    await refused(old, new RegExp(`is in use by crawler \\(PID ${process.pid}\\)`));
  } finally {
    lock.release();
  }
  const stateless = newDir('stateless');
  cpSync(join(old, '.crawler'), join(stateless, '.crawler'));
  await refused(stateless, /holds no crawl state/);
  // A crawl made before validators were kept: state version 2, no pages table.
  const older = newDir('older');
  cpSync(old, older, { recursive: true });
  const db = openDatabase(join(older, STATE_FILE));
  db.exec("DROP TABLE pages; UPDATE meta SET value = '2' WHERE key = 'version'");
  db.close();
  await refused(older, /was crawled by an earlier version of crawler, which kept no validators \(state version 2\): crawl it again without --since/);
  const shared = await crawler(['--since', old, '--frontier', `sqlite:${join(temp(), 'f.db')}`, seed, dest, '1']);
  assert.equal(shared.code, 1);
  assert.match(shared.error ?? '', /--since does not go with --frontier/);
  assert.equal(existsSync(join(dest, '1')), false, 'nothing written');
});

test('a refresh resumes only with the same --since; --warc may not be the earlier crawl\'s archive', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const dir = temp();
  const old = join(dir, 'old');
  const other = join(dir, 'other');
  const fresh = join(dir, 'new');
  for (const d of [old, other, fresh]) mkdirSync(d);
  assert.equal((await crawler(['-q', '--warc', join(dir, 'old.warc.gz'), seed, old, '1'])).code, 0);
  assert.equal((await crawler(['-q', seed, other, '1'])).code, 0);
  const same = await crawler(['-q', '--warc', join(dir, 'old.warc.gz'), '--since', old, seed, fresh, '1']);
  assert.match(same.error ?? '', /--warc .*old\.warc\.gz is the archive of the earlier crawl in .*, which a refresh only reads: give another file/);
  assert.ok(existsSync(join(dir, 'old.warc.gz')));
  assert.equal((await crawler(['-q', '--since', old, '--max-pages', '2', seed, fresh, '1'])).code, 0);
  const plain = await crawler(['-q', '--resume', seed, fresh, '1']);
  assert.match(plain.error ?? '', /holds a refresh of the crawl in .*old; resume it with --since/);
  const wrong = await crawler(['-q', '--resume', '--since', other, seed, fresh, '1']);
  assert.match(wrong.error ?? '', /holds a refresh of the crawl in .*old; resume it with --since/);
  const right = await crawler(['-q', '--resume', '--since', old, seed, fresh, '1']);
  assert.equal(right.code, 0, right.error);
  assert.equal(readPages(fresh).length, 4, 'the resumed refresh finishes the crawl');
});

test('an earlier crawl whose last commits are still in its write-ahead log (a kill -9): the refresh reads them, and writes nothing there', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const old = newDir('old');
  assert.equal((await crawler(['-q', seed, old, '0'])).code, 0);
  // A connection left open holds its commit in OLD/.crawler-state.db-wal, as a crawl killed before a checkpoint does.
  const db = openDatabase(join(old, STATE_FILE));
  t.after(() => db.close());
  db.pragma('wal_autocheckpoint = 0');
  db.prepare('UPDATE pages SET etag = ? WHERE id = 1').run('"from-the-log"');
  assert.ok(existsSync(join(old, `${STATE_FILE}-wal`)));
  const before = snapshot(old);
  site.reset();
  const fresh = newDir('refreshed');
  const r = await crawler(['-q', '--since', old, seed, fresh, '0']);
  assert.equal(r.code, 0, r.err);
  // The ETag in the log no longer matches the page's: the server sends it in full, as changed.
  assert.deepEqual(site.statuses, [200]);
  assert.match(r.err, /: 0 unchanged, 1 changed, 0 new, 0 gone;/);
  assert.deepEqual(snapshot(old), before);
});

test('a state written before validators were kept (version 2) still opens: a new crawl replaces that crawl\'s files, --resume says it is of another version', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const dir = newDir('pages');
  assert.equal((await crawler(['-q', seed, dir, '1'])).code, 0);
  const db = openDatabase(join(dir, STATE_FILE));
  db.exec("DROP TABLE pages; UPDATE meta SET value = '2' WHERE key = 'version'");
  db.close();
  const resumed = await crawler(['-q', '--resume', seed, dir, '1']);
  assert.match(resumed.error ?? '', /is of another version; run without --resume/);
  // A crawl to depth 0 saves one page: the earlier crawl's other files are known as ours (from the old state) and removed.
  const r = await crawler(['-q', seed, dir, '0']);
  assert.equal(r.code, 0, r.error);
  assert.match(r.err, /removed 3 page files of an earlier crawl/);
  assert.deepEqual(readPages(dir).map((p) => p.id), [1]);
});

test('a refresh of a refresh: its revisits still refer to the first crawl\'s records, and its package holds every archive they are in', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const { dir, old, fresh } = beside();
  const third = join(dir, 'third');
  mkdirSync(third);
  assert.equal((await crawler(['-q', '--warc', join(dir, 'a.warc.gz'), seed, old, '1'])).code, 0);
  assert.equal((await crawler(['-q', '--warc', join(dir, 'b.warc.gz'), '--since', old, seed, fresh, '1'])).code, 0);
  const r = await crawler(['-q', '--wacz', join(dir, 'c.wacz'), '--since', fresh, seed, third, '1']);
  assert.equal(r.code, 0, r.err);
  const zip = await readZip(join(dir, 'c.wacz'));
  assert.deepEqual([...zip.keys()].filter((k) => k.startsWith('archive/')).sort(), ['archive/a.warc.gz', 'archive/b.warc.gz', 'archive/c.warc.gz']);
  const records = await checkArchive([join(dir, 'a.warc.gz'), join(dir, 'b.warc.gz'), join(dir, 'c.warc.gz')]);
  const firstIds = new Set(records.filter((x) => x.file.endsWith('a.warc.gz') && x.type === 'response').map((x) => x.headers.get('warc-record-id')));
  const revisits = records.filter((x) => x.file.endsWith('c.warc.gz') && x.type === 'revisit');
  assert.equal(revisits.length, 4);
  for (const v of revisits) assert.ok(firstIds.has(v.headers.get('warc-refers-to')), 'refers to the first crawl\'s response');
  // The first archive moved away: the package goes without it, and says so.
  renameSync(join(dir, 'a.warc.gz'), join(dir, 'moved.warc.gz'));
  const fourth = join(dir, 'fourth');
  mkdirSync(fourth);
  const r4 = await crawler(['-q', '--wacz', join(dir, 'd.wacz'), '--since', fresh, seed, fourth, '1']);
  assert.equal(r4.code, 0, r4.err);
  assert.match(r4.err, /the earlier archive .*a\.warc\.gz is gone: the package will not hold it/);
  assert.deepEqual([...(await readZip(join(dir, 'd.wacz'))).keys()].filter((k) => k.startsWith('archive/')).sort(), ['archive/b.warc.gz', 'archive/d.warc.gz']);
});

test('an earlier crawl of state version 3 (no wire sizes) is refreshed: its unchanged pages count their saved size as not sent again', async (t) => {
  const site = await startSiteDir(t);
  const seed = `${site.origin}/index.html`;
  const { old, fresh } = beside();
  assert.equal((await crawler(['-q', seed, old, '0'])).code, 0);
  const db = openDatabase(join(old, STATE_FILE));
  db.exec("ALTER TABLE pages DROP COLUMN wire_bytes; UPDATE meta SET value = '3' WHERE key = 'version'");
  db.close();
  const r = await crawler(['-q', '--since', old, seed, fresh, '0']);
  assert.equal(r.code, 0, r.error);
  assert.match(r.err, new RegExp(`1 unchanged, 0 changed, 0 new, 0 gone; ${readPages(old)[0]!.body.length} bytes not sent again`));
});
