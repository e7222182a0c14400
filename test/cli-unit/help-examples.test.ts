/**
 * crawler --help ends with three examples (your own server with --delay 0,
 * a polite crawl of a site, a broad crawl from --seeds), and each is a
 * command the crawler takes: read back from the help as a user would copy
 * it, its flags parse, its seedURL is a URL inside the crawl's scope, its
 * maxDepth is within the limit. One of them also runs end to end
 * (test/e2e-crawler/crawler-args.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseArgs } from '../../src/cli/args.js';
import { concurrencyFrom } from '../../src/cli/common-flags.js';
import { CRAWLER_EXAMPLES, crawlerHelp, FLAGS } from '../../src/cli/crawler-help.js';
import { formatExamples } from '../../src/cli/help-format.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { crawlScope } from '../../src/url/scope.js';
import { exampleCommands } from '../helpers/help-examples.js';

const commands = exampleCommands(crawlerHelp(), 'crawler');

test('crawler --help ends with its three examples, as the table has them', () => {
  assert.equal(commands.length, 3);
  assert.deepEqual(
    commands.map((c) => c.slice(1)),
    CRAWLER_EXAMPLES.map((e) => [...e.argv]),
  );
  assert.ok(crawlerHelp().trimEnd().endsWith(commands[2]!.slice(-3).join(' ')), 'the examples are the end of the help');
});

test('the examples: your own server with --delay 0, a polite crawl (a delay of at least the default), a broad crawl from --seeds', () => {
  const [own, polite, broad] = commands.map((c) => parseArgs(c.slice(1), FLAGS).flags);
  assert.equal(own!.delayMs, 0);
  assert.ok(polite!.delayMs >= 1000 && polite!.maxPages !== undefined, 'polite: a delay and a bound');
  assert.equal(broad!.seeds, 'seeds.txt');
  assert.ok(broad!.delayMs >= 1000, 'a broad crawl keeps the polite delay');
});

for (const [i, words] of commands.entries()) {
  test(`example ${i + 1} is a command crawler takes: ${words.join(' ')}`, () => {
    assert.equal(words[0], 'crawler');
    assert.ok(words.every((w) => /^[\w./:=@%+-]+$/.test(w)), 'no word the shell would change');
    const { flags, positionals } = parseArgs(words.slice(1), FLAGS);
    assert.equal(positionals.length, 3, 'seedURL pageDirectory maxDepth');
    const [seedText, , depthText] = positionals as [string, string, string];
    const seed = parseHttpUrl(seedText, flags.maxUrlLength);
    assert.match(depthText, /^[0-9]+$/);
    assert.ok(Number(depthText) <= flags.depthLimit, 'maxDepth within the depth limit');
    concurrencyFrom(flags);
    const scope = crawlScope({ internal: flags.internal, domains: flags.internalDomain, anyHost: flags.anyHost, exclude: flags.exclude, seeds: [seed], maxUrlLength: flags.maxUrlLength });
    assert.equal(scope.outside(seed), undefined, 'the seed is inside the crawl');
  });
}

test('formatExamples: a long command goes on over lines ending in " \\", each within the width, its words unchanged', () => {
  const argv = ['--seeds', 'seeds.txt', '--internal-domain', 'example.org', '--concurrency', '16', 'https://www.example.org/', 'pages', '3'];
  const out = formatExamples('crawler', [{ about: 'A broad crawl, described in words enough to need a second line here.', argv }], 50);
  const lines = out.split('\n');
  for (const l of lines) assert.ok(l.length <= 50, `${l.length}: ${l}`);
  assert.deepEqual(lines.slice(0, 2), ['  A broad crawl, described in words enough to need', '  a second line here.']);
  assert.match(lines[2]!, /^ {4}crawler .* \\$/);
  for (const l of lines.slice(3, -1)) assert.match(l, /^ {8}\S.* \\$/);
  assert.match(lines.at(-1)!, /^ {8}\S.*[^\\]$/);
  assert.deepEqual(exampleCommands(`\nExamples:\n${out}`, 'crawler'), [['crawler', ...argv]]);
});
