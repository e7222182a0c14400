/**
 * linksOnRules (src/engine/links-on-rules.ts): as each host's robots.txt
 * rules come, the page's links to that host that the scan will follow,
 * for the crawl's window to fetch ahead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CrawlerError } from '../../src/errors.js';
import type { LinkAction } from '../../src/engine/events.js';
import { linksOnRules, type AheadLinks } from '../../src/engine/links-on-rules.js';
import type { PageLink } from '../../src/engine/page-links.js';
import { RobotsRules } from '../../src/robots/rules.js';
import { parseHttpUrl } from '../../src/url/http-url.js';

const A = 'http://127.0.0.1:8001';
const B = 'http://127.0.0.1:8002';

/** A page's links (one not a URL) and what the scan decided at once for each (undefined: waits for its host's rules). */
function page(): { links: PageLink[]; actions: Array<LinkAction | undefined> } {
  const rows: Array<[string, LinkAction | undefined]> = [
    [`${A}/one.html`, undefined],
    [`${B}/x.html`, undefined],
    [`${A}/private/two.html`, undefined],
    [`${A}/seen.html`, 'duplicate'],
    [`${A}/one.html`, undefined],
    [`${A}/three.html`, undefined],
  ];
  const links: PageLink[] = rows.map(([href]) => ({ raw: href, url: parseHttpUrl(href) }));
  links.splice(2, 0, { raw: 'javascript:void(0)', error: new CrawlerError('ERR_INVALID_URL', 'not http') });
  const actions = rows.map(([, a]) => a);
  actions.splice(2, 0, undefined);
  return { links, actions };
}

test('each host\'s undecided links the rules allow, in document order, each once, at the next depth', () => {
  const { links, actions } = page();
  const told: AheadLinks[] = [];
  const loaded = linksOnRules(links, actions, 3, new AbortController().signal, (l) => told.push(l));
  loaded(A, RobotsRules.parse('User-agent: *\nDisallow: /private/\n', 'polite-crawler'));
  assert.equal(told.length, 1);
  assert.deepEqual(
    told[0]?.map((l) => [l.entry.key, l.entry.url, l.entry.depth, l.url.origin]),
    [`${A}/one.html`, `${A}/three.html`].map((k) => [k, k, 3, A]),
  );
  // Rules of the same host again (learnt elsewhere meanwhile): nothing told twice.
  loaded(A, RobotsRules.allowAll());
  assert.equal(told.length, 1);
  loaded(B, RobotsRules.allowAll());
  assert.deepEqual(told[1]?.map((l) => l.entry.key), [`${B}/x.html`]);
});

test('nothing is told for a host whose links are all disallowed or decided, nor for a host not on the page, nor after a stop', () => {
  const { links, actions } = page();
  const told: AheadLinks[] = [];
  const stop = new AbortController();
  const loaded = linksOnRules(links, actions, 1, stop.signal, (l) => told.push(l));
  loaded(A, RobotsRules.disallowAll());
  loaded('http://127.0.0.1:8009', RobotsRules.allowAll());
  stop.abort();
  loaded(B, RobotsRules.allowAll());
  assert.deepEqual(told, []);
});
