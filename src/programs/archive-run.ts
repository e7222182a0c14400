/**
 * A run's crawl archive (`--warc FILE`, both programs): opened before the
 * first request (a file that is not ours stops the run with one line, exit
 * 1), fed every event of the run, wire exchanges included, and finished
 * after the last connection is closed.
 */
import { hostname } from 'node:os';
import { CrawlArchive, type ArchiveSummary } from '../archive/crawl-archive.js';
import { workerName } from '../archive/warc-names.js';
import type { CrawlEventSink } from '../engine/events.js';
import type { CliIo } from '../cli/run-cli.js';

/** What --warc and --warc-max-size asked for. */
export interface ArchiveSettings {
  path: string;
  maxSize: number;
  /** The program's name and arguments, for the warcinfo record. */
  commandLine: readonly string[];
}

/** How the run goes, as far as the archive needs to know. */
export interface ArchiveRun {
  robots: 'obey' | 'ignore';
  userAgent: string;
  /** Continue our archive (crawler --resume). */
  resume: boolean;
  /** A worker of a shared crawl: its own files (the worker's tag in their names), its events interleaved. */
  shared: boolean;
}

/** A worker's tag in its files' names: unique among the workers of one machine and of several. */
export function workerTag(): string {
  return `${hostname()}-${process.pid}`;
}

/** Opens the archive `settings` ask for (none without --warc) and adds it to `listeners`. Rejects with ERR_WRITE. */
export async function startArchive(settings: ArchiveSettings | undefined, run: ArchiveRun, listeners: CrawlEventSink[]): Promise<CrawlArchive | undefined> {
  if (settings === undefined) return undefined;
  const archive = await CrawlArchive.open({
    path: run.shared ? workerName(settings.path, workerTag()) : settings.path,
    maxSize: settings.maxSize,
    resume: run.resume,
    ordered: !run.shared,
    robots: run.robots,
    userAgent: run.userAgent,
    commandLine: settings.commandLine,
  });
  listeners.push(archive.consume);
  return archive;
}

/**
 * The end of the archive: writes its last records, closes its files, and
 * says where they are. This is the place for what is made from the
 * finished archive: the CDXJ index (`writeCdxj(summary.warcPaths,
 * `${first}.cdxj`)`, src/archive/cdxj.ts) and the WACZ package (`writeWacz({
 * out, warcPaths, cdxjPath, pages: summary.pages, software })`,
 * src/archive/wacz.ts), both called here once they exist.
 */
export async function finishArchive(archive: CrawlArchive | undefined, io: CliIo, program: string): Promise<ArchiveSummary | undefined> {
  if (archive === undefined) return undefined;
  const summary = await archive.finish();
  const files = summary.warcPaths;
  io.stderr(`${program}: archived ${summary.pages.length} page${summary.pages.length === 1 ? '' : 's'} in ${files.length === 1 ? files[0] : `${files.length} files, ${files[0]} to ${files[files.length - 1]}`}\n`);
  return summary;
}

/**
 * Runs `crawl`, then finishes the archive after `cleanup` (which closes the
 * connections, whose last exchanges the archive still records). The first
 * failure is the one reported.
 */
export async function withArchive(archive: CrawlArchive | undefined, io: CliIo, program: string, crawl: () => Promise<number>, cleanup: () => void): Promise<number> {
  let code: number | undefined;
  let failure: unknown;
  try {
    code = await crawl();
  } catch (err) {
    failure = err;
  } finally {
    cleanup();
  }
  try {
    await finishArchive(archive, io, program);
  } catch (err) {
    failure ??= err;
  }
  if (failure !== undefined) throw failure;
  return code as number;
}
