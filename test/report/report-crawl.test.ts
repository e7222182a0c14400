/**
 * `--report FILE.html` end to end: ./crawler over three loopback hosts (a
 * 404, a robots.txt disallow, a 429 with Retry-After: 1, a Crawl-delay, two
 * depths), its report opened in chromium and checked against the crawl: the
 * figures, one tick per request the servers saw, each host's least gap at
 * least its interval, no console error and no request, a screenshot that
 * is not blank; and as text, no address but the crawled ones. Then
 * KeywordHunter's chain to the match, a file not ours refused before any
 * request, and a report after SIGINT that --resume completes.
 */
// run-tests: long (16 s: crawls and Chromium)
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { browserSkipReason, withBrowser } from '../helpers/browser.js';
import { parseLog } from '../helpers/cs50-log.js';
import { readPages } from '../helpers/page-files.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { runProgram, startProgram, type RunResult } from '../helpers/spawn.js';
import { REPORT_JOURNAL, readRecords } from '../../src/report/report-journal.js';
import { ReportModel } from '../../src/report/report-model.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { distinctColours } from './png-colours.js';
import { figure, foreignReferences } from './report-text.js';

const { temp } = useTempDirs('report-crawl-');
const sites: SiteServer[] = [];
after(async () => {
  await Promise.all(sites.map((s) => s.close()));
});

async function site(routes: Record<string, Route>, host: string): Promise<SiteServer> {
  const s = await startSite(routes, host);
  sites.push(s);
  return s;
}

const text = (body: string): Route => ({ headers: { 'content-type': 'text/plain' }, body });

/** Answers 429 with Retry-After: 1 the first time, then the page. */
function busyOnce(body: string): Route {
  let n = 0;
  return {
    handle: (_req, res) => {
      if (n++ === 0) {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/html' });
        res.end('slow down');
      } else {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(body);
      }
    },
  };
}

test('crawler --report: the report of a crawl over three hosts shows the crawl\'s figures, one tick per request, every least gap at least its interval, and draws in chromium without a request or an error', { skip: browserSkipReason }, async () => {
  const b = await site({ '/b.html': { body: page('b', ['/b2.html']) }, '/b2.html': { body: page('b2') } }, '127.0.0.2');
  const c = await site({ '/robots.txt': text('User-agent: *\nCrawl-delay: 0.5\n'), '/c.html': { body: page('c', ['/c2.html']) }, '/c2.html': { body: page('c2') } }, '127.0.0.3');
  const a = await site({}, '127.0.0.1');
  a.routes.set('/robots.txt', text('User-agent: *\nDisallow: /private/\n'));
  a.routes.set('/index.html', { body: page('home', ['/a1.html', '/missing.html', '/private/s.html', '/busy.html', `${b.origin}/b.html`, `${c.origin}/c.html`, '/index.html', 'http://elsewhere.invalid/']) });
  a.routes.set('/a1.html', { body: page('a1', ['/a2.html']) });
  a.routes.set('/a2.html', { body: page('a2') });
  a.routes.set('/busy.html', busyOnce(page('busy')));
  const dir = temp();
  const file = join(temp(), 'crawl report.html');
  const hosts = [a, b, c];
  const r = await runProgram('crawler', ['--delay', '0.2', ...hosts.flatMap((s) => ['--internal', s.origin]), '--report', file, `${a.origin}/index.html`, dir, '2'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /crawler: report written to .*crawl report\.html/);
  const html = readFileSync(file, 'utf8');
  assert.deepEqual(foreignReferences(html, hosts.map((s) => s.origin)), [], 'no address but the crawled hosts\'');

  const log = parseLog(r.stdout);
  const pages = readPages(dir);
  const requests = hosts.reduce((n, s) => n + s.requests.length, 0);
  assert.ok(a.paths().filter((p) => p === '/busy.html').length === 2, 'the 429 was tried again');
  assert.equal(figure(html, 'saved'), pages.length);
  assert.equal(figure(html, 'failed'), log.filter((l) => l.word === 'Failed').length);
  assert.equal(figure(html, 'skipped'), log.filter((l) => ['IgnDupl', 'IgnExtrn', 'IgnRobots'].includes(l.word)).length);
  assert.equal(figure(html, 'requests'), requests);
  assert.equal(figure(html, 'hosts'), 3);

  await withBrowser(async (p, watch) => {
    await p.goto(`file://${file}`);
    // Pages per depth: saved pages at each depth, as in the page directory.
    const depths = await p.$$eval('tr.depth', (rows) => rows.map((row) => [Number(row.getAttribute('data-depth')), Number(row.getAttribute('data-ok'))]));
    const want = new Map<number, number>();
    for (const pg of pages) want.set(pg.depth, (want.get(pg.depth) ?? 0) + 1);
    assert.deepEqual(depths, [...want].sort((x, y) => x[0] - y[0]));
    assert.ok(want.size >= 3, 'depths 0, 1 and 2');
    // Statuses: the 429 and the 404 once each.
    const counts = Object.fromEntries(await p.$$eval('#status-counts tr[data-key]', (rows) => rows.map((row) => [row.getAttribute('data-key'), Number(row.getAttribute('data-count'))])));
    assert.equal(counts['429'], 1);
    assert.equal(counts['404'], 1);
    assert.equal(counts['200'], pages.length);
    for (const s of hosts) {
      // One tick per request the server saw, robots.txt included.
      const ticks = await p.$$eval(`g.lane[data-host="${s.origin}"] line.tick`, (l) => l.length);
      assert.equal(ticks, s.requests.length, `${s.origin}: ticks`);
      // The host's row, as shown: least gap and interval in seconds (the gap rounded down, the interval up), gaps below, pauses.
      const cells = await p.$eval(`table.gaps tr[data-host="${s.origin}"]`, (row) => Array.from(row.querySelectorAll('td'), (td) => (td as { textContent: string | null }).textContent ?? ''));
      const gap = { least: Number(cells[2]) * 1000, interval: Number(cells[3]) * 1000, below: Number(cells[4]), pauses: Number(cells[5]) };
      assert.equal(gap.pauses, s === a ? 1 : 0, `${s.origin}: pauses`);
      assert.ok(gap.least >= gap.interval, `${s.origin}: least gap ${gap.least} ms, interval ${gap.interval} ms`);
      assert.equal(gap.below, 0);
      assert.ok(gap.interval >= (s === c ? 500 : 200), `${s.origin}: interval ${gap.interval} ms`);
    }
    assert.equal(await p.$$eval(`g.lane[data-host="${a.origin}"] rect.pause`, (l) => l.length), 1, 'the Retry-After pause is drawn, once');
    assert.equal(await p.getAttribute(`tr.robots[data-host="${c.origin}"]`, 'data-crawl-delay'), '0.5');
    assert.equal(await p.getAttribute(`tr.robots[data-host="${a.origin}"]`, 'data-status'), '200');
    assert.equal(await p.getAttribute(`tr.robots[data-host="${b.origin}"]`, 'data-status'), '404');
    // The tree links each saved page to its file.
    const links = await p.$$eval('ul.tree a.id', (l) => l.map((x) => [x.textContent, x.getAttribute('href')]));
    assert.equal(links.length, pages.length);
    for (const [id, href] of links) {
      const target = resolve(dirname(file), decodeURIComponent(href ?? ''));
      assert.equal(target, join(dir, (id ?? '').slice(1)));
      assert.ok(existsSync(target));
    }
    const png = await p.screenshot();
    const colours = distinctColours(png);
    assert.ok(colours >= 20, `a drawn page, not a blank one: ${colours} colours`);
    assert.deepEqual(watch.consoleErrors, []);
    assert.deepEqual(watch.requests, [`file://${file}`.replaceAll(' ', '%20')]);
  });
});

test('KeywordHunter --report: the chain of pages from StartURL to the match, and the matching line', async () => {
  const other = await site({ '/found.html': { body: '<p>nothing here</p>\n<p>the needle is <b>here</b></p>\n' } }, '127.0.0.2');
  const start = await site({ '/index.html': { body: `<a href="/mid.html">m</a>\n` }, '/mid.html': { body: `<a href="${other.origin}/found.html">f</a>\n` } }, '127.0.0.1');
  const file = join(temp(), 'kh.html');
  const r = await runProgram('KeywordHunter', ['--report', file, `${start.origin}/index.html`, 'needle']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^FOUND_KEYWORD:/m);
  const html = readFileSync(file, 'utf8');
  const chain = [...html.matchAll(/<li data-url="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(chain, [`${start.origin}/index.html`, `${start.origin}/mid.html`, `${other.origin}/found.html`]);
  assert.ok(html.includes('<pre class="line" id="match">&lt;p&gt;the <mark>needle</mark> is &lt;b&gt;here&lt;/b&gt;&lt;/p&gt;</pre>'), 'the line, the keyword marked');
  assert.equal(figure(html, 'requests'), start.requests.length + other.requests.length);
});

test('a worker of a shared crawl (--frontier sqlite:) reports its own requests and pages', async () => {
  const s = await site({ '/index.html': { body: page('home', ['/a.html', '/b.html']) }, '/a.html': { body: page('a') }, '/b.html': { body: page('b') } }, '127.0.0.1');
  const dir = temp();
  const file = join(temp(), 'w.html');
  const r = await runProgram('crawler', ['--delay', '0', '--frontier', `sqlite:${join(temp(), 'crawl.db')}`, '--report', file, `${s.origin}/index.html`, dir, '1']);
  assert.equal(r.code, 0, r.stderr);
  const html = readFileSync(file, 'utf8');
  assert.equal(figure(html, 'saved'), readPages(dir).length);
  assert.equal(readPages(dir).length, 3);
  assert.equal(figure(html, 'requests'), s.requests.length);
});

test('--report naming a file that is not a report of ours: refused with one line before any request, the file untouched (both programs)', async () => {
  const s = await site({ '/index.html': { body: page('home') } }, '127.0.0.1');
  const file = join(temp(), 'mine.html');
  writeFileSync(file, '<p>my own page</p>');
  for (const [program, args] of [
    ['crawler', ['--report', file, `${s.origin}/index.html`, temp(), '1']],
    ['KeywordHunter', ['--report', file, `${s.origin}/index.html`, 'x']],
  ] as const) {
    const r = await runProgram(program, [...args]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `${program}: --report ${file} exists and is not a report of ours: not overwriting it\n`);
  }
  assert.equal(s.requests.length, 0);
  assert.equal(readFileSync(file, 'utf8'), '<p>my own page</p>');
  const r = await runProgram('crawler', ['--report', join(temp(), 'r.txt'), `${s.origin}/index.html`, temp(), '1']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /--report takes a file name ending in \.html/);
});

/** A site of one start page linking to 8 pages, each linking back. */
async function ninePages(): Promise<SiteServer> {
  const routes: Record<string, Route> = { '/robots.txt': text('User-agent: *\n') };
  const links = Array.from({ length: 8 }, (_, i) => `/p${i}.html`);
  routes['/index.html'] = { body: page('home', links) };
  for (const l of links) routes[l] = { body: page(l, ['/index.html']) };
  return site(routes, '127.0.0.1');
}

/** The nine-page site, a page directory, a report file, and the crawl's arguments with `delay`. */
async function resumableCrawl(delay: string): Promise<{ s: SiteServer; dir: string; file: string; args: string[] }> {
  const s = await ninePages();
  const dir = temp();
  const file = join(temp(), 'r.html');
  return { s, dir, file, args: ['--delay', delay, '--report', file, `${s.origin}/index.html`, dir, '1'] };
}

/** Starts ./crawler and sends `signal` once `pages` pages are logged as saved. */
async function stopAfter(args: string[], pages: number, signal: NodeJS.Signals): Promise<RunResult> {
  const run = startProgram('crawler', args);
  await new Promise<void>((done) => {
    let out = '';
    run.child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if ((out.match(/Fetched/g) ?? []).length >= pages) done();
    });
  });
  run.child.kill(signal);
  return run.done;
}

test('a report after SIGINT, and the --resume that finishes the crawl reports the whole crawl', async () => {
  const { s, dir, file, args } = await resumableCrawl('0.15');
  const r1 = await stopAfter(args, 3, 'SIGINT');
  assert.equal(r1.code, 130, r1.stderr);
  const html1 = readFileSync(file, 'utf8');
  const saved1 = figure(html1, 'saved');
  assert.ok(saved1 >= 3 && saved1 < 9, `${saved1} pages saved before the stop`);
  assert.match(html1, /stopped by a signal/);
  const r2 = await runProgram('crawler', ['--resume', ...args]);
  assert.equal(r2.code, 0, r2.stderr);
  const html2 = readFileSync(file, 'utf8');
  assert.equal(figure(html2, 'saved'), 9, 'every page of the crawl, across both runs');
  assert.equal(figure(html2, 'requests'), s.requests.length, 'every request of both runs');
  assert.match(html2, /in 2 runs \(resumed\)/);
  assert.equal(readPages(dir).length, 9);
});

test('kill -9 at two points, then --resume: the report\'s records in the page directory cover every page, each under the page it was found on', async () => {
  const { s, dir, file, args } = await resumableCrawl('0.1');
  const first = await stopAfter(args, 2, 'SIGKILL');
  assert.equal(first.signal, 'SIGKILL');
  assert.ok(!existsSync(file), 'no report from a killed run');
  const second = await stopAfter(['--resume', ...args], 3, 'SIGKILL');
  assert.equal(second.signal, 'SIGKILL');
  const r = await runProgram('crawler', ['--resume', ...args]);
  assert.equal(r.code, 0, r.stderr);
  const html = readFileSync(file, 'utf8');
  assert.equal(figure(html, 'saved'), 9);
  // A killed run cannot tell the requests it had in flight or fetched ahead since its last page was done: one host, at most two a kill.
  const requests = figure(html, 'requests');
  assert.ok(requests <= s.requests.length && requests >= s.requests.length - 4, `${requests} of the ${s.requests.length} requests the server saw`);
  const model = new ReportModel();
  for (const rec of readRecords(readFileSync(join(dir, REPORT_JOURNAL), 'utf8'))) model.apply(rec);
  assert.deepEqual(model.roots().map((p) => p.url), [`${s.origin}/index.html`], 'every page under the start page');
  assert.equal(model.runs.length, 3);
});
