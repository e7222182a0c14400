/**
 * The flag table's types: one FlagSpec per flag, and from a table declared
 * with `defineFlags([...])` (or `[...] as const satisfies readonly
 * FlagSpec[]`) the keys and types of its parsed values, so that callers of
 * parseArgs (args.ts) need no casts.
 *
 * Keys are the flag names in camelCase (`--max-pages` is `maxPages`); a
 * duration's key adds `Ms` (`--delay` is `delayMs`), so the unit is in the
 * name and code written for the seconds a flag used to hold does not compile.
 * Values by type:
 *   boolean             boolean (false when absent)
 *   count               number; `| undefined` without a default
 *   duration            number of milliseconds, from seconds on the command
 *                       line and in `default`; `| undefined` without a default
 *   factor              number (a non-negative decimal); `| undefined` without a default
 *   size                number of bytes, from `1000000`, `500K`, `1GB`, `64KiB`
 *                       (size.ts) on the command line and in `default`
 *   string              string; `| undefined` without a default
 *   string, repeatable  string[] in the order given, undefined when absent
 *
 * A flag's group is the heading --help lists it under (help-format.ts).
 */

/** The headings of --help, in the order it shows them (help-format.ts names each). */
export const FLAG_GROUPS = ['politeness', 'scope', 'output', 'limits', 'resume', 'distributed', 'connections', 'general'] as const;
export type FlagGroup = (typeof FLAG_GROUPS)[number];

interface FlagBase {
  /** kebab-case, as on the command line: `--max-pages`. */
  name: string;
  help: string;
  /** Metavariable shown in help, e.g. SECONDS. */
  arg?: string;
  /** One-letter alias, e.g. "q" for -q. */
  short?: string;
  /** The heading --help lists it under; a table without groups is one list. */
  group?: FlagGroup;
}

/** A switch: true when given, false when not. It takes no value. */
export interface BooleanFlag extends FlagBase {
  type: 'boolean';
}

/** A non-negative whole number. */
export interface CountFlag extends FlagBase {
  type: 'count';
  /** Shown in help; the value used when the flag is absent. */
  default?: number;
}

/** A non-negative decimal number of seconds on the command line; the parsed value is milliseconds. */
export interface DurationFlag extends FlagBase {
  type: 'duration';
  /** In seconds, as the user would write it: shown in help, and used (as milliseconds) when the flag is absent. */
  default?: number;
}

/** A non-negative decimal number without a unit (a factor, such as --delay-factor 2.5). */
export interface FactorFlag extends FlagBase {
  type: 'factor';
  /** Shown in help; the value used when the flag is absent. */
  default?: number;
}

/** A size in bytes, written with or without a unit (`1GB`, `500K`, `64KiB`; see size.ts). */
export interface SizeFlag extends FlagBase {
  type: 'size';
  /** As the user would write it (`1GB`): shown in help, and used (in bytes) when the flag is absent. */
  default?: string;
}

export interface StringFlag extends FlagBase {
  type: 'string';
  /** Shown in help; the value used when the flag is absent. */
  default?: string;
  repeatable?: false;
}

/** May be given more than once: the values are collected, in order, into a string[]. */
export interface RepeatableStringFlag extends FlagBase {
  type: 'string';
  repeatable: true;
}

export type FlagSpec = BooleanFlag | CountFlag | DurationFlag | FactorFlag | SizeFlag | StringFlag | RepeatableStringFlag;
export type FlagType = FlagSpec['type'];

type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** The key of a flag's value in the parsed flags: camelCase, plus `Ms` for a duration. */
export type FlagKey<F extends FlagSpec> = F extends { type: 'duration' } ? `${CamelCase<F['name']>}Ms` : CamelCase<F['name']>;

/** The type of a flag's parsed value (see the module comment). */
export type FlagValue<F extends FlagSpec> = F extends { type: 'boolean' }
  ? boolean
  : F extends { repeatable: true }
    ? string[] | undefined
    : (F extends { type: 'string' } ? string : number) | (F extends { default: number | string } ? never : undefined);

/** The parsed flags of a table: one key per flag, typed. */
export type FlagValues<S extends readonly FlagSpec[]> = { [F in S[number] as FlagKey<F>]: FlagValue<F> };

/** Declares a flag table with its literal types kept, so that parseArgs can type the values. Returns `specs`. */
export function defineFlags<const S extends readonly FlagSpec[]>(specs: S): S {
  return specs;
}

/** The runtime twin of FlagKey. */
export function flagKey(spec: FlagSpec): string {
  const camel = spec.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return spec.type === 'duration' ? `${camel}Ms` : camel;
}
