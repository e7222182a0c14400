/**
 * --help lists the options under headings (scope, politeness, output and
 * archive, limits, distributed crawls...): every flag of both programs
 * names its group, and sits under that group's heading; the first screen
 * has the usage line and the delay, the flag every crawl of one's own
 * server changes.
 */
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import assert from 'node:assert/strict';
import type { FlagSpec } from '../../src/cli/args.js';
import { crawlerHelp, FLAGS } from '../../src/cli/crawler-help.js';
import { flagTerm, formatOptions, GROUP_HEADINGS } from '../../src/cli/help-format.js';
import { KH_FLAGS, keywordHunterHelp } from '../../src/cli/keyword-hunter-help.js';

const PROGRAMS = [
  {
    name: 'crawler',
    help: crawlerHelp(),
    flags: FLAGS as readonly FlagSpec[],
    headings: ['Politeness', 'Scope', 'Output and archive', 'Limits', 'Resume and refresh', 'Distributed crawls', 'Connections', 'General'],
  },
  { name: 'KeywordHunter', help: keywordHunterHelp(), flags: KH_FLAGS as readonly FlagSpec[], headings: ['Politeness', 'Output and archive', 'Limits', 'Connections', 'General'] },
];

/** The headings of a help text in order: a line of words alone, ending in ":". */
const headingsOf = (help: string): string[] => help.split('\n').flatMap((l) => /^([A-Z][a-z]+(?: [a-z]+)*):$/.exec(l)?.slice(1) ?? []);

for (const { name, help, flags, headings } of PROGRAMS) {
  test(`${name} --help: every flag names its group and is listed under that group's heading`, () => {
    const lines = help.split('\n');
    for (const f of flags) {
      assert.ok(f.group !== undefined, `--${f.name} names its group`);
      const at = lines.findIndex((l) => l.startsWith(`  ${flagTerm(f)}  `) || l === `  ${flagTerm(f)}`);
      assert.ok(at > 0, `--${f.name} is listed`);
      const above = lines.slice(0, at).reverse().find((l) => /^\S.*:$/.test(l));
      assert.equal(above, `${GROUP_HEADINGS[f.group]}:`, `--${f.name} is under its heading`);
    }
  });

  test(`${name} --help: its groups in order, each heading once`, () => {
    assert.deepEqual(headingsOf(help), headings);
  });
}

test('crawler --help: the first screen has the usage line and --delay, the flag one\'s own server wants', () => {
  const screen = crawlerHelp().split('\n').slice(0, 24);
  assert.match(screen[0]!, /^Usage: crawler \[options\] seedURL pageDirectory maxDepth$/);
  assert.ok(screen.some((l) => /^ {6}--delay SECONDS +\S/.test(l)), screen.join('\n'));
  assert.ok(screen.some((l) => /^ {6}--concurrency N +\S/.test(l)), screen.join('\n'));
});

test('formatOptions: groups in FLAG_GROUPS order whatever the table\'s, a flag without one in General, a group\'s note under its heading, one column', () => {
  const specs: FlagSpec[] = [
    { name: 'version', type: 'boolean', help: 'print the version' },
    { name: 'frontier', type: 'string', arg: 'URL', group: 'distributed', help: 'share the crawl' },
    { name: 'max-pages', type: 'count', arg: 'N', group: 'limits', help: 'stop after N' },
    { name: 'delay', type: 'duration', arg: 'SECONDS', default: 1, group: 'politeness', help: 'wait' },
    { name: 'a-long-flag-name', type: 'count', arg: 'N', group: 'limits', help: 'long' },
  ];
  const out = formatOptions(specs, { limits: 'Every wait and every size is bounded, and this note is long enough to wrap onto a second line.' }, 60);
  assert.deepEqual(out.split('\n'), [
    'Politeness:',
    `${'      --delay SECONDS'.padEnd(28)}wait (default 1)`,
    '',
    'Limits:',
    '  Every wait and every size is bounded, and this note is',
    '  long enough to wrap onto a second line.',
    `${'      --max-pages N'.padEnd(28)}stop after N`,
    `${'      --a-long-flag-name N'.padEnd(28)}long`,
    '',
    'Distributed crawls:',
    `${'      --frontier URL'.padEnd(28)}share the crawl`,
    '',
    'General:',
    `${'      --version'.padEnd(28)}print the version`,
  ]);
});

test('the README\'s crawler option table has the groups of --help, in order, and every flag under its group (or named in a row of it)', () => {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const from = readme.indexOf('Grouped as `crawler --help` groups them:');
  assert.ok(from > 0, 'the table is introduced');
  const rows = readme.slice(from).split('\n').slice(2);
  const table = rows.slice(0, rows.findIndex((l, i) => i > 1 && !l.startsWith('|')));
  const groups: string[] = [];
  const groupOf = new Map<string, string>();
  for (const row of table.slice(2)) {
    const heading = /^\| \*\*([^*]+)\*\* \|/.exec(row)?.[1];
    if (heading !== undefined) groups.push(heading);
    // A row's flags are those of its first cell; a heading row may name its group's flags in its last.
    const named = heading !== undefined ? row : (row.split(' | ')[0] ?? '');
    for (const m of named.matchAll(/`(--[a-z][a-z-]*)/g)) if (!groupOf.has(m[1] as string)) groupOf.set(m[1] as string, groups.at(-1) ?? '');
  }
  const helpGroups = (PROGRAMS[0]?.headings ?? []).filter((h) => h !== 'General');
  assert.deepEqual(groups, helpGroups);
  for (const f of FLAGS as readonly FlagSpec[]) {
    if (f.group === undefined || f.group === 'general') continue;
    assert.equal(groupOf.get(`--${f.name}`), GROUP_HEADINGS[f.group], `--${f.name} in the README's table under ${GROUP_HEADINGS[f.group]}`);
  }
});
