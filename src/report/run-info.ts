/**
 * What the report says of the run itself: the versions (ours and Node's),
 * and the checks on `--report FILE.html` that a command line makes.
 */
import { softwareName } from '../archive/software.js';
import { CrawlerError } from '../errors.js';

/** The report settings a program runs with. */
export interface ReportSettings {
  /** The report file. */
  file: string;
  /** The command line as given, program name first. */
  command: string[];
}

/** "polite-crawler/0.1.0, Node.js v20.19.0 (linux x64)": the package's name and version as the archive gives them, and Node's. */
export function versions(): string {
  return `${softwareName()}, Node.js ${process.version} (${process.platform} ${process.arch})`;
}

/** The report settings for `--report FILE`, or undefined without it; throws ERR_INVALID_OPTION for a name that is not FILE.html. */
export function reportSettings(file: string | undefined, program: string, argv: readonly string[]): ReportSettings | undefined {
  if (file === undefined) return undefined;
  if (!/\.html?$/i.test(file)) throw new CrawlerError('ERR_INVALID_OPTION', `--report takes a file name ending in .html, got "${file}"`);
  return { file, command: [program, ...argv] };
}
