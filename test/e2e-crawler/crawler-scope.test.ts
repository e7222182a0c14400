/**
 * ./crawler end to end, the scope of a broad crawl (spec decision "Many
 * hosts"): --internal-domain, --any-host, --exclude and --seeds.
 *
 * Bad input: exit 1, one line (plus the usage line for an option's value),
 * no request at the server, the pageDirectory as it was. Good input: broad
 * crawls over several loopback hosts: IP addresses (127.0.1.x, all loopback
 * on Linux) and names under `localhost` (RFC 6761 §6.3: the HTTP client's
 * resolver answers `*.localhost` with the loopback addresses, no DNS), each
 * checked for exactly which pages were saved and that nothing out of scope,
 * excluded or disallowed was ever requested.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertCleanError, crawl } from '../helpers/crawler-e2e.js';
import { parseLog, urlsWith } from '../helpers/cs50-log.js';
import { pageList } from '../helpers/page-files.js';
import { page, startSite, type Route, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('crawler-scope-');

const robotsTxt = (text: string): Route => ({ headers: { 'content-type': 'text/plain' }, body: text });

/** One server on 127.0.0.1 that answers by Host name (`pages[name][path]`, else 404): several hosts on one port. */
interface VirtualHosts {
  site: SiteServer;
  port: number;
  /** `name:port` of each name. */
  host(name: string): string;
  /** Every request, as `name path`, in order of arrival. */
  seen(): string[];
}

/** `pages(port)`: each name's routes, made once the port is known (their links name it). */
async function virtualHosts(pages: (port: number) => Record<string, Record<string, Route>>): Promise<VirtualHosts> {
  let table: Record<string, Record<string, Route>> = {};
  const answer: Route = {
    handle(req, res) {
      const name = (req.headers.host ?? '').replace(/:\d+$/, '');
      const route = table[name]?.[req.url ?? ''];
      res.writeHead(route?.status ?? (route === undefined ? 404 : 200), { 'content-type': 'text/html', ...route?.headers });
      res.end(route?.body ?? page('not found'));
    },
  };
  const site = await startSite(new Map());
  table = pages(site.port);
  for (const path of new Set(Object.values(table).flatMap((p) => Object.keys(p)))) site.routes.set(path, answer);
  return {
    site,
    port: site.port,
    host: (name) => `${name}:${site.port}`,
    seen: () => site.requests.map((r) => `${(r.headers.host ?? '').replace(/:\d+$/, '')} ${r.path}`),
  };
}

/** A directory that already holds a file of the user's: a refused run must leave it exactly so. */
function userDir(): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'notes.txt'), 'mine');
  return dir;
}

function seedFile(lines: string[] | Buffer): string {
  const file = join(tempDir(), 'seeds.txt');
  writeFileSync(file, Buffer.isBuffer(lines) ? lines : lines.join('\n'));
  return file;
}

describe('bad input: exit 1, one line, no request, the pageDirectory untouched', { concurrency: true }, () => {
  /** A server that only the runs below point at: any request it gets is theirs. */
  let untouched: SiteServer;
  before(async () => {
    untouched = await startSite({ '/robots.txt': robotsTxt(''), '/': { body: page('home') }, '/a.html': { body: page('a') } });
  });
  after(async () => {
    assert.deepEqual(untouched.paths(), [], 'no request, from any of these runs');
    assert.equal(untouched.connections, 0, 'not even a connection');
    await untouched.close();
  });

  async function refused(args: (seed: string) => string[], message: RegExp, usageHint: boolean): Promise<void> {
    const dir = userDir();
    const r = await crawl([...args(`${untouched.origin}/`), dir, '1']);
    assertCleanError(r, message, { usageHint });
    assert.deepEqual(readdirSync(dir), ['notes.txt'], 'the pageDirectory as it was: no marker, no state, no page');
  }

  const domain: Array<[string, RegExp]> = [
    ['', /^crawler: invalid --internal-domain "": it is empty/],
    ['http://example.org', /^crawler: invalid --internal-domain "http:\/\/example\.org": give a domain name such as example\.org, not a URL/],
    ['example.org/docs', /not a URL/],
    ['*.example.org', /without "\*\.": example\.org covers all its subdomains/],
    ['example.org:8080', /a domain covers every port/],
    ['exa mple.org', /no spaces/],
    ['ex!ample.org', /not a domain name/],
  ];
  for (const [value, message] of domain) {
    test(`--internal-domain ${JSON.stringify(value)}: refused, saying why`, () => refused((seed) => ['--internal-domain', value, seed], message, true));
  }

  const exclude: Array<[string, RegExp]> = [
    ['(', /^crawler: invalid --exclude "\(": not a JavaScript regular expression: Unterminated group$/],
    ['[z-a]', /^crawler: invalid --exclude "\[z-a\]": not a JavaScript regular expression: Range out of order in character class$/],
    // Echoed as typed: its backslash is not doubled.
    ['(a)\\1', /^crawler: invalid --exclude "\(a\)\\1": it cannot be matched in linear time/],
    ['(?<!x)y', /cannot be matched in linear time/],
    ['', /^crawler: invalid --exclude "": it is empty/],
  ];
  for (const [value, message] of exclude) {
    test(`--exclude ${JSON.stringify(value)}: refused, naming it and why`, () => refused((seed) => ['--exclude', value, seed], message, true));
  }
  test('a second, bad --exclude after a good one: refused, naming the bad one', () => refused((seed) => ['--exclude', '/ok/', '--exclude', '+', seed], /^crawler: invalid --exclude "\+": .*Nothing to repeat/, true));

  test('--any-host with a value: refused (it is a switch)', () => refused((seed) => ['--any-host=yes', seed], /^crawler: --any-host takes no value$/, true));

  test('seedURL outside --internal-domain: refused, saying so', () =>
    refused((seed) => ['--internal-domain', 'example.org', seed], /^crawler: seedURL http:\/\/127\.0\.0\.1:\d+\/ is not inside --internal-domain example\.org$/, true));
  test('seedURL excluded by --exclude: refused, naming the pattern', () => refused((seed) => ['--exclude', '127\\.0\\.0\\.1', seed], /^crawler: seedURL .* is excluded by --exclude "127\\\\.0\\\\.0\\\\.1"$/, true));

  test('--seeds: a file that does not exist', () => refused((seed) => ['--seeds', '/nonexistent/seeds.txt', seed], /^crawler: cannot read --seeds "\/nonexistent\/seeds\.txt": no such file$/, false));
  test('--seeds: a directory', () => refused((seed) => ['--seeds', tempDir(), seed], /^crawler: --seeds ".*" is a directory, not a file of URLs$/, false));
  test('--seeds: a file with no URL in it', () => refused((seed) => ['--seeds', seedFile(['# nothing yet', '']), seed], /^crawler: --seeds ".*seeds\.txt" holds no URL/, false));
  test('--seeds: a file that is not UTF-8', () => refused((seed) => ['--seeds', seedFile(Buffer.from('http://a.test/\xff\n', 'latin1')), seed], /is not UTF-8 text$/, false));
  test('--seeds: a line that is not an absolute http(s) URL, named by file and line number', () =>
    refused((seed) => ['--seeds', seedFile([`${seed}a.html`, '# c', '', 'www.example.org/page']), seed], /^crawler: --seeds ".*seeds\.txt" line 4: "www\.example\.org\/page" is not an absolute http\(s\) URL/, false));
  test('--seeds: a line with two URLs', () =>
    refused((seed) => ['--seeds', seedFile([`${seed}a.html ${seed}`]), seed], /^crawler: --seeds ".*" line 1: .* is not one URL \(one URL a line, no spaces\)$/, false));
  test('--seeds: a seed outside the scope given, named by file and line number', () =>
    refused((seed) => ['--internal', seed, '--seeds', seedFile([`${seed}a.html`, 'http://127.0.0.1:1/elsewhere']), seed], /^crawler: --seeds ".*" line 2: http:\/\/127\.0\.0\.1:1\/elsewhere is not inside --internal http:\/\/127\.0\.0\.1:\d+\/$/, true));
  test('--seeds: a seed that --exclude takes out', () =>
    refused((seed) => ['--exclude', '/a\\.html$', '--seeds', seedFile([`${seed}a.html`]), seed], /^crawler: --seeds ".*" line 1: .*\/a\.html is excluded by --exclude "\/a\\\\\.html\$"$/, true));
});

describe('broad crawls over loopback hosts', () => {
  test('--any-host: links to other hosts are followed to maxDepth, each host\'s robots.txt obeyed; nothing past maxDepth requested', async () => {
    const hosts = await Promise.all(['127.0.1.1', '127.0.1.2', '127.0.1.3'].map((h) => startSite({}, h)));
    const [h1, h2, h3] = hosts as [SiteServer, SiteServer, SiteServer];
    try {
      h1.routes.set('/', { body: page('one', [`${h2.origin}/`, `${h3.origin}/x.html`, '/own.html']) });
      h1.routes.set('/own.html', { body: page('own') });
      h2.routes.set('/robots.txt', robotsTxt('User-agent: *\nDisallow: /secret.html\n'));
      h2.routes.set('/', { body: page('two', ['/secret.html', `${h3.origin}/deep.html`]) });
      h2.routes.set('/secret.html', { body: page('secret') });
      h3.routes.set('/x.html', { body: page('three', ['/deeper.html']) });
      h3.routes.set('/deep.html', { body: page('deep') });
      h3.routes.set('/deeper.html', { body: page('too deep') });
      const dir = tempDir();
      const r = await crawl(['--delay', '0', '--any-host', `${h1.origin}/`, dir, '2']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(pageList(dir), [`1 ${h1.origin}/ 0`, `2 ${h2.origin}/ 1`, `3 ${h3.origin}/x.html 1`, `4 ${h1.origin}/own.html 1`, `5 ${h3.origin}/deep.html 2`, `6 ${h3.origin}/deeper.html 2`]);
      assert.deepEqual(urlsWith(parseLog(r.stdout), 'IgnRobots'), [`${h2.origin}/secret.html`]);
      assert.deepEqual(h1.paths(), ['/robots.txt', '/', '/own.html']);
      assert.deepEqual(h2.paths(), ['/robots.txt', '/'], 'the disallowed page is never requested');
      assert.deepEqual([...h3.paths()].sort(), ['/deep.html', '/deeper.html', '/robots.txt', '/x.html']);
    } finally {
      await Promise.all(hosts.map((h) => h.close()));
    }
  });

  test('--internal-domain localhost: a.localhost and b.localhost are crawled; other names, the bare address and excluded URLs are never requested', async () => {
    const v = await virtualHosts((port) => ({
      'a.localhost': {
        '/': { body: page('a', [`http://b.localhost:${port}/`, `http://127.0.0.1:${port}/`, `http://badlocalhost:${port}/`, `http://localhost.example:${port}/`, '/private/p.html', '/a.html']) },
        '/a.html': { body: page('a.html', ['/private/q.html']) },
        '/private/p.html': { body: page('excluded') },
      },
      'b.localhost': {
        '/robots.txt': robotsTxt('User-agent: *\nDisallow: /nope.html\n'),
        '/': { body: page('b', ['/b.html', '/nope.html', `http://c.b.LOCALHOST:${port}/`]) },
        '/b.html': { body: page('b.html') },
        '/nope.html': { body: page('disallowed') },
      },
      'c.b.localhost': { '/': { body: page('c.b') } },
      '127.0.0.1': { '/': { body: page('the address') } },
    }));
    try {
      const dir = tempDir();
      const [a, b, c] = ['a.localhost', 'b.localhost', 'c.b.localhost'].map((n) => `http://${v.host(n)}`) as [string, string, string];
      const r = await crawl(['--delay', '0', '--internal-domain', 'localhost', '--exclude', '/private/', `${a}/`, dir, '2']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(pageList(dir), [`1 ${a}/ 0`, `2 ${b}/ 1`, `3 ${a}/a.html 1`, `4 ${b}/b.html 2`, `5 ${c}/ 2`]);
      const log = parseLog(r.stdout);
      assert.deepEqual(urlsWith(log, 'IgnExtrn'), [`http://127.0.0.1:${v.port}/`, `http://badlocalhost:${v.port}/`, `http://localhost.example:${v.port}/`, `${a}/private/p.html`, `${a}/private/q.html`]);
      assert.deepEqual(urlsWith(log, 'IgnRobots'), [`${b}/nope.html`]);
      const requested = ['a.localhost /robots.txt', 'a.localhost /', 'a.localhost /a.html', 'b.localhost /robots.txt', 'b.localhost /', 'b.localhost /b.html', 'c.b.localhost /robots.txt', 'c.b.localhost /'];
      assert.deepEqual([...v.seen()].sort(), [...requested].sort(), 'each page once; no other name, no address, nothing excluded or disallowed');
    } finally {
      await v.site.close();
    }
  });

  test('--seeds: every seed at depth 0 after seedURL, in file order, each once; the default scope is every seed\'s origin; a seed that fails is a Failed line among the others', async () => {
    const hosts = await Promise.all(['127.0.1.4', '127.0.1.5', '127.0.1.6', '127.0.1.7'].map((h) => startSite({}, h)));
    const [h1, h2, h3, outside] = hosts as [SiteServer, SiteServer, SiteServer, SiteServer];
    try {
      h1.routes.set('/', { body: page('one', [`${h2.origin}/`, '/one-a.html', `${outside.origin}/`]) });
      h1.routes.set('/one-a.html', { body: page('one-a') });
      h2.routes.set('/', { body: page('two', ['/two-a.html', `${h3.origin}/three.html`]) });
      h2.routes.set('/two-a.html', { body: page('two-a') });
      h3.routes.set('/three.html', { body: page('three', [`${h1.origin}/one-a.html`]) });
      outside.routes.set('/', { body: page('not a seed\'s host') });
      const seeds = seedFile(['# the seed list', `  ${h3.origin}/three.html  `, '', `${h2.origin}/missing.html`, `${h1.origin}/`, `${h2.origin}/`, '# done', `${h3.origin}/three.html`]);
      const dir = tempDir();
      const r = await crawl(['--delay', '0', '--seeds', seeds, `${h1.origin}/`, dir, '1']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(pageList(dir), [`1 ${h1.origin}/ 0`, `2 ${h3.origin}/three.html 0`, `3 ${h2.origin}/ 0`, `4 ${h1.origin}/one-a.html 1`, `5 ${h2.origin}/two-a.html 1`]);
      const log = parseLog(r.stdout);
      assert.deepEqual(log.filter((l) => l.word === 'Failed').map((l) => `${l.depth} ${l.url} ${l.reason}`), [`0 ${h2.origin}/missing.html (HTTP 404)`]);
      assert.deepEqual(urlsWith(log, 'IgnExtrn'), [`${outside.origin}/`], 'the default scope: the seeds\' origins, not every host they link to');
      assert.deepEqual(urlsWith(log, 'IgnDupl'), [`${h2.origin}/`, `${h1.origin}/one-a.html`, `${h3.origin}/three.html`]);
      assert.deepEqual(outside.paths(), []);
      assert.deepEqual(h3.paths(), ['/robots.txt', '/three.html'], 'a seed listed twice is requested once');
      assert.deepEqual(h2.paths(), ['/robots.txt', '/missing.html', '/', '/two-a.html']);
      assert.match(r.stderr, /saved 5 pages/);
    } finally {
      await Promise.all(hosts.map((h) => h.close()));
    }
  });

  test('--seeds: when no seed at all can be crawled, each is a Failed line, then a PANIC naming the first failure, exit 1, the directory as it was', async () => {
    const site = await startSite({ '/robots.txt': robotsTxt('User-agent: *\nDisallow: /private/\n') }, '127.0.1.8');
    try {
      const dir = userDir();
      const r = await crawl(['--delay', '0', '--seeds', seedFile([`${site.origin}/gone.html`, `${site.origin}/private/p.html`]), `${site.origin}/missing.html`, dir, '1']);
      assert.equal(r.code, 1, r.stderr);
      // robots.txt is read for every seed before the first is fetched: a seed it disallows is told first.
      assert.deepEqual(parseLog(r.stdout).map((l) => `${l.word} ${l.url} ${l.reason}`), [
        `Failed ${site.origin}/private/p.html (disallowed by robots.txt)`,
        `Failed ${site.origin}/missing.html (HTTP 404)`,
        `Failed ${site.origin}/gone.html (HTTP 404)`,
      ]);
      assert.equal(r.stderr, `crawler: PANIC: cannot crawl any of the 3 seeds; the first, ${site.origin}/private/p.html: robots.txt disallows it\nUse --ignore-robots to crawl it anyway.\n`);
      assert.deepEqual(readdirSync(dir), ['notes.txt'], 'the directory as it was found');
      assert.deepEqual(site.paths(), ['/robots.txt', '/missing.html', '/gone.html'], 'the disallowed seed is never requested');
      const unreached = await crawl(['--delay', '0', '--quiet', '--seeds', seedFile(['http://127.0.0.1:1/']), `${site.origin}/gone.html`, userDir(), '1']);
      // The seed whose host refuses: its robots.txt request found it out, before the first seed was fetched; the cause comes first.
      assertCleanError(unreached, /^crawler: PANIC: cannot crawl any of the 2 seeds; the first, http:\/\/127\.0\.0\.1:1\/: cannot connect to 127\.0\.0\.1:1: connection refused$/, { hint: /^Check the URL's host and port/ });
    } finally {
      await site.close();
    }
  });

  test('--seeds and --exclude with --frontier: the seeds go into the shared crawl once; a worker with another scope or seed list is refused; the same command joins', async () => {
    const hosts = await Promise.all(['127.0.1.9', '127.0.1.10'].map((h) => startSite({}, h)));
    const [h1, h2] = hosts as [SiteServer, SiteServer];
    try {
      h1.routes.set('/', { body: page('one', ['/a.html', '/skip/b.html']) });
      h1.routes.set('/a.html', { body: page('a') });
      h2.routes.set('/', { body: page('two', ['/c.html']) });
      h2.routes.set('/c.html', { body: page('c') });
      const frontier = `sqlite:${join(tempDir(), 'frontier.db')}`;
      const seeds = seedFile([`${h2.origin}/`]);
      const args = ['--delay', '0', '--frontier', frontier, '--internal-domain', '127.0.1.9', '--internal-domain', '127.0.1.10', '--exclude', '/skip/', '--seeds', seeds, `${h1.origin}/`];
      const dir = tempDir();
      const r = await crawl([...args, dir, '1']);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(pageList(dir).map((l) => l.replace(/^\d+ /, '')).sort(), [`${h1.origin}/ 0`, `${h1.origin}/a.html 1`, `${h2.origin}/ 0`, `${h2.origin}/c.html 1`].sort());
      assert.deepEqual([...h1.paths(), ...h2.paths()].filter((p) => p.includes('skip')), []);
      const other = await crawl([...args.map((a) => (a === '/skip/' ? '/other/' : a)), tempDir(), '1']);
      assertCleanError(other, /^crawler: frontier .* holds another crawl: its scope is another \(give every worker the same --internal, --internal-domain, --any-host and --exclude\)$/, { usageHint: false });
      const noSeeds = await crawl([...args.filter((a) => a !== '--seeds' && a !== seeds), tempDir(), '1']);
      assertCleanError(noSeeds, /^crawler: frontier .* holds another crawl: its seed list is another: 1 seed after .* \(--seeds\), not 0: give every worker the same seed file$/, { usageHint: false });
      const again = await crawl([...args, tempDir(), '1']);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /the crawl is done: 4 pages in all/);
    } finally {
      await Promise.all(hosts.map((h) => h.close()));
    }
  });
});
