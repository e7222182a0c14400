/**
 * Both programs' --help: every line of it fits a terminal of 80 columns
 * (formatOptions wraps every flag's description with a hanging indent,
 * whatever its length), and it lists every flag of the program's table,
 * each with its value's name and its description. Its groups and its
 * examples: help-groups.test.ts, help-examples.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FlagSpec } from '../../src/cli/args.js';
import { formatOptions, HELP_WIDTH } from '../../src/cli/help-format.js';
import { crawlerHelp, FLAGS } from '../../src/cli/crawler-help.js';
import { KH_FLAGS, keywordHunterHelp } from '../../src/cli/keyword-hunter-help.js';

const PROGRAMS = [
  { name: 'crawler', help: crawlerHelp(), flags: FLAGS as readonly FlagSpec[] },
  { name: 'KeywordHunter', help: keywordHunterHelp(), flags: KH_FLAGS as readonly FlagSpec[] },
];

/** Columns a line takes on a terminal: one per character (the help is ASCII; a tab would be more). */
const columns = (line: string): number => [...line].length;

for (const { name, help, flags } of PROGRAMS) {
  test(`${name} --help: no line is wider than 80 columns, and no tab or trailing space`, () => {
    assert.equal(HELP_WIDTH, 80);
    const wide = help.split('\n').filter((l) => columns(l) > 80);
    assert.deepEqual(wide, [], 'lines over 80 columns');
    assert.ok(help.split('\n').some((l) => columns(l) >= 76), 'the help uses the width (a check of the measure itself)');
    assert.doesNotMatch(help, /\t/);
    assert.doesNotMatch(help, / +$/m);
  });

  test(`${name} --help lists every flag of its table, with its value and its whole description`, () => {
    const lines = help.split('\n');
    for (const f of flags) {
      const head = `${f.short !== undefined ? `-${f.short}, ` : '    '}--${f.name}${f.type === 'boolean' ? '' : ` ${f.arg ?? 'VALUE'}`}`;
      const at = lines.findIndex((l) => l.startsWith(`  ${head}  `) || l === `  ${head}`);
      assert.ok(at >= 0, `--${f.name} has its own line in ${name} --help`);
      // Its description: the rest of that line and the continuation lines below it, which are indented further.
      const below = lines.slice(at + 1);
      const end = below.findIndex((l) => !/^ {8,}\S/.test(l));
      const text = [(lines[at] as string).slice(head.length + 2), ...below.slice(0, end < 0 ? below.length : end)].map((l) => l.trim()).join(' ');
      assert.ok(text.startsWith(f.help.split(/\s+/).join(' ')), `--${f.name}: "${text}"`);
    }
    assert.match(help, /--version +print the program's name and version and exit/);
  });
}

/** The lines of formatOptions for flags of no group: the heading General, then the flags' lines. */
function flagLines(specs: FlagSpec[], width?: number): string[] {
  const [heading, ...lines] = formatOptions(specs, {}, width).split('\n');
  assert.equal(heading, 'General:');
  return lines;
}

test('formatOptions wraps each description under its own column, keeps a short default whole, and cuts nothing', () => {
  const long = 'the quick brown fox jumps over the lazy dog '.repeat(6).trim();
  const specs: FlagSpec[] = [
    { name: 'quiet', short: 'q', type: 'boolean', help: 'short' },
    { name: 'wordy', type: 'count', arg: 'N', default: 12345, help: long },
    { name: 'a-flag-too-long-for-the-column', type: 'string', arg: 'VALUE', help: long },
    { name: 'unbreakable', type: 'string', arg: 'URL', help: `see ${'x'.repeat(150)} here` },
  ];
  const lines = flagLines(specs, 60);
  for (const l of lines) assert.ok(l.length <= 60, `${l.length} columns: ${l}`);
  // The column: two spaces after the longest flag that fits before column 36 (--unbreakable URL).
  const column = '      --unbreakable URL  '.length;
  assert.equal(lines[0], `${'  -q, --quiet'.padEnd(column)}short`);
  // --wordy: beside the flag, then each continuation at the description's column, the default whole at the end.
  const wordy = lines.slice(1, lines.findIndex((l) => l.includes('--a-flag')));
  assert.ok(wordy[0]!.startsWith(`${'      --wordy N'.padEnd(column)}the quick`));
  for (const l of wordy.slice(1)) assert.match(l, new RegExp(`^ {${column}}\\S`));
  assert.equal(wordy.map((l) => l.slice(column)).join(' '), `${long} (default 12345)`);
  assert.ok(wordy.some((l) => l.endsWith('(default 12345)')));
  // A flag too long for the column: the description starts on the next line, at the column.
  const at = lines.findIndex((l) => l.includes('--a-flag'));
  assert.equal(lines[at], '      --a-flag-too-long-for-the-column VALUE');
  assert.match(lines[at + 1]!, new RegExp(`^ {${column}}the quick`));
  // A word longer than a line is cut into pieces that fit; no character is lost.
  const unbreakable = lines.slice(lines.findIndex((l) => l.includes('--unbreakable')));
  assert.equal(unbreakable.map((l) => l.slice(column)).join('').replaceAll(' ', ''), `see${'x'.repeat(150)}here`);
});

test('formatOptions: a flag too long for column 36 has its description below it, and does not push the others right', () => {
  const lines = flagLines([
    { name: 'x', type: 'boolean', help: 'one' },
    { name: 'a-flag-that-ends-past-column-36', type: 'boolean', help: 'two' },
    { name: 'ends-at-column-thirty-four', type: 'boolean', help: 'three' },
  ]);
  assert.deepEqual(lines, [
    `      --x${' '.repeat(36 - 9)}one`,
    '      --a-flag-that-ends-past-column-36',
    `${' '.repeat(36)}two`,
    '      --ends-at-column-thirty-four  three',
  ]);
  // With no flag short enough, the descriptions go below each flag at column 36.
  assert.deepEqual(flagLines([{ name: 'a-flag-that-ends-past-column-36', type: 'boolean', help: 'two' }]), ['      --a-flag-that-ends-past-column-36', `${' '.repeat(36)}two`]);
});
