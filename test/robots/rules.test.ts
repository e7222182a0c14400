/**
 * RobotsRules and parseRobots against RFC 9309, section by section. Each
 * test quotes the sentence of the RFC it checks.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeTarget } from '../../src/url/request-target.js';
import { RobotsRules, parseCrawlDelay, productToken } from '../../src/robots/rules.js';
import { parseRobots, MAX_LINE_BYTES, type RobotsHandler } from '../../src/robots/parse.js';
import { RobotsPolicy, CRAWLER_FAILURE_POLICY, type RobotsFetchResult } from '../../src/robots/policy.js';

const rules = (body: string, agent = 'FooBot') => RobotsRules.parse(body, agent);

/** Records every parser event as "kind value @line". */
function events(text: string): string[] {
  const out: string[] = [];
  const h: RobotsHandler = {
    onUserAgent: (v, l) => out.push(`ua ${v} @${l}`),
    onAllow: (v, l) => out.push(`allow ${v} @${l}`),
    onDisallow: (v, l) => out.push(`disallow ${v} @${l}`),
    onCrawlDelay: (v, l) => out.push(`delay ${v} @${l}`),
    onSitemap: (v, l) => out.push(`sitemap ${v} @${l}`),
    onUnknown: (k, v, l) => out.push(`unknown ${k}=${v} @${l}`),
  };
  parseRobots(text, h);
  return out;
}

describe('§2.1 protocol definition', () => {
  // "Group: One or more user-agent lines that are followed by one or more rules.
  // The group is terminated by a user-agent line or end of file."
  test('a user-agent line after a rule starts a new group', () => {
    const r = rules('User-agent: FooBot\nDisallow: /a\nUser-agent: BarBot\nDisallow: /b\n');
    assert.equal(r.isAllowed('/a'), false);
    assert.equal(r.isAllowed('/b'), true);
  });

  // "The last group may have no rules, which means it implicitly allows everything."
  test('a group without rules allows everything for its agent, even with a * group', () => {
    const r = rules('User-agent: *\nDisallow: /\n\nUser-agent: FooBot\n');
    assert.equal(r.isAllowed('/anything'), true);
    assert.equal(rules('User-agent: *\nDisallow: /\n\nUser-agent: FooBot\n', 'BarBot').isAllowed('/x'), false);
  });

  // "NL = %x0D / %x0A / %x0D.0A" and "comment = "#" ..." (§2.2 ABNF)
  test('CR, LF and CRLF end lines; BOM, comments and blanks around the colon are handled', () => {
    const text = '\uFEFFUser-Agent : FooBot # me\r\nDISALLOW:/a\rAllow :  /a/b  # c\n# only a comment\n\nSitemap:https://x/s.xml';
    assert.deepEqual(events(text), ['ua FooBot @1', 'disallow /a @2', 'allow /a/b @3', 'sitemap https://x/s.xml @6']);
    const r = rules(text);
    assert.deepEqual(r.check('/a/c'), { allowed: false, line: 2, rule: 'Disallow: /a' });
    assert.deepEqual(r.check('/a/b'), { allowed: true, line: 3, rule: 'Allow: /a/b' });
  });

  // §2.3.1.5 "Crawlers MUST try to parse each line of the robots.txt file."
  // (Google extensions we take: a missing colon, common misspellings, the line cap.)
  test('lenient parsing: missing colon, misspelled keys, unknown keys reported', () => {
    assert.deepEqual(events('Disallow /x\nuser agent: Foo\ndisalow: /y\nFoo: bar\nthree words here\n'), [
      'disallow /x @1',
      'ua Foo @2',
      'disallow /y @3',
      'unknown Foo=bar @4',
    ]);
  });

  test(`a line keeps only its first ${MAX_LINE_BYTES} bytes`, () => {
    const pattern = '/' + 'a'.repeat(MAX_LINE_BYTES);
    const [ev] = events(`Disallow: ${pattern}tail`);
    assert.equal(ev, `disallow ${pattern.slice(0, MAX_LINE_BYTES - 'Disallow: '.length)} @1`);
    // Multi-byte characters are never split.
    const [ev2] = events('Allow: /' + 'é'.repeat(MAX_LINE_BYTES));
    const kept = Math.floor((MAX_LINE_BYTES - 'Allow: /'.length) / 2);
    assert.equal(ev2, `allow /${'é'.repeat(kept)} @1`);
  });
});

describe('§2.2.1 the user-agent line', () => {
  // "Crawlers MUST use case-insensitive matching to find the group that matches the product token"
  test('agent matching is case-insensitive', () => {
    const body = 'User-agent: fOObOT\nDisallow: /\n';
    assert.equal(rules(body, 'FooBot').isAllowed('/x'), false);
    assert.equal(rules(body, 'foobot').isAllowed('/x'), false);
    assert.equal(rules(body, 'BarBot').isAllowed('/x'), true);
  });

  // "The product token MUST contain only uppercase and lowercase letters ("a-z" and "A-Z"),
  // underscores ("_"), and hyphens ("-")."
  test('both sides are reduced to their product token; matching is exact, not by prefix', () => {
    assert.equal(productToken('polite-crawler/0.1 (TinySearch Engine crawler)'), 'polite-crawler');
    // Digits are our lenience beyond the RFC's charset: KeywordHunter's agent has them.
    assert.equal(productToken('ee122-KeywordHunter'), 'ee122-KeywordHunter');
    assert.equal(rules('User-agent: ee122-keywordhunter\nDisallow: /\nUser-agent: ee\nAllow: /\n', 'ee122-KeywordHunter').isAllowed('/'), false);
    assert.equal(rules('User-agent: FooBot/2.1\nDisallow: /\n', 'foobot/9 (x)').isAllowed('/'), false);
    assert.equal(rules('User-agent: Foo\nDisallow: /\n', 'FooBot').isAllowed('/'), true);
    assert.equal(rules('User-agent: FooBot-News\nDisallow: /\n', 'FooBot').isAllowed('/'), true);
  });

  // "If there is more than one group matching the user-agent, the matching groups' rules
  // MUST be combined into one group"
  test('groups naming the same agent are merged (RFC Figure 2)', () => {
    const r = rules('user-agent: FooBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /q\n\nuser-agent: FooBot\ndisallow: /baz\n');
    for (const p of ['/foo', '/bar', '/baz']) assert.equal(r.isAllowed(p), false, p);
    assert.equal(r.isAllowed('/q'), true);
  });

  test('consecutive user-agent lines share one group; other records do not end it', () => {
    const body = 'User-agent: BarBot\nSitemap: https://x/s\nCrawl-delay: 3\nUser-agent: FooBot\nDisallow: /p\n';
    assert.equal(rules(body).isAllowed('/p'), false);
    assert.equal(rules(body, 'BarBot').isAllowed('/p'), false);
    assert.equal(rules(body, 'BarBot').crawlDelay, 3);
  });

  // "If no matching group exists, crawlers MUST obey the group with a user-agent line with the "*" value, if present."
  test('falls back to the * groups only when no group names the agent (RFC Figure 3)', () => {
    const body = 'user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n';
    const r = rules(body, 'ExampleBot');
    assert.equal(r.isAllowed('/foo'), false);
    assert.equal(r.isAllowed('/baz'), true);
    const baz = rules(body, 'BazBot');
    assert.equal(baz.isAllowed('/foo'), true, 'a specific group replaces *, it does not add to it');
    assert.equal(baz.isAllowed('/baz'), false);
  });

  // "If no group matches the product token and there is no group with a user-agent line
  // with the "*" value, or no groups are present at all, no rules apply."
  test('no matching group and no * group: everything allowed', () => {
    assert.deepEqual(rules('User-agent: BarBot\nDisallow: /\n').check('/x'), { allowed: true, line: 0, rule: undefined });
    assert.equal(rules('').isAllowed('/x'), true);
  });
});

describe('§2.2.2 the allow and disallow lines', () => {
  // "The most specific match found MUST be used. The most specific match is the match that has the most octets."
  test('the longest matching pattern wins, whatever its order or kind', () => {
    const a = rules('User-agent: *\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n', 'x');
    assert.deepEqual(a.check('/example/page/disallowed.gif'), { allowed: false, line: 3, rule: 'Disallow: /example/page/disallowed.gif' });
    assert.equal(a.isAllowed('/example/page/other.gif'), true);
    const b = rules('User-agent: *\nDisallow: /*.html\nAllow: /x/page.\n', 'x');
    assert.equal(b.isAllowed('/x/page.html'), true, 'pattern octets count, not matched path octets');
  });

  // "If an "allow" rule and a "disallow" rule are equivalent, then the "allow" rule SHOULD be used."
  test('allow wins a tie', () => {
    assert.deepEqual(rules('User-agent: FooBot\nDisallow: /folder\nAllow: /folder\n').check('/folder/page'), {
      allowed: true,
      line: 3,
      rule: 'Allow: /folder',
    });
  });

  // "empty-pattern = *WS" with "If no match is found amongst the rules in a group ... the URI is allowed."
  test('an empty Disallow matches nothing', () => {
    assert.equal(rules('User-agent: FooBot\nDisallow:\n').isAllowed('/anything'), true);
    assert.equal(rules('User-agent: FooBot\nDisallow: \nDisallow: /b\n').isAllowed('/b'), false);
  });

  // "The matching SHOULD be case sensitive. The matching MUST start with the first octet of the path."
  test('paths match case-sensitively from their first octet; the query is part of the path', () => {
    const r = rules('User-agent: FooBot\nDisallow: /Fish\nDisallow: /a?b=1\n');
    assert.equal(r.isAllowed('/fish'), true);
    assert.equal(r.isAllowed('/x/Fish'), true);
    assert.equal(r.isAllowed('/Fish.html'), false);
    assert.equal(r.isAllowed('/a?b=1&c'), false);
    assert.equal(r.isAllowed('/a?b=2'), true);
  });

  // "The /robots.txt URI is implicitly allowed."
  test('/robots.txt is always allowed', () => {
    assert.equal(rules('User-agent: *\nDisallow: /\n', 'x').isAllowed('/robots.txt'), true);
    assert.equal(RobotsRules.disallowAll().isAllowed('/robots.txt'), true);
    assert.equal(RobotsRules.disallowAll().isAllowed('/robots.txt.bak'), false);
  });

  // "The crawler SHOULD ignore "disallow" and "allow" rules that are not in any group"
  test('rules before the first user-agent line are ignored', () => {
    assert.equal(rules('Disallow: /\nUser-agent: FooBot\nAllow: /x\n').isAllowed('/y'), true);
  });

  test('allowAll, disallowAll and the synthetic rule', () => {
    assert.deepEqual(RobotsRules.allowAll().check('/x'), { allowed: true, line: 0, rule: undefined });
    assert.deepEqual(RobotsRules.disallowAll().check('/x'), { allowed: false, line: 0, rule: 'Disallow: /' });
  });
});

describe('percent-encoding (§2.2.2)', () => {
  // "Octets in the URI and robots.txt paths outside the range of the ASCII coded character set ...
  // MUST be percent-encoded as defined by [RFC3986] prior to comparison."
  test('non-ASCII is UTF-8 percent-encoded on both sides: patterns here, targets by encodeTarget', () => {
    const raw = rules('User-agent: FooBot\nDisallow: /foo/bar/ツ\n');
    assert.equal(raw.isAllowed('/foo/bar/%E3%83%84'), false);
    // The caller encodes the target (as google/robotstxt requires): a raw link cannot slip past.
    assert.equal(raw.isAllowed(encodeTarget('/foo/bar/ツ')), false);
    const enc = rules('User-agent: FooBot\nDisallow: /foo/bar/%E3%83%84\n');
    assert.equal(enc.isAllowed(encodeTarget('/foo/bar/ツ')), false);
    assert.equal(enc.isAllowed('/foo/bar/%E3%83%85'), true);
    assert.equal(rules('User-agent: FooBot\nDisallow: /😀\n').isAllowed('/%F0%9F%98%80'), false);
  });

  test('%xx compares case-insensitively; the same octet encoded differently does not match', () => {
    const r = rules('User-agent: FooBot\nDisallow: /a%2fb\nDisallow: /foo/bar/%62%61%7A\n');
    assert.equal(r.isAllowed('/a%2Fb'), false);
    assert.equal(r.isAllowed('/foo/bar/%62%61%7a'), false);
    assert.equal(r.isAllowed('/foo/bar/baz'), true, '%62 is not decoded (as Google)');
  });

  test('blanks in patterns are encoded like the request would be', () => {
    assert.equal(rules('User-agent: FooBot\nDisallow: /my file\n').isAllowed('/my%20file.txt'), false);
  });
});

describe('§2.2.3 special characters', () => {
  // "* Designates 0 or more instances of any character."
  test('* matches any run of characters, including none and "/"', () => {
    const r = rules('User-agent: FooBot\nDisallow: /foo/*/qux\nDisallow: *.gif\n');
    assert.equal(r.isAllowed('/foo/bar/qux'), false);
    assert.equal(r.isAllowed('/foo//qux'), false);
    assert.equal(r.isAllowed('/foo/a/b/qux/z'), false);
    assert.equal(r.isAllowed('/foo/qux'), true);
    assert.equal(r.isAllowed('/x/y.gif?z'), false);
  });

  // "$ Designates the end of the match pattern."
  test('$ anchors the end; elsewhere it is literal', () => {
    const r = rules('User-agent: FooBot\nDisallow: /*.php$\nDisallow: /a$b\n');
    assert.equal(r.isAllowed('/x/file.php'), false);
    assert.equal(r.isAllowed('/x/file.php?q'), true);
    assert.equal(r.isAllowed('/x/file.php5'), true);
    assert.equal(r.isAllowed('/a$b/c'), false);
    assert.equal(rules('User-agent: FooBot\nAllow: /$\nDisallow: /\n').isAllowed('/'), true);
    assert.equal(rules('User-agent: FooBot\nAllow: /$\nDisallow: /\n').isAllowed('/page'), false);
  });

  // "If crawlers match special characters verbatim in the URI, crawlers SHOULD use "%" encoding."
  test('%2A and %24 in a pattern match a literal * and $ in the path (RFC Figure 6)', () => {
    const r = rules('User-agent: FooBot\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n');
    assert.equal(r.isAllowed('/path/file-with-a-*.html'), false);
    assert.equal(r.isAllowed('/path/file-with-a-x.html'), true);
    assert.equal(r.isAllowed('/path/foo-$'), false);
  });

  // "# Designates a line comment."
  test('# starts a comment, also after a pattern', () => {
    const r = rules('User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\n');
    assert.equal(r.isAllowed('/bar'), true);
    assert.equal(r.isAllowed('/foo/quz'), false);
  });

  test('wildcard matching does not backtrack exponentially', () => {
    const r = rules('User-agent: FooBot\nDisallow: /*a*a*a*a*a*a*a*b$\n');
    const path = '/' + 'a'.repeat(200_000);
    const t0 = process.hrtime.bigint();
    assert.equal(r.isAllowed(path), true);
    assert.equal(r.isAllowed(path + 'b'), false);
    assert.ok(Number(process.hrtime.bigint() - t0) / 1e6 < 1000, 'check took over a second');
  });
});

describe('§2.2.4 other records', () => {
  // "Crawlers MAY interpret other records that are not part of the robots.txt protocol -- for example, "Sitemaps""
  test('sitemaps are collected from the whole file, de-duplicated', () => {
    const r = rules('Sitemap: https://x/a.xml\nUser-agent: Other\nSitemap: https://x/b.xml\nsite-map: https://x/a.xml\n');
    assert.deepEqual(r.sitemaps, ['https://x/a.xml', 'https://x/b.xml']);
  });

  test('sitemaps reach the crawl through RobotsPolicy: kept by the Crawl-delay cap, none when there is no file', async () => {
    const body = Buffer.from('User-agent: *\nCrawl-delay: 90\nSitemap: https://x/a.xml\n');
    const policy = (result: RobotsFetchResult) => new RobotsPolicy({ userAgent: 'FooBot', fetch: async () => result, onFailure: CRAWLER_FAILURE_POLICY, maxCrawlDelay: 5 });
    const capped = await policy({ status: 200, body }).rulesFor('http://h');
    assert.equal(capped.crawlDelay, 5);
    assert.deepEqual(capped.sitemaps, ['https://x/a.xml']);
    assert.deepEqual((await policy({ status: 404, body }).rulesFor('http://h')).sitemaps, []);
    assert.deepEqual((await policy({ status: 503, body }).rulesFor('http://h')).sitemaps, []);
  });

  test('500 KiB of distinct Sitemap lines are collected in linear time', () => {
    const lines: string[] = [];
    for (let size = 0, i = 0; size < 500 * 1024; i++) {
      lines.push(`Sitemap: https://x/s${i}.xml`);
      size += lines[i]!.length + 1;
    }
    const t0 = process.hrtime.bigint();
    const r = rules(lines.join('\n'));
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.equal(r.sitemaps.length, lines.length);
    assert.equal(r.sitemaps[lines.length - 1], `https://x/s${lines.length - 1}.xml`);
    // Linear: some 20 ms here; the array search it replaced took over 4 s.
    assert.ok(ms < 1000, `collecting ${lines.length} sitemaps took ${ms.toFixed(0)} ms`);
  });

  // "Parsing of other records MUST NOT interfere with the parsing of explicitly defined records"
  test('crawl-delay comes from the chosen group; fractions allowed; invalid values ignored', () => {
    const body = 'User-agent: *\nCrawl-delay: 7\n\nUser-agent: FooBot\nCrawl-delay: 0.5\nDisallow: /x\n';
    assert.equal(rules(body).crawlDelay, 0.5);
    assert.equal(rules(body, 'Other').crawlDelay, 7);
    assert.equal(rules('User-agent: FooBot\nDisallow: /\n').crawlDelay, undefined);
    for (const bad of ['-1', 'abc', '1e3', '10s', '', 'Infinity', '0x10']) {
      assert.equal(parseCrawlDelay(bad), undefined, bad);
      assert.equal(rules(`User-agent: FooBot\nCrawl-delay: ${bad}\n`).crawlDelay, undefined, bad);
    }
    assert.equal(parseCrawlDelay('.25'), 0.25);
    assert.equal(parseCrawlDelay('0'), 0);
    assert.equal(rules('User-agent: FooBot\nCrawl-delay: 2\nUser-agent: x\nDisallow: /\nUser-agent: FooBot\nCrawl-delay: 5\n').crawlDelay, 5);
  });
});

describe('§2.3.1 access results (through RobotsPolicy)', () => {
  const policyFor = (result: RobotsFetchResult) =>
    new RobotsPolicy({ userAgent: 'FooBot', fetch: async () => result, onFailure: CRAWLER_FAILURE_POLICY });

  // §2.3.1.1 "If the crawler successfully downloads the robots.txt file, the crawler MUST follow the parseable rules."
  test('2xx: the rules are followed', async () => {
    const r = await policyFor({ status: 200, body: Buffer.from('User-agent: *\nDisallow: /p\n') }).rulesFor('http://h');
    assert.equal(r.isAllowed('/p'), false);
    assert.equal(r.isAllowed('/q'), true);
  });

  // §2.3.1.3 "If a server status code indicates that the robots.txt file is unavailable to the crawler,
  // then the crawler MAY access any resources on the server."
  test('4xx: unavailable, allow all', async () => {
    assert.equal((await policyFor({ status: 404, body: Buffer.from('User-agent: *\nDisallow: /\n') }).rulesFor('http://h')).isAllowed('/p'), true);
  });

  // §2.3.1.4 "If the robots.txt file is unreachable due to server or network errors, this means the robots.txt
  // file is undefined and the crawler MUST assume complete disallow."
  test('5xx and network errors: unreachable, disallow all', async () => {
    assert.equal((await policyFor({ status: 503, body: Buffer.alloc(0) }).rulesFor('http://h')).isAllowed('/p'), false);
    assert.equal((await policyFor({ error: new Error('ECONNREFUSED') }).rulesFor('http://h')).isAllowed('/p'), false);
  });
});

describe('§2.5 limits', () => {
  // "The parsing limit MUST be at least 500 kibibytes [KiB]."
  test('only the first maxBytes are parsed (default 500 KiB)', async () => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const pad = '#'.repeat(500 * 1024 - head.length - 1) + '\n';
    const body = Buffer.from(head + pad + 'Disallow: /late\n');
    const p = new RobotsPolicy({ userAgent: 'x', fetch: async () => ({ status: 200, body }), onFailure: CRAWLER_FAILURE_POLICY });
    const r = await p.rulesFor('http://h');
    assert.equal(r.isAllowed('/early'), false);
    assert.equal(r.isAllowed('/late'), true, 'a rule past 500 KiB is not parsed');
    const big = new RobotsPolicy({ userAgent: 'x', fetch: async () => ({ status: 200, body }), onFailure: CRAWLER_FAILURE_POLICY, maxBytes: 1024 * 1024 });
    assert.equal((await big.rulesFor('http://h')).isAllowed('/late'), false);
  });

  test('a line cut by the limit is dropped, not shortened', async () => {
    const body = Buffer.from('User-agent: *\nAllow: /public\nDisallow: /\n');
    const cut = 'User-agent: *\nAllow: /pub'.length; // the limit falls inside "Allow: /public"
    const p = new RobotsPolicy({ userAgent: 'x', fetch: async () => ({ status: 200, body }), onFailure: CRAWLER_FAILURE_POLICY, maxBytes: cut });
    const r = await p.rulesFor('http://h');
    assert.equal(r.isAllowed('/pub'), true, 'no rules survived, so all allowed');
    assert.deepEqual(r.check('/pubxyz'), { allowed: true, line: 0, rule: undefined });
  });
});
