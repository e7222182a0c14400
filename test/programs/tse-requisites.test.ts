/**
 * crawler --page-requisites as a user runs it (in process): refused without
 * an archive; with one, the CS50 log and the page files are those of the
 * same crawl without the flag, --json tells each requisite, stderr sums
 * them up in one line, the archive holds each requisite's exchange once,
 * and the report counts them per page and by why they were not fetched;
 * pages and requisites together keep to --connections-per-host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { crawlerMain } from '../../src/cli/crawler.js';
import { isCrawlerError } from '../../src/errors.js';
import { recordingIo } from '../helpers/fakes.js';
import { startSite, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { checkArchive, responseUris } from '../helpers/warc-check.js';
import { assertStartsApart } from '../helpers/arrivals.js';

const { temp } = useTempDirs('tse-requisites-');

async function run(args: string[]): Promise<{ code: number; out: string; err: string; error?: string }> {
  const rec = recordingIo();
  try {
    const code = await crawlerMain(['--delay', '0', ...args], rec.io);
    return { code, out: rec.out(), err: rec.stderr.join('') };
  } catch (err) {
    if (!isCrawlerError(err)) throw err;
    return { code: 1, out: rec.out(), err: rec.stderr.join(''), error: err.message };
  }
}

async function site(t: import('node:test').TestContext): Promise<SiteServer> {
  const s = await startSite({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private/\n' },
    '/': { headers: { 'content-type': 'text/html' }, body: '<link rel=stylesheet href=/s.css><img src=/a.png><img src=/private/b.png><img src=/missing.png><a href=/two.html>two</a>' },
    '/two.html': { headers: { 'content-type': 'text/html' }, body: '<link rel=stylesheet href=/s.css><p>two</p>' },
    '/s.css': { headers: { 'content-type': 'text/css' }, body: 'p { background: url(bg.png) }' },
    '/a.png': { headers: { 'content-type': 'image/png' }, body: 'png-a' },
    '/bg.png': { headers: { 'content-type': 'image/png' }, body: 'png-bg' },
  });
  t.after(() => s.close());
  return s;
}

test('--page-requisites without --warc or --wacz: one line saying what to add, nothing asked', async (t) => {
  const s = await site(t);
  const dir = temp();
  const r = await run(['--page-requisites', `${s.origin}/`, dir, '1']);
  assert.equal(r.code, 1);
  assert.match(r.error ?? '', /^--page-requisites keeps what it fetches in the archive only: give --warc FILE or --wacz FILE too$/);
  assert.deepEqual(s.requests, []);
  const stray = await run(['--requisites-on-crawl-hosts', `${s.origin}/`, dir, '1']);
  assert.match(stray.error ?? '', /--requisites-on-crawl-hosts goes with --page-requisites/);
});

test('with --warc: log and pages as without the flag; --json, the summary line, the archive and the report say what became of each requisite', async (t) => {
  const s = await site(t);
  const dir = temp();
  const [plain, withFlag, json] = ['plain', 'with', 'json'].map((n) => join(dir, n)) as [string, string, string];
  for (const d of [plain, withFlag, json]) mkdirSync(d);
  const seed = `${s.origin}/`;
  const without = await run([seed, plain, '1']);
  const warc = join(dir, 'r.warc');
  const report = join(dir, 'r.html');
  const r = await run(['--page-requisites', '--warc', warc, '--report', report, seed, withFlag, '1']);
  assert.equal(r.code, 0, r.error);
  assert.equal(r.out, without.out, 'the CS50 log is unchanged');
  for (const f of readdirSync(plain).filter((n) => /^\d+$/.test(n))) assert.deepEqual(readFileSync(join(withFlag, f)), readFileSync(join(plain, f)));
  assert.match(r.err, /^crawler: page requisites: 3 fetched \(40 bytes\) for the archive; 1 failed, 1 disallowed by robots\.txt$/m);
  const uris = responseUris(await checkArchive([warc])).map((u) => u.slice(s.origin.length));
  for (const p of ['/s.css', '/a.png', '/bg.png', '/missing.png']) assert.equal(uris.filter((u) => u === p).length, 1, `${p} archived once`);
  assert.ok(!uris.includes('/private/b.png'));
  const html = readFileSync(report, 'utf8');
  assert.match(html, /data-requisites="3" data-pages="1"/);
  assert.match(html, /data-requisite="HTTP 404" data-count="1"/);
  assert.match(html, /data-requisite="disallowed by robots.txt" data-count="1"/);

  const j = await run(['--json', '--page-requisites', '--warc', join(dir, 'j.warc'), seed, json, '1']);
  const lines = j.out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l['event'] === 'Requisite');
  assert.deepEqual(
    lines.map((l) => [String(l['url']).slice(s.origin.length), l['outcome'], l['status'] ?? l['reason']]).sort(),
    [
      ['/a.png', 'fetched', 200],
      ['/bg.png', 'fetched', 200],
      ['/missing.png', 'failed', 404],
      ['/private/b.png', 'robots', 'disallowed by robots.txt'],
      ['/s.css', 'fetched', 200],
    ],
  );
  assert.ok(lines.every((l) => l['page'] === seed), 'each names the page that needs it');
});

test('two workers of a shared crawl: each archives its own pages\' requisites, and the host\'s delay holds across both at the server', async (t) => {
  const pages = Array.from({ length: 6 }, (_, i) => `/p${i}.html`);
  const routes: Record<string, { headers: Record<string, string>; body: string }> = {
    '/': { headers: { 'content-type': 'text/html' }, body: `<link rel=stylesheet href=/s.css>${pages.map((p) => `<a href=${p}>x</a>`).join('')}` },
    '/s.css': { headers: { 'content-type': 'text/css' }, body: 'p { color: red }' },
  };
  for (const [i, p] of pages.entries()) routes[p] = { headers: { 'content-type': 'text/html' }, body: `<img src=/img${i}.png><link rel=stylesheet href=/s.css>` };
  for (let i = 0; i < pages.length; i++) routes[`/img${i}.png`] = { headers: { 'content-type': 'image/png' }, body: `png${i}` };
  const s = await startSite(routes);
  t.after(() => s.close());
  const dir = temp();
  const db = join(dir, 'frontier.db');
  const workers = ['w1', 'w2'].map((w) => {
    const pd = join(dir, w);
    mkdirSync(pd);
    return run(['--delay', '0.1', '-q', '--frontier', `sqlite:${db}`, '--page-requisites', '--warc', join(dir, `${w}.warc`), `${s.origin}/`, pd, '1']);
  });
  const done = await Promise.all(workers);
  for (const r of done) assert.equal(r.code, 0, r.error);
  const archived = new Set<string>();
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.warc'))) for (const u of responseUris(await checkArchive([join(dir, f)]))) archived.add(u.slice(s.origin.length));
  for (let i = 0; i < pages.length; i++) assert.ok(archived.has(`/img${i}.png`), `img${i} archived by a worker`);
  assert.ok(archived.has('/s.css'));
  // Pages, requisites and robots.txt, from both workers: every start at least the delay after the one before, at the server.
  assertStartsApart([...s.requests].sort((a, b) => a.at - b.at), 100, 'the host', (i) => s.requests[i]?.path ?? '');
});

test('--delay 0 --connections-per-host 2: pages and requisites together never have more than 2 requests in flight at the host', async (t) => {
  let inFlight = 0;
  let most = 0;
  /** Each answer takes 30 ms, so that requests overlap when the crawl lets them. */
  const slow = (type: string, body: string) => ({
    handle: (_req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
      most = Math.max(most, ++inFlight);
      res.on('close', () => inFlight--);
      setTimeout(() => {
        res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
        res.end(body);
      }, 30);
    },
  });
  const pages = Array.from({ length: 8 }, (_, i) => `/p${i}.html`);
  const routes: Record<string, ReturnType<typeof slow>> = { '/': slow('text/html', `<img src=/top.png>${pages.map((p) => `<a href=${p}>x</a>`).join('')}`) };
  for (const [i, p] of pages.entries()) routes[p] = slow('text/html', `<img src=/a${i}.png><img src=/b${i}.png><img src=/c${i}.png>`);
  for (let i = 0; i < pages.length; i++) for (const k of ['a', 'b', 'c']) routes[`/${k}${i}.png`] = slow('image/png', `png${k}${i}`);
  routes['/top.png'] = slow('image/png', 'top');
  const s = await startSite(routes);
  t.after(() => s.close());
  const dir = temp();
  const pd = join(dir, 'pages');
  mkdirSync(pd);
  const r = await run(['--ignore-robots', '--concurrency', '4', '--connections-per-host', '2', '--page-requisites', '--warc', join(dir, 'c.warc'), `${s.origin}/`, pd, '1']);
  assert.equal(r.code, 0, r.error);
  assert.match(r.err, /page requisites: 25 fetched/);
  assert.equal(most, 2, 'two at once, never three');
});

test('an identical payload at another requisite URL is a revisit record of the first (identical-payload-digest)', async (t) => {
  const png = { headers: { 'content-type': 'image/png' }, body: 'same bytes' };
  const s = await startSite({ '/': { headers: { 'content-type': 'text/html' }, body: '<img src=/a.png><img src=/copy/a.png>' }, '/a.png': png, '/copy/a.png': png });
  t.after(() => s.close());
  const dir = temp();
  const pd = join(dir, 'pages');
  mkdirSync(pd);
  const warc = join(dir, 'same.warc');
  const r = await run(['--ignore-robots', '--page-requisites', '--warc', warc, `${s.origin}/`, pd, '0']);
  assert.equal(r.code, 0, r.error);
  assert.match(r.err, /page requisites: 2 fetched/);
  const records = await checkArchive([warc]);
  const of = (path: string) => records.filter((x) => (x.type === 'response' || x.type === 'revisit') && x.headers.get('warc-target-uri') === `${s.origin}${path}`);
  assert.deepEqual(of('/a.png').map((x) => x.type), ['response']);
  const [copy] = of('/copy/a.png');
  assert.equal(copy?.type, 'revisit');
  assert.equal(copy?.headers.get('warc-profile'), 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
  assert.equal(copy?.headers.get('warc-refers-to-target-uri'), `${s.origin}/a.png`);
});
