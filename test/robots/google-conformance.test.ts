/**
 * Every IsUserAgentAllowed expectation of google/robotstxt's robots_test.cc
 * (test/fixtures/conformance/robots-google.json), played through
 * RobotsRules.parse(robots, agent).isAllowed(pathOf(url)).
 *
 * Cases whose source is not `google-extension` must pass, except the ones in
 * RFC_DISAGREEMENTS; the extension cases must pass or be in
 * EXTENSIONS_NOT_TAKEN. A listed case must really fail (so the lists cannot go
 * stale), and must exist with the expected source.
 *
 * Extensions we take (so their cases pass): the empty URL as "/", the
 * user-agent line cut to its product token ("Foo Bar" names "Foo"), a missing
 * colon, and the 16,664-byte line buffer. See src/robots/parse.ts and rules.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConformance } from '../helpers/conformance.js';
import { RobotsRules } from '../../src/robots/rules.js';

interface RobotsCase {
  name: string;
  test: string;
  robots: string;
  agent: string;
  url: string;
  allowed: boolean;
  source: string;
  notes?: string;
}

const FILE = 'robots-google.json';

/** Google extensions we do not take: the case name → why. */
const EXTENSIONS_NOT_TAKEN: ReadonlyMap<string, string> = new Map([
  // Google treats "Allow: /d/index.html" as also allowing "/d/". A server's
  // directory URL need not serve index.html, so we do not widen an Allow.
  ['GoogleOnly_IndexHTMLisDirectory#1', 'index.html is its directory'],
  // Google cuts the robots.txt user-agent value at the first space but compares
  // the crawler's own agent whole, so agent "Foo Bar" misses the "Foo Bar"
  // group. We reduce our own agent to its product token as well ("Foo"), so
  // callers can pass "PoliteCrawler/0.1 (+url)"; "Foo Bar" then finds the group.
  ['GoogleOnly_AcceptUserAgentUpToFirstSpace#2', "crawler's agent compared whole, not as a product token"],
]);

/**
 * Cases labelled `rfc9309` that we would disagree with: none. RFC 9309
 * §2.2.2 percent-encodes both sides before comparison; like google/robotstxt
 * we encode patterns and take the target already encoded (the engine passes
 * the URL's target, exactly the bytes of the request line), so
 * ID_Encoding#3 and #5 (a raw "ツ" target) agree with Google.
 */
const RFC_DISAGREEMENTS: ReadonlyMap<string, string> = new Map([]);

/**
 * The path and query of a test URL, as written (no normalization: the matcher
 * does that), "#fragment" dropped. An empty URL gives "" (the matcher reads it
 * as "/", Google's empty-URL extension).
 */
function pathOf(url: string): string {
  if (url === '') return '';
  const afterScheme = url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '');
  const start = afterScheme.search(/[/?#]/);
  if (start === -1) return '/';
  const rest = afterScheme.slice(start).replace(/#.*$/s, '');
  return rest.startsWith('/') ? rest : '/' + rest;
}

const all = loadConformance<RobotsCase[]>(FILE);
const byName = new Map(all.map((c) => [c.name, c]));
const isExtension = (c: RobotsCase) => c.source.includes('google-extension');

describe('google/robotstxt conformance', () => {
  test('the data has the 145 cases the README describes', () => {
    assert.equal(all.length, 145);
    assert.equal(byName.size, all.length, 'case names are unique');
  });

  test('pathOf', () => {
    assert.equal(pathOf('http://foo.bar/a/b?c=d#e'), '/a/b?c=d');
    assert.equal(pathOf('http://foo.bar'), '/');
    assert.equal(pathOf('http://foo.bar?x'), '/?x');
    assert.equal(pathOf('http://foo.bar//folder/x.php'), '//folder/x.php');
    assert.equal(pathOf('http://foo.bar/foo/bar?q=http://foo.bar?t'), '/foo/bar?q=http://foo.bar?t');
  });

  test('every listed case exists, has the expected source, and is not also in the other list', () => {
    for (const [name] of EXTENSIONS_NOT_TAKEN) {
      const c = byName.get(name);
      assert.ok(c, `${name} is not in ${FILE}`);
      assert.ok(isExtension(c), `${name} is not a google-extension case (${c.source})`);
      assert.ok(!RFC_DISAGREEMENTS.has(name));
    }
    for (const [name] of RFC_DISAGREEMENTS) {
      const c = byName.get(name);
      assert.ok(c, `${name} is not in ${FILE}`);
      assert.ok(!isExtension(c), `${name} is an extension case: list it in EXTENSIONS_NOT_TAKEN`);
    }
  });

  for (const c of all) {
    const why = EXTENSIONS_NOT_TAKEN.get(c.name) ?? RFC_DISAGREEMENTS.get(c.name);
    const label = `${c.name} [${c.source}]${why === undefined ? '' : ` (differs: ${why})`}`;
    test(label, () => {
      const got = RobotsRules.parse(c.robots, c.agent).isAllowed(pathOf(c.url));
      if (why === undefined) {
        assert.equal(got, c.allowed, `agent ${JSON.stringify(c.agent)}, url ${JSON.stringify(c.url.slice(0, 120))}`);
      } else {
        // A listed case must still differ; if it now passes, take it off the list.
        assert.equal(got, !c.allowed, `${c.name} now agrees with Google: remove it from the list`);
      }
    });
  }
});
