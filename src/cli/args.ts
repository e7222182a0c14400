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
 * Keys are the flag names in camelCase (`--max-pages` is `maxPages`); a
 * duration's key adds `Ms` (`--delay` is `delayMs`), so the unit is in the
 * name and code written for the seconds a flag used to hold does not compile.
 * Values by type:
 *   boolean             boolean (false when absent)
 *   count               number; `| undefined` without a default
 *   duration            number of milliseconds, from seconds on the command
 *                       line and in `default`; `| undefined` without a default
 *   string              string; `| undefined` without a default
 *   string, repeatable  string[] in the order given, undefined when absent
 */
import { CrawlerError } from '../errors.js';

interface FlagBase {
  /** kebab-case, as on the command line: `--max-pages`. */
  name: string;
  help: string;
  /** Metavariable shown in help, e.g. SECONDS. */
  arg?: string;
  /** One-letter alias, e.g. "q" for -q. */
  short?: string;
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

export type FlagSpec = BooleanFlag | CountFlag | DurationFlag | StringFlag | RepeatableStringFlag;
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

export interface ParsedArgs<S extends readonly FlagSpec[] = readonly FlagSpec[]> {
  flags: FlagValues<S>;
  positionals: string[];
}

/** Declares a flag table with its literal types kept, so that parseArgs can type the values. Returns `specs`. */
export function defineFlags<const S extends readonly FlagSpec[]>(specs: S): S {
  return specs;
}

/** The runtime twin of FlagKey. */
export function flagKey(spec: FlagSpec): string {
  const camel = spec.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return spec.type === 'duration' ? `${camel}Ms` : camel;
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
      if (spec === undefined) throw new CrawlerError('ERR_INVALID_OPTION', `unknown option --${name} (see --help)`);
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

/** The options section of --help, one flag a line (two for long help). */
export function formatFlags(specs: readonly FlagSpec[]): string {
  const rows = specs.map((s) => {
    const left = `${s.short !== undefined ? `-${s.short}, ` : '    '}--${s.name}${s.type === 'boolean' ? '' : ` ${s.arg ?? 'VALUE'}`}`;
    const dflt = 'default' in s && s.default !== undefined ? ` (default ${s.default})` : '';
    return [left, s.help + dflt] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  return rows.map(([l, r]) => `  ${l.padEnd(width)}${r}`).join('\n');
}
