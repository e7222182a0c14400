/**
 * Command-line parsing from one table of flags (help-format.ts writes
 * `--help` from the same table).
 * Hand-written rather than node:util parseArgs because a positional such as
 * `-1` (a bad maxDepth) must reach validation as a positional, so the user
 * gets "maxDepth must be ..." instead of "unknown option -1". And rather
 * than commander (14.x, the newest for Node 20), weighed for issue 43: it
 * cost some 4 ms of CPU on every start (it loads node:child_process), and
 * its words for an unknown option, a missing value and `--quiet=yes` are
 * not the one-line messages the tests pin (README, Dependencies).
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
import { absentValue, parseFlagValue } from './flag-values.js';

export { defineFlags, flagKey, FLAG_GROUPS, type BooleanFlag, type CountFlag, type DurationFlag, type FlagGroup, type FlagKey, type FlagSpec, type FlagType, type FlagValue, type FlagValues, type RepeatableStringFlag, type StringFlag } from './flag-types.js';

export interface ParsedArgs<S extends readonly FlagSpec[] = readonly FlagSpec[]> {
  flags: FlagValues<S>;
  positionals: string[];
}

/** Parses argv (without node and script). Throws CrawlerError ERR_INVALID_OPTION / ERR_USAGE. */
export function parseArgs<const S extends readonly FlagSpec[]>(argv: readonly string[], specs: S): ParsedArgs<S> {
  const byName = new Map<string, FlagSpec>(specs.map((s) => [s.name, s]));
  const byShort = new Map<string, FlagSpec>(specs.flatMap((s) => (s.short !== undefined ? [[s.short, s]] : [])));
  const flags: Record<string, unknown> = {};
  for (const s of specs) flags[flagKey(s)] = absentValue(s);
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
    const value = parseFlagValue(spec, raw);
    if (spec.type === 'string' && spec.repeatable === true) flags[key] = [...((flags[key] as string[] | undefined) ?? []), value];
    else flags[key] = value;
  }
  return { flags: flags as FlagValues<S>, positionals };
}
