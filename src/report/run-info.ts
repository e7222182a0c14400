/**
 * What the report says of the run itself: the versions (ours and Node's),
 * and the checks on `--report FILE.html` that a command line makes.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CrawlerError } from '../errors.js';

/** The report settings a program runs with. */
export interface ReportSettings {
  /** The report file. */
  file: string;
  /** The command line as given, program name first. */
  command: string[];
}

/** "polite-crawler 0.1.0, Node.js v20.19.0 (linux x64)". */
export function versions(): string {
  let ours = 'unknown';
  try {
    // dist/src/report/run-info.js: the package's root is three levels up.
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as { version?: unknown };
    if (typeof pkg.version === 'string') ours = pkg.version;
  } catch {
    // not in the package layout: the version stays unknown
  }
  return `polite-crawler ${ours}, Node.js ${process.version} (${process.platform} ${process.arch})`;
}

/** The report settings for `--report FILE`, or undefined without it; throws ERR_INVALID_OPTION for a name that is not FILE.html. */
export function reportSettings(file: string | undefined, program: string, argv: readonly string[]): ReportSettings | undefined {
  if (file === undefined) return undefined;
  if (!/\.html?$/i.test(file)) throw new CrawlerError('ERR_INVALID_OPTION', `--report takes a file name ending in .html, got "${file}"`);
  return { file, command: [program, ...argv] };
}
