/**
 * crawler --frontier: several worker processes run one crawl. Three
 * loopback hosts (127.0.0.1 to 127.0.0.3, one port) stand in for three
 * servers; their pages link across hosts. Checked at the end: every
 * reachable page saved exactly once across the workers' page directories,
 * IDs 1..N with no gap, no temporary file, and at the servers no two
 * request starts to one host closer than the delay, even when a worker is
 * killed with SIGKILL in the middle of a fetch.
 */
// run-tests: long (12 s: workers spawned)
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertStartsApart } from '../helpers/arrivals.js';
import { crawl } from '../helpers/crawler-e2e.js';
import { readPages } from '../helpers/page-files.js';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';
import { refusedPort } from '../helpers/refused-port.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { startProgram, type StartedProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('crawler-e2e-');

const HOSTS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
const DELAY = 0.2;
const PAGES = 5; // per host: /p0.html .. /p4.html
const HANG = '/hang.html'; // on the second host: the first request to it never gets an answer

interface Hosts {
  sites: SiteServer[];
  /** The --internal flags that make the three hosts one crawl. */
  internal: string[];
  seed: string;
  /** Every page a full crawl saves. */
  reachable: string[];
  /** Called with the request's User-Agent when the hanging page is first requested. */
  onHang: (agent: string) => void;
}

/**
 * p_i on each host links to p_(i+1) on every host, to its own /p0.html and
 * to a disallowed page; host 2's p1 also links to the hanging page. maxDepth
 * 3 from 127.0.0.1/p0: p0..p3 on every host, and the hanging page (13).
 */
async function startHosts(): Promise<Hosts> {
  const first = await startSite(new Map<string, Route>(), HOSTS[0]);
  const sites = [first];
  for (const host of HOSTS.slice(1)) sites.push(await startSite(new Map<string, Route>(), host, first.port));
  const hosts: Hosts = { sites, internal: sites.flatMap((s) => ['--internal', s.origin]), seed: `${first.origin}/p0.html`, reachable: [], onHang: () => undefined };
  let hung = false;
  for (const site of sites) {
    site.routes.set('/robots.txt', { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' });
    for (let p = 0; p < PAGES; p++) {
      const links = sites.map((t) => `${t.origin}/p${p + 1}.html`);
      links.push('/private/secret.html', '/p0.html');
      if (site === sites[1] && p === 1) links.push(HANG);
      site.routes.set(`/p${p}.html`, { body: page(`${site.host} page ${p}`, links) });
    }
  }
  (sites[1] as SiteServer).routes.set(HANG, {
    handle: (req, res) => {
      if (!hung) {
        hung = true;
        hosts.onHang(String(req.headers['user-agent']));
        return; // no answer: the worker waits until it is killed
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(page('finally'));
    },
  });
  // Depth 0: p0 of the first host; every page links p(i+1) on each host and /p0.html on its own.
  hosts.reachable = [`${sites[1]?.origin}${HANG}`];
  for (const s of sites) for (let p = 0; p <= 3; p++) hosts.reachable.push(`${s.origin}/p${p}.html`);
  hosts.reachable.sort();
  // Warm each server up (its parser compiled) so arrival times are those of the requests.
  for (const s of sites) {
    await fetch(`${s.origin}/robots.txt`).then((r) => r.text());
    s.requests.length = 0;
  }
  return hosts;
}

function startWorker(args: string[], agent: string): StartedProgram {
  return startProgram('crawler', ['--user-agent', agent, '--quiet', ...args], { timeoutMs: 60_000 });
}

/** Every page file across the directories: each reachable URL once, IDs 1..N, no temporary file. */
function assertSavedOnce(dirs: string[], reachable: string[]): void {
  const pages = dirs.flatMap((d) => readPages(d));
  assert.deepEqual(
    pages.map((p) => p.url).sort(),
    reachable,
    'each reachable page saved exactly once, across all workers',
  );
  assert.deepEqual(
    pages.map((p) => p.id).sort((a, b) => a - b),
    reachable.map((_, i) => i + 1),
    'IDs 1..N with no gap and no duplicate',
  );
  for (const d of dirs) assert.deepEqual(readdirSync(d).filter((n) => n.startsWith('.tmp')), [], `no temporary file in ${d}`);
}

/**
 * At each server, no two request starts closer than the delay. A server
 * notes a request when this process gets to it, which on a loaded machine
 * can be well after it arrived; each arrival is a window (arrivals.ts), and
 * a gap fails only when it was certainly below the delay.
 */
function assertPolite(sites: SiteServer[]): void {
  for (const site of sites) assertStartsApart(site.requests, DELAY * 1000, `${site.host}: requests`, (i) => site.requests[i]?.path ?? '');
}

async function sharedCrawl(t: TestContext, frontier: string, dirs: string[]): Promise<void> {
  const hosts = await startHosts();
  t.after(() => Promise.all(hosts.sites.map((s) => s.close())));
  const args = (dir: string): string[] => ['--frontier', frontier, '--delay', String(DELAY), '--lease', '2', ...hosts.internal, hosts.seed, dir, '3'];
  const workers = dirs.map((dir, i) => startWorker(args(dir), `polite-crawler/0.1 worker-${i}`));
  let killed = -1;
  hosts.onHang = (agent) => {
    killed = Number(/worker-([0-9])/.exec(agent)?.[1]);
    workers[killed]?.child.kill('SIGKILL');
  };
  const ends = await Promise.all(workers.map((w) => w.done));
  assert.ok(killed >= 0, 'a worker asked for the hanging page and was killed');
  for (const [i, end] of ends.entries()) {
    if (i === killed) assert.equal(end.signal, 'SIGKILL');
    else {
      assert.equal(end.code, 0, `worker ${i}: ${end.stderr}`);
      assert.match(end.stderr, new RegExp(`the crawl is done: ${hosts.reachable.length} pages in all`));
    }
  }
  // The killed worker may have left a page staged by another lane: for a
  // claim it never completed, or one the database recorded before the page
  // had its name (then the others fetched that URL again once the lease ran
  // out). Run again, it finds the crawl done and removes what it left (one
  // such file is planted, so the check is certain).
  writeFileSync(join(dirs[killed] as string, '.tmp-1-1-staged'), 'a page staged by a worker that died\n');
  const again = await startWorker(args(dirs[killed] as string), `polite-crawler/0.1 worker-${killed}-again`).done;
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /this worker saved 0 pages in .*; the crawl is done/);
  assertSavedOnce(dirs, hosts.reachable);
  assertPolite(hosts.sites);
  // The hanging page was requested twice (the dead worker's lease ran out), saved once.
  assert.equal((hosts.sites[1] as SiteServer).paths().filter((p) => p === HANG).length, 2);
  // robots.txt: asked once per host, and nothing it forbids was requested.
  for (const s of hosts.sites) {
    assert.equal(s.paths().filter((p) => p === '/robots.txt').length, 1, `${s.host}: robots.txt once`);
    assert.equal(s.paths().filter((p) => p.startsWith('/private')).length, 0, `${s.host}: nothing disallowed`);
  }
}

// Skips are marked on each test (the runner does not count tests inside a skipped suite).
describe('crawler --frontier postgresql://: three workers, three hosts', () => {
  test('one worker killed with SIGKILL while its fetch hangs: every page saved once, IDs 1..N, delay held at the servers', { skip: pgSkipReason }, async (t) => {
    const db = await freshDatabase();
    t.after(() => db.drop());
    await sharedCrawl(t, db.url, [tempDir(), tempDir(), tempDir()]);
  });

  test('a worker started with another maxDepth is refused with one line, exit 1', { skip: pgSkipReason }, async (t) => {
    const db = await freshDatabase();
    t.after(() => db.drop());
    const hosts = await startHosts();
    t.after(() => Promise.all(hosts.sites.map((s) => s.close())));
    const first = await crawl(['--frontier', db.url, '--delay', '0', '--quiet', hosts.seed, tempDir(), '0']);
    assert.equal(first.code, 0, first.stderr);
    const other = await crawl(['--frontier', db.url, '--delay', '0', hosts.seed, tempDir(), '2']);
    assert.equal(other.code, 1);
    assert.match(other.stderr, /^crawler: frontier database postgresql:\/\/postgres@[^ ]+ holds another crawl: its maxDepth is 0, not 2\n$/);
  });
});

describe('crawler --frontier sqlite:FILE: workers on one machine', () => {
  test('two workers, one killed with SIGKILL while its fetch hangs, then started again: every page once, IDs 1..N', async (t) => {
    const file = join(tempDir(), 'frontier.db');
    const hosts = await startHosts();
    t.after(() => Promise.all(hosts.sites.map((s) => s.close())));
    const dirs = [tempDir(), tempDir()];
    const args = (dir: string): string[] => ['--frontier', `sqlite:${file}`, '--delay', String(DELAY), '--lease', '1', ...hosts.internal, hosts.seed, dir, '3'];
    const workers = dirs.map((dir, i) => startWorker(args(dir), `polite-crawler/0.1 worker-${i}`));
    let killed = -1;
    hosts.onHang = (agent) => {
      killed = Number(/worker-([0-9])/.exec(agent)?.[1]);
      workers[killed]?.child.kill('SIGKILL');
    };
    while (killed < 0) await sleep(20);
    assert.equal((await (workers[killed] as (typeof workers)[number]).done).signal, 'SIGKILL');
    // The killed worker comes back: it joins the crawl it was part of.
    const again = startWorker(args(dirs[killed] as string), `polite-crawler/0.1 worker-${killed}-again`);
    const ends = await Promise.all([again.done, (workers[1 - killed] as (typeof workers)[number]).done]);
    for (const end of ends) assert.equal(end.code, 0, end.stderr);
    assertSavedOnce(dirs, hosts.reachable);
    assertPolite(hosts.sites);
  });

  test('--strict-bfs: two workers save every depth before the next (IDs in depth order)', async (t) => {
    const file = join(tempDir(), 'frontier.db');
    const hosts = await startHosts();
    t.after(() => Promise.all(hosts.sites.map((s) => s.close())));
    hosts.onHang = () => undefined;
    (hosts.sites[1] as SiteServer).routes.delete(HANG);
    const dirs = [tempDir(), tempDir()];
    const ends = await Promise.all(
      dirs.map((dir, i) => startWorker(['--frontier', `sqlite:${file}`, '--strict-bfs', '--delay', '0.05', ...hosts.internal, hosts.seed, dir, '3'], `w${i}`).done),
    );
    for (const end of ends) assert.equal(end.code, 0, end.stderr);
    const pages = dirs.flatMap((d) => readPages(d)).sort((a, b) => a.id - b.id);
    assert.equal(pages.length, 12, 'p0..p3 on three hosts (the hanging page is a 404 here)');
    const depths = pages.map((p) => p.depth);
    assert.deepEqual(depths, [...depths].sort((a, b) => a - b), `depth by ID: ${depths.join(' ')}`);
  });

  test('robots.txt answering 503 means disallow all: the worker that meets the seed says PANIC, exit 1; the host gets nothing else', async (t) => {
    const s = await startSite({ '/robots.txt': { status: 503, body: 'busy' }, '/': { body: page('home') } });
    t.after(() => s.close());
    const dir = tempDir();
    const r = await crawl(['--frontier', `sqlite:${join(dir, 'f.db')}`, '--delay', '0', `${s.origin}/`, dir, '1']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /robots\.txt answered HTTP 503, which means disallow all \(RFC 9309\)/);
    // The PANIC names what decided: robots.txt's 503, not rules it never gave.
    assert.match(r.stderr, new RegExp(`^crawler: PANIC: cannot crawl ${s.origin}/: ${s.origin}/robots\\.txt answered HTTP 503, which means disallow all \\(RFC 9309\\)\nUse --ignore-robots to crawl it anyway\\.$`, 'm'));
    assert.deepEqual(s.paths(), ['/robots.txt']);
  });

  test('bad worker options: one line each, exit 1, nothing crawled', async (t) => {
    const hosts = await startHosts();
    t.after(() => Promise.all(hosts.sites.map((s) => s.close())));
    const dir = tempDir();
    const refused = await refusedPort();
    const cases: Array<[string[], RegExp]> = [
      [['--frontier', 'mysql://h/db'], /--frontier must be postgresql:\/\/USER@HOST:PORT\/DB or sqlite:FILE, got "mysql:\/\/h\/db"/],
      [['--frontier', `sqlite:${join(dir, 'f.db')}`, '--resume'], /--resume does not go with --frontier/],
      [['--strict-bfs'], /--strict-bfs goes with --frontier/],
      [['--frontier', `sqlite:${join(dir, 'f.db')}`, '--lease', '0'], /--lease must be more than 0 seconds/],
      [['--frontier', `sqlite:${join(dir, 'no-such-dir', 'f.db')}`], /cannot open the frontier .*no-such-dir/],
      [['--frontier', `postgresql://nobody:secret@127.0.0.1:${refused}/none`], new RegExp(`^crawler: cannot reach the frontier database postgresql://nobody:\\*\\*\\*@127\\.0\\.0\\.1:${refused}/none: connection refused; is PostgreSQL running there`)],
      [['--frontier', `postgresql://nobody@/none?host=${encodeURIComponent(join(dir, 'no-socket-here'))}`], /^crawler: cannot reach the frontier database postgresql:\/\/nobody@\/none\?host=.*: no server socket there \(is PostgreSQL running there/],
    ];
    for (const [flags, message] of cases) {
      const r = await crawl([...flags, hosts.seed, dir, '1']);
      assert.equal(r.code, 1, `${flags.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message);
      assert.equal(r.stderr.trim().split('\n').length <= 2, true, `one line (and the usage hint): ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /secret|\n\s+at /, 'no password, no stack trace');
    }
    for (const s of hosts.sites) assert.deepEqual(s.paths(), [], 'nothing was requested');
  });
});
