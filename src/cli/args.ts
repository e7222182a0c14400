/**
 * Command-line parsing from one table of flags, which also writes `--help`.
 * Hand-written rather than node:util parseArgs because a positional such as
 * `-1` (a bad maxDepth) must reach validation as a positional, so the user
 * gets "maxDepth must be ..." instead of "unknown option -1".
 *
 * The values are typed from the table: declare it with `defineFlags([...])`
 * (or `[...] as const satisfies readonly FlagSpec[]`) and `parseArgs` returns
 * flags whose keys and types follow from it, so no caller casts:
 *
 *   const FLAGS = defineFlags([
 *     { name: 'quiet', short: 'q', type: 'boolean', help: '...' },
 *     { name: 'max-pages', type: 'count', arg: 'N', help: '...' },
 *     { name: 'delay', type: 'duration', arg: 'SECONDS', default: 1, help: '...' },
 *   ]);
 *   const { flags } = parseArgs(argv, FLAGS);
 *   flags.quiet;    // boolean: false when absent
 *   flags.maxPages; // number | undefined (no default)
 *   flags.delayMs;  // number: `--delay 0.5` gives 500
 *
 * The keys (camelCase, `Ms` added for a duration) and the value of each flag
 * type are told in flag-types.ts, which holds the table's types.
 */
import { CrawlerError } from '../errors.js';
import { didYouMean } from './did-you-mean.js';
import { flagKey, type FlagSpec, type FlagValues } from './flag-types.js';
import { parseSize } from './size.js';

export { defineFlags, flagKey, type BooleanFlag, type CountFlag, type DurationFlag, type FlagKey, type FlagSpec, type FlagType, type FlagValue, type FlagValues, type RepeatableStringFlag, type StringFlag } from './flag-types.js';

export interface ParsedArgs<S extends readonly FlagSpec[] = readonly FlagSpec[]> {
  flags: FlagValues<S>;
  positionals: string[];
}

const SECONDS_RE = /^[0-9]+(\.[0-9]+)?$/;
const COUNT_RE = /^[0-9]+$/;

/**
 * Milliseconds from seconds written in decimal, by moving the point three
 * places in the text, so that "1.1" is 1100 exactly (1.1 * 1000 is
 * 1100.0000000000002). Below a millisecond it stays fractional: "0.0004" is 0.4.
 */
function msFromSeconds(text: string): number {
  const [whole, fraction = ''] = text.split('.') as [string, string?];
  return Number(`${whole}${fraction.slice(0, 3).padEnd(3, '0')}.${fraction.slice(3)}`);
}

function convert(spec: FlagSpec, raw: string): number | string {
  if (spec.type === 'duration') {
    if (!SECONDS_RE.test(raw)) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} must be a non-negative number of seconds, got "${raw}"`);
    return msFromSeconds(raw);
  }
  if (spec.type === 'factor') {
    if (!SECONDS_RE.test(raw)) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} must be a non-negative number, got "${raw}"`);
    return Number(raw);
  }
  if (spec.type === 'size') return parseSize(raw, `--${spec.name}`);
  if (spec.type === 'count') {
    if (!COUNT_RE.test(raw) || !Number.isSafeInteger(Number(raw))) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} must be a non-negative whole number, got "${raw}"`);
    return Number(raw);
  }
  return raw;
}

/** The value a flag has when it is not given. */
function absent(spec: FlagSpec): boolean | number | string | undefined {
  switch (spec.type) {
    case 'boolean':
      return false;
    case 'duration': {
      if (spec.default === undefined) return undefined;
      const text = String(spec.default);
      return SECONDS_RE.test(text) ? msFromSeconds(text) : spec.default * 1000; // 1e-7 and the like
    }
    case 'size':
      return spec.default === undefined ? undefined : parseSize(spec.default, `--${spec.name}`);
    case 'string':
      return spec.repeatable === true ? undefined : spec.default;
    default:
      return spec.default;
  }
}

/** Parses argv (without node and script). Throws CrawlerError ERR_INVALID_OPTION / ERR_USAGE. */
export function parseArgs<const S extends readonly FlagSpec[]>(argv: readonly string[], specs: S): ParsedArgs<S> {
  const byName = new Map<string, FlagSpec>(specs.map((s) => [s.name, s]));
  const byShort = new Map<string, FlagSpec>(specs.flatMap((s) => (s.short !== undefined ? [[s.short, s]] : [])));
  const flags: Record<string, unknown> = {};
  for (const s of specs) flags[flagKey(s)] = absent(s);
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    let spec: FlagSpec | undefined;
    let inline: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq === -1 ? a.slice(2) : a.slice(2, eq);
      inline = eq === -1 ? undefined : a.slice(eq + 1);
      spec = byName.get(name);
      if (spec === undefined) throw new CrawlerError('ERR_INVALID_OPTION', `unknown option --${name}${didYouMean(name, [...byName.keys()])} (see --help)`);
    } else if (a.length === 2 && a[0] === '-' && !/[0-9]/.test(a[1] as string)) {
      spec = byShort.get(a[1] as string);
      if (spec === undefined) throw new CrawlerError('ERR_INVALID_OPTION', `unknown option ${a} (see --help)`);
    } else {
      positionals.push(a); // includes "-1", "-", and anything else not an option
      continue;
    }
    const key = flagKey(spec);
    if (spec.type === 'boolean') {
      if (inline !== undefined) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} takes no value`);
      flags[key] = true;
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} needs a value (${spec.arg ?? 'VALUE'})`);
    const value = convert(spec, raw);
    if (spec.type === 'string' && spec.repeatable === true) flags[key] = [...((flags[key] as string[] | undefined) ?? []), value];
    else flags[key] = value;
  }
  return { flags: flags as FlagValues<S>, positionals };
}

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

