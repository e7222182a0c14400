/**
 * KeywordHunter in process (runKeywordHunter) over a page linking many
 * times to hosts whose names do not resolve, with the resolver's backend
 * injected (spec decision "Errors name their cause first"): each dead name
 * costs one lookup and one stderr line, while each of its pages keeps its
 * PAGE line (status 0) and each link its LINK line, as the protocol wants.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostResolver, type LookupAnswer } from '../../src/http/host-resolver.js';
import { socketConnector } from '../../src/http/socket-connector.js';
import { runKeywordHunter } from '../../src/programs/keyword-hunter.js';
import { KH_USER_AGENT } from '../../src/programs/keyword-settings.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { DEFAULT_MAX_PATH_SEGMENTS } from '../../src/url/limits.js';
import { recordingIo } from '../helpers/fakes.js';
import { page, startSite } from '../helpers/site-server.js';

const DEAD = ['gone.test', 'also-gone.test'];
const LINKS_EACH = 30;

test('a dead host linked 30 times: one lookup and one stderr line per host; every page still has its PAGE line, status 0', async (t) => {
  const links = DEAD.flatMap((host) => Array.from({ length: LINKS_EACH }, (_, i) => `http://${host}/p${i}.html`));
  const site = await startSite({ '/index.html': { body: page('start', [...links, '/last.html']) }, '/last.html': { body: page('last') } });
  t.after(() => site.close());
  const asked: string[] = [];
  const resolver = new HostResolver({
    backend: async (name): Promise<LookupAnswer> => {
      asked.push(name);
      await new Promise((r) => setTimeout(r, 20));
      throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    },
  });
  const rec = recordingIo();
  const code = await runKeywordHunter(
    {
      start: parseHttpUrl(`${site.origin}/index.html`),
      keyword: 'no such keyword anywhere',
      outputDir: undefined,
      delayMs: 0,
      delayFactor: 0,
      maxUrlLength: 2048,
      maxRedirects: 5,
      maxRetryAfterMs: 120_000,
      maxPathSegments: DEFAULT_MAX_PATH_SEGMENTS,
      client: { userAgent: KH_USER_AGENT, connector: socketConnector(resolver), connectTimeoutMs: 2000 },
      concurrency: 4,
      connectionsPerHost: 1,
      progress: false,
    },
    rec.io,
  );
  assert.equal(code, 0);
  assert.deepEqual(asked.sort(), [...DEAD].sort(), 'one lookup per dead name, robots.txt and pages alike');

  const out = rec.out().split('\n');
  for (const host of DEAD) {
    const pages = out.filter((l) => l.startsWith(`PAGE:host=${host};`));
    assert.equal(pages.length, LINKS_EACH, `a PAGE line for each page of ${host}`);
    assert.ok(pages.every((l) => l.endsWith(';status=0')));
    assert.equal(out.filter((l) => l.startsWith(`LINK:host=${host};`)).length, LINKS_EACH);
    const told = rec.stderr.filter((l) => l.includes(`//${host}/`));
    assert.deepEqual(told, [`KeywordHunter: http://${host}/p0.html: cannot resolve ${host}: host name not found (told once for ${host})\n`]);
  }
  assert.ok(out.includes(`PAGE:host=127.0.0.1;port=${site.port};respath=/last.html;status=200`), 'the search goes on past them');
  assert.equal(out.at(-2), 'NOT_FOUND_KEYWORD:');
});
