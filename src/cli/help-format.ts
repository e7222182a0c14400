/**
 * --help's list of flags, made from the flag table: each flag with its
 * value's name, description and default, wrapped with a hanging indent.
 */
import type { FlagSpec } from './flag-types.js';

/** The width --help is laid out for: no line of it is longer (a terminal of 100 columns). */
export const HELP_WIDTH = 100;

/** Where the descriptions start at most; a flag whose name and value leave no room before it has its description on the next line. */
const MAX_DESCRIPTION_COLUMN = 36;

/**
 * The options section of --help: each flag with its value's name, then its
 * description and default, wrapped to `width` columns with every line after
 * the first indented to the description's column (a hanging indent). A word
 * longer than a whole line is cut, so no line is wider than `width`, save
 * the line of a flag whose name and value alone are (they are never cut).
 */
export function formatFlags(specs: readonly FlagSpec[], width = HELP_WIDTH): string {
  const rows = specs.map((s) => {
    const left = `  ${s.short !== undefined ? `-${s.short}, ` : '    '}--${s.name}${s.type === 'boolean' ? '' : ` ${s.arg ?? 'VALUE'}`}`;
    const words = s.help.split(/\s+/).filter((w) => w !== '');
    if ('default' in s && s.default !== undefined) {
      // A short default stays on one line: "(default" at a line's end and "2)" alone below it read badly.
      const dflt = `(default ${s.default})`;
      words.push(...(dflt.length <= 24 ? [dflt] : dflt.split(' ')));
    }
    return [left, words] as const;
  });
  // Two spaces after the longest flag that fits before MAX_DESCRIPTION_COLUMN: a longer one does not push every description right.
  const fitting = rows.map(([l]) => l.length + 2).filter((c) => c <= MAX_DESCRIPTION_COLUMN);
  const column = fitting.length > 0 ? Math.max(...fitting) : MAX_DESCRIPTION_COLUMN;
  const indent = ' '.repeat(column);
  return rows
    .map(([left, words]) => {
      const lines = wrapWords(words, width - column).map((l) => indent + l);
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

