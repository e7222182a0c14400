/**
 * The parts of --help made from data: the options, under a heading per
 * group, each flag with its value's name, description and default wrapped
 * with a hanging indent; the examples, each command as the user types it.
 * Nothing here is wider than HELP_WIDTH (test/cli-unit/help-width.test.ts).
 */
import { FLAG_GROUPS, type FlagGroup, type FlagSpec } from './flag-types.js';

/** The width --help is laid out for: no line of it is longer (a terminal of 80 columns). */
export const HELP_WIDTH = 80;

/** Where the descriptions start at most; a flag whose name and value leave no room before it has its description on the next line. */
const MAX_DESCRIPTION_COLUMN = 36;

/** Each group's heading. */
export const GROUP_HEADINGS: Readonly<Record<FlagGroup, string>> = {
  politeness: 'Politeness',
  scope: 'Scope',
  output: 'Output and archive',
  limits: 'Limits',
  resume: 'Resume and refresh',
  distributed: 'Distributed crawls',
  connections: 'Connections',
  general: 'General',
};

/** A command --help shows, and what it is for. */
export interface HelpExample {
  about: string;
  /** The arguments after the program's name, each a word the shell keeps as it is (no quotes needed). */
  argv: readonly string[];
}

/** The flag and its value as --help shows them: `-q, --quiet`, `    --delay SECONDS`. */
export function flagTerm(s: FlagSpec): string {
  return `${s.short !== undefined ? `-${s.short}, ` : '    '}--${s.name}${s.type === 'boolean' ? '' : ` ${s.arg ?? 'VALUE'}`}`;
}

/**
 * The options of a program: its flags under the heading of their group
 * (a flag without one is General), groups in FLAG_GROUPS order, each with
 * its note, if any, below the heading. Each flag has its value's name, then
 * its description and default, wrapped to `width` columns with every line
 * after the first indented to the description's column, one for all
 * groups (a hanging indent). A word longer than a whole line is cut, so no
 * line is wider than `width`, save the line of a flag whose name and value
 * alone are (they are never cut).
 */
export function formatOptions(specs: readonly FlagSpec[], notes: Partial<Record<FlagGroup, string>> = {}, width = HELP_WIDTH): string {
  const column = descriptionColumn(specs);
  return FLAG_GROUPS.flatMap((group) => {
    const members = specs.filter((s) => (s.group ?? 'general') === group);
    if (members.length === 0) return [];
    const note = notes[group];
    return [[`${GROUP_HEADINGS[group]}:`, ...(note === undefined ? [] : [paragraph(note, 2, width)]), flagLines(members, column, width)].join('\n')];
  }).join('\n\n');
}

/** The examples: what each is for, then its command, long ones continued on lines ending in " \". */
export function formatExamples(program: string, examples: readonly HelpExample[], width = HELP_WIDTH): string {
  return examples
    .map(({ about, argv }) => {
      const lines: string[] = [];
      let line = `    ${program}`;
      for (const word of argv) {
        // Room for " WORD" and, should another line follow, " \".
        if (line.length + 1 + word.length + 2 > width) {
          lines.push(`${line} \\`);
          line = `        ${word}`;
        } else line += ` ${word}`;
      }
      return [paragraph(about, 2, width), ...lines, line].join('\n');
    })
    .join('\n');
}

/** `text` in lines of at most `width` characters, each indented by `indent` spaces. */
function paragraph(text: string, indent = 0, width = HELP_WIDTH): string {
  return wrapWords(words(text), width - indent)
    .map((l) => ' '.repeat(indent) + l)
    .join('\n');
}

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

/** Two spaces after the longest flag that fits before MAX_DESCRIPTION_COLUMN: a longer one does not push every description right. */
function descriptionColumn(specs: readonly FlagSpec[]): number {
  const fitting = specs.map((s) => flagTerm(s).length + 4).filter((c) => c <= MAX_DESCRIPTION_COLUMN);
  return fitting.length > 0 ? Math.max(...fitting) : MAX_DESCRIPTION_COLUMN;
}

function flagLines(specs: readonly FlagSpec[], column: number, width: number): string {
  const indent = ' '.repeat(column);
  return specs
    .map((s) => {
      const left = `  ${flagTerm(s)}`;
      const text = words(s.help);
      if ('default' in s && s.default !== undefined) {
        // A short default stays on one line: "(default" at a line's end and "2)" alone below it read badly.
        const dflt = `(default ${s.default})`;
        text.push(...(dflt.length <= 24 ? [dflt] : dflt.split(' ')));
      }
      const lines = wrapWords(text, width - column).map((l) => indent + l);
      // The description goes beside the flag when the flag leaves it room, else below it.
      if (left.length + 2 <= column) lines[0] = (left.padEnd(column) + (lines[0] ?? '').slice(column)).trimEnd();
      else lines.unshift(left);
      return lines.join('\n');
    })
    .join('\n');
}

/** `words` joined by spaces in lines of at most `width` characters; a word longer than `width` is cut into pieces. */
function wrapWords(words: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (let word of words) {
    for (; word.length > width; word = word.slice(width)) {
      if (line !== '') lines.push(line);
      lines.push(word.slice(0, width));
      line = '';
    }
    if (line === '') line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
