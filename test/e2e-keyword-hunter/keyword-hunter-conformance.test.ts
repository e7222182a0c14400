/**
 * google/robotstxt's expectations (test/fixtures/conformance/robots-google.json)
 * played through ./KeywordHunter itself, not the matcher module: every case
 * whose source is not a Google extension gets its own loopback server serving
 * the case's robots.txt; one start page on another server links to each
 * case's URL on its server; each LINK line's action must be `follow` when the
 * case says allowed and `robots_ignore` when not, and the server must see the
 * URL requested exactly when it is allowed.
 *
 * KeywordHunter's agent is fixed (ee122-KeywordHunter), so each robots.txt is
 * rewritten: the value of every `user-agent:` line whose product token is the
 * case's agent (compared case-insensitively, as RFC 9309 §2.2.1 matches) is
 * replaced by `ee122-KeywordHunter`. Groups for other agents, `*` groups and
 * every other line stay as written, so the case keeps its meaning: "the
 * agent's own group" is still ours and "someone else's group" still not.
 * Google-extension cases are left out (empty URLs, agents cut at a space,
 * index.html as directory: their meaning depends on the agent string or a
 * URL KeywordHunter cannot be given); test/robots/google-conformance.test.ts
 * covers them at the module level.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConformance } from '../helpers/conformance.js';
import { assertProtocolOnly, kh } from '../helpers/kh-harness.js';
import type { RunResult } from '../helpers/spawn.js';
import { startSite, type SiteServer } from '../helpers/site-server.js';

interface RobotsCase {
  name: string;
  robots: string;
  agent: string;
  url: string;
  allowed: boolean;
  source: string;
}

const FILE = 'robots-google.json';
/**
 * The case servers' address. Not 127.0.0.1: other test processes on the
 * machine pick "closed" ports there by binding and releasing them, and one of
 * 117 servers started at once could take such a port and get their request.
 */
const CASE_HOST = '127.0.0.77';
const OUR_AGENT = 'ee122-KeywordHunter';

/** The robots.txt with the case's agent replaced by ours on user-agent lines. */
function rewriteAgent(robots: string, agent: string): string {
  const token = agent.toLowerCase();
  return robots.replace(/^([ \t]*user-agent[ \t]*:[ \t]*)([A-Za-z0-9_-]+)/gim, (whole, head: string, value: string) =>
    value.toLowerCase() === token ? head + OUR_AGENT : whole,
  );
}

/** The path and query of a case URL as written ("#fragment" dropped). */
function pathOf(url: string): string {
  const rest = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '').replace(/#.*$/s, '');
  return rest === '' ? '/' : rest;
}

/**
 * Cases whose URL cannot reach KeywordHunter's matcher as written: a raw
 * non-ASCII path is percent-encoded on the request line (HTTP allows nothing
 * else), and RFC 9309 §2.2.2 matches that encoded target. Google's matcher
 * takes its URL argument as given, so its raw-"ツ" cases say disallowed; the
 * URL KeywordHunter requests is /foo/bar/%E3%83%84, which Google allows
 * (ID_Encoding#2 and #4). Each listed case must really differ from the data.
 */
const THROUGH_THE_PROGRAM: ReadonlyMap<string, { allowed: boolean; why: string }> = new Map([
  ['ID_Encoding#3', { allowed: true, why: 'requested as /foo/bar/%E3%83%84, which Google allows (ID_Encoding#2)' }],
  ['ID_Encoding#5', { allowed: true, why: 'requested as /foo/bar/%E3%83%84, which Google allows (ID_Encoding#4)' }],
]);

const all = loadConformance<RobotsCase[]>(FILE);

const cases = all.filter((c) => !c.source.includes('google-extension'));

describe('google/robotstxt conformance through KeywordHunter (agent rewritten to ee122-KeywordHunter)', () => {
  const sites: SiteServer[] = [];
  let start: SiteServer;
  let run: RunResult;
  /** port -> the LINK line actions printed for it. */
  const actions = new Map<number, string[]>();

  before(async () => {
    // One server per case, all up at once: one KeywordHunter run plays every case.
    sites.push(...(await Promise.all(cases.map((c) => startSite({ '/robots.txt': { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: rewriteAgent(c.robots, c.agent) } }, CASE_HOST)))));
    const links = cases.map((c, i) => `<a href="http://${CASE_HOST}:${(sites[i] as SiteServer).port}${pathOf(c.url)}">${c.name}</a>`);
    start = await startSite({ '/start.html': { body: `<html><body>\n${links.join('\n')}\n</body></html>\n` } });
    run = await kh([`${start.origin}/start.html`, 'NoSuchKeywordAnywhere'], { timeoutMs: 60_000 });
    for (const line of run.stdout.split('\n')) {
      const m = /^LINK:host=127\.0\.0\.77;port=([0-9]+);respath=.*;action=([a-z_]+)$/.exec(line);
      if (m === null) continue;
      const list = actions.get(Number(m[1])) ?? [];
      list.push(m[2] as string);
      actions.set(Number(m[1]), list);
    }
  });
  after(async () => {
    await Promise.all([...sites, start].filter(Boolean).map((s) => s.close()));
  });

  test('the run: exit 0, protocol lines only, NOT_FOUND_KEYWORD: last, a LINK line per case', () => {
    assert.equal(run.code, 0, run.stderr);
    assertProtocolOnly(run.stdout);
    assert.ok(run.stdout.endsWith('NOT_FOUND_KEYWORD:\n'));
    assert.equal(cases.length, 117, 'the 117 non-extension cases of the README');
    assert.equal([...actions.values()].flat().length, cases.length);
  });

  test('the rewrite keeps each robots.txt as written except the case agent\'s user-agent values', () => {
    assert.equal(rewriteAgent('User-agent: FooBot\nuser-agent:barbot\nUSER-AGENT : foobot/1.2\nfoo: FooBot\n', 'FooBot'), `User-agent: ${OUR_AGENT}\nuser-agent:barbot\nUSER-AGENT : ${OUR_AGENT}/1.2\nfoo: FooBot\n`);
  });

  test('each case in THROUGH_THE_PROGRAM exists, has a raw non-ASCII URL and really differs from the data', () => {
    for (const [name, o] of THROUGH_THE_PROGRAM) {
      const c = cases.find((x) => x.name === name);
      assert.ok(c !== undefined, name);
      assert.match(c.url, /[^\x00-\x7f]/, name);
      assert.notEqual(o.allowed, c.allowed, name);
    }
  });

  cases.forEach((c, i) => {
    const o = THROUGH_THE_PROGRAM.get(c.name);
    const allowed = o?.allowed ?? c.allowed;
    test(`${c.name}: ${pathOf(c.url)} ${allowed ? 'allowed (follow)' : 'disallowed (robots_ignore)'}${o ? ` (${o.why})` : ''}`, () => {
      const s = sites[i] as SiteServer;
      assert.deepEqual(actions.get(s.port), [allowed ? 'follow' : 'robots_ignore'], `robots.txt:\n${rewriteAgent(c.robots, c.agent)}`);
      assert.equal(s.paths()[0], '/robots.txt');
      assert.equal(s.requests.length, allowed ? 2 : 1, `${allowed ? 'the allowed URL was requested' : 'the disallowed URL was never requested'}: ${JSON.stringify(s.paths())}`);
    });
  });
});
