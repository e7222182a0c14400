/**
 * Command-line parsing from one table of flags, which also writes `--help`.
 * Hand-written rather than node:util parseArgs because a positional such as
 * `-1` (a bad maxDepth) must reach validation as a positional, so the user
 * gets "maxDepth must be ..." instead of "unknown option -1".
 */
import { CrawlerError } from '../errors.js';

export type FlagType = 'boolean' | 'seconds' | 'count' | 'string';

export interface FlagSpec {
  name: string;
  type: FlagType;
  help: string;
  /** Metavariable shown in help, e.g. SECONDS. */
  arg?: string;
  /** One-letter alias, e.g. "q" for -q. */
  short?: string;
  /** Shown in help; the value used when the flag is absent. */
  default?: number | string | boolean;
  /** May be given more than once: the values are collected, in order, into a string[] (strings only). */
  repeatable?: boolean;
}

export type FlagValues = Record<string, number | string | boolean | string[] | undefined>;

export interface ParsedArgs {
  flags: FlagValues;
  positionals: string[];
}

const SECONDS_RE = /^[0-9]+(\.[0-9]+)?$/;
const COUNT_RE = /^[0-9]+$/;

function convert(spec: FlagSpec, raw: string): number | string {
  if (spec.type === 'seconds') {
    if (!SECONDS_RE.test(raw)) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} must be a non-negative number of seconds, got "${raw}"`);
    return Number(raw);
  }
  if (spec.type === 'count') {
    if (!COUNT_RE.test(raw) || !Number.isSafeInteger(Number(raw))) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} must be a non-negative whole number, got "${raw}"`);
    return Number(raw);
  }
  return raw;
}

/** Parses argv (without node and script). Throws CrawlerError ERR_INVALID_OPTION / ERR_USAGE. */
export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const byShort = new Map(specs.filter((s) => s.short !== undefined).map((s) => [s.short as string, s]));
  const flags: FlagValues = {};
  for (const s of specs) flags[s.name] = s.default;
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
    if (spec.type === 'boolean') {
      if (inline !== undefined) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} takes no value`);
      flags[spec.name] = true;
      continue;
    }
    const raw = inline ?? argv[++i];
    if (raw === undefined) throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} needs a value (${spec.arg ?? 'VALUE'})`);
    const value = convert(spec, raw);
    if (spec.repeatable === true) flags[spec.name] = [...((flags[spec.name] as string[] | undefined) ?? []), String(value)];
    else flags[spec.name] = value;
  }
  return { flags, positionals };
}

/** The options section of --help, one flag a line (two for long help). */
export function formatFlags(specs: readonly FlagSpec[]): string {
  const rows = specs.map((s) => {
    const left = `${s.short !== undefined ? `-${s.short}, ` : '    '}--${s.name}${s.type === 'boolean' ? '' : ` ${s.arg ?? 'VALUE'}`}`;
    const dflt = s.default !== undefined && s.type !== 'boolean' ? ` (default ${s.default})` : '';
    return [left, s.help + dflt] as const;
  });
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  return rows.map(([l, r]) => `  ${l.padEnd(width)}${r}`).join('\n');
}
