/**
 * A run's crawl archive (`--warc FILE`, both programs): opened before the
 * first request (a file that is not ours stops the run with one line, exit
 * 1), fed every event of the run, wire exchanges included, and finished
 * after the last connection is closed.
 *
 * The archive's modules (and with them zlib, crypto, worker_threads and
 * yazl) are imported only by a run that archives: a run without --warc
 * starts without them (docs/performance.md, Start-up).
 */
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { softwareName } from '../archive/software.js';
import { CrawlerError } from '../errors.js';
import type { ArchivedPage, CrawlArchive, ArchiveSummary } from '../archive/crawl-archive.js';
import { checkOutputDirectory } from '../output-path.js';
import { workerName } from '../sink/warc-names.js';
import type { EarlierPage, EarlierPages } from '../frontier/earlier-pages.js';
import type { CrawlEventSink } from '../engine/events.js';
import type { CliIo } from '../program-io.js';
import { count } from '../plural.js';

/** What --warc and --warc-max-size asked for. */
export interface ArchiveSettings {
  path: string;
  maxSize: number;
  /** --wacz: the package to write at the end. */
  wacz?: string | undefined;
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
  /** Keep each page's capture for a crawl state (CrawlArchive's `captures`): a private crawler run, whose state a refresh reads. */
  captures?: boolean;
  /**
   * A refresh (crawler --since): its earlier crawl, whose pages a 304 revisits,
   * and that crawl's archive files, which the package holds too so that the
   * revisits replay (none when it kept no archive).
   */
  earlier?: { pages: EarlierPages & { bodySync(page: EarlierPage): Buffer }; archiveFiles: readonly string[] } | undefined;
  /** A resumed archive: the pages its earlier runs listed (tse-resume-outputs.ts). */
  listed?: readonly ArchivedPage[] | undefined;
}

/** A worker's tag in its files' names: unique among the workers of one machine and of several. */
export function workerTag(): string {
  return `${hostname()}-${process.pid}`;
}

/** What a finished archive is made into: its CDXJ index beside the first file, and the package when asked. */
export interface ArchiveOutputs {
  cdxj: string;
  wacz: string | undefined;
}

/** A run's archive and what is made of it at the end. */
export interface RunArchive {
  archive: CrawlArchive;
  outputs: ArchiveOutputs;
  /** A refresh's earlier archive files, which the package holds besides this run's. */
  earlierFiles: readonly string[];
}

/**
 * Opens the archive `settings` ask for (none without --warc or --wacz) and
 * adds it to `listeners`. The index and the package it will make are
 * checked first: one that exists beside no archive of ours is someone
 * else's file and stops the run before any request. Rejects with ERR_WRITE.
 */
export async function startArchive(settings: ArchiveSettings | undefined, run: ArchiveRun, listeners: CrawlEventSink[]): Promise<RunArchive | undefined> {
  if (settings === undefined) return undefined;
  // Where the files go, before any request (--wacz alone puts the archive beside it: its directory is checked first).
  if (settings.wacz !== undefined) checkOutputDirectory('--wacz', settings.wacz);
  checkOutputDirectory('--warc', settings.path);
  const path = run.shared ? workerName(settings.path, workerTag()) : settings.path;
  const outputs: ArchiveOutputs = {
    // crawl.warc.gz -> crawl.cdxj
    cdxj: `${path.replace(/(\.warc)?(\.gz)?$/i, '')}.cdxj`,
    wacz: settings.wacz === undefined ? undefined : run.shared ? workerName(settings.wacz, workerTag()) : settings.wacz,
  };
  // CrawlArchive.open refuses a WARC that is not ours; one that is (or none) vouches for the index and package beside it.
  const ours = existsSync(path);
  for (const f of [outputs.cdxj, outputs.wacz]) {
    if (f !== undefined && existsSync(f) && !ours) {
      throw new CrawlerError('ERR_WRITE', `${f} exists and was not made from an archive of ours; not overwriting it (move it, or choose another --warc or --wacz)`);
    }
  }
  const { CrawlArchive } = await import('../archive/crawl-archive.js');
  const archive = await CrawlArchive.open({
    path,
    maxSize: settings.maxSize,
    resume: run.resume,
    ordered: !run.shared,
    robots: run.robots,
    userAgent: run.userAgent,
    commandLine: settings.commandLine,
    captures: run.captures === true,
    earlier: run.earlier?.pages,
    listed: run.listed,
  });
  listeners.push(archive.consume);
  return { archive, outputs, earlierFiles: run.earlier?.archiveFiles ?? [] };
}

/**
 * The end of the archive: writes its last records, closes its files, and
 * says where they are. This is the place for what is made from the
 * finished archive: the CDXJ index (`writeCdxj(summary.warcPaths,
 * `${first}.cdxj`)`, src/archive/cdxj.ts) and the WACZ package (`writeWacz({
 * out, warcPaths, cdxjPath, pages: summary.pages, software })`,
 * src/archive/wacz.ts), both called here once they exist.
 */
export async function finishArchive(run: RunArchive | undefined, io: CliIo, program: string): Promise<ArchiveSummary | undefined> {
  if (run === undefined) return undefined;
  const [{ writeCdxj, writeCdxjEntries }, { writeWacz }] = await Promise.all([import('../archive/cdxj.js'), import('../archive/wacz.js')]);
  const summary = await run.archive.finish();
  const files = summary.warcPaths;
  io.stderr(`${program}: archived ${count(summary.pages.length, 'page')} in ${files.length === 1 ? files[0] : `${files.length} files, ${files[0]} to ${files[files.length - 1]}`}\n`);
  // Checked at the start: these are ours to replace. A resumed archive's earlier captures are found by reading it.
  const lines = summary.index === undefined ? await writeCdxj(files, run.outputs.cdxj, { replace: true }) : writeCdxjEntries(summary.index, run.outputs.cdxj, { replace: true });
  io.stderr(`${program}: index of ${count(lines, 'capture')} in ${run.outputs.cdxj}\n`);
  if (run.outputs.wacz !== undefined) {
    const pages = summary.pages.map((p) => (p.title === undefined ? { url: p.url, ts: p.ts } : { url: p.url, ts: p.ts, title: p.title }));
    const software = softwareName().replace('/', ' ');
    const earlier = run.earlierFiles;
    if (earlier.length === 0) await writeWacz({ out: run.outputs.wacz, warcPaths: files, cdxjPath: run.outputs.cdxj, pages, software, replace: true });
    else await writeRefreshWacz(run, earlier, summary, pages, software);
    const also = earlier.length === 0 ? '' : `, with the earlier crawl's archive (${count(earlier.length, 'file')}), whose records the unchanged pages refer to`;
    io.stderr(`${program}: package in ${run.outputs.wacz}${also} (open it in ReplayWeb.page)\n`);
  }
  return summary;
}

/**
 * A refresh's package: the earlier crawl's archive files and this run's,
 * under one index of both (beside this run's archive, its own index covers
 * its own files only), so that each server-not-modified revisit finds the
 * record it refers to in the package and replays as the earlier page.
 */
async function writeRefreshWacz(run: RunArchive, earlier: readonly string[], summary: ArchiveSummary, pages: Array<{ url: string; ts: string; title?: string }>, software: string): Promise<void> {
  const [{ indexEntries }, { cdxjText, sortedCdxj }, { writeWacz }, { discardStagedSync, stageFileSync }, { basename, dirname }] = await Promise.all([
    import('../archive/cdxj.js'),
    import('../archive/cdxj-line.js'),
    import('../archive/wacz.js'),
    import('../sink/atomic-file.js'),
    import('node:path'),
  ]);
  const out = run.outputs.wacz as string;
  const files = summary.warcPaths;
  // This run's entries as written (a resumed archive's are read back); the earlier files' are read.
  const entries = [...(await indexEntries(earlier)), ...(summary.index ?? (await indexEntries(files)))];
  const index = stageFileSync(dirname(out), `${basename(out)}.cdxj`, [sortedCdxj(entries.map(cdxjText))]);
  try {
    await writeWacz({ out, warcPaths: [...earlier, ...files], cdxjPath: index, pages, software, replace: true });
  } finally {
    discardStagedSync(index);
  }
}

/**
 * Runs `crawl`, then finishes the archive after `cleanup` (which closes the
 * connections, whose last exchanges the archive still records). The first
 * failure is the one reported.
 */
export async function withArchive(archive: RunArchive | undefined, io: CliIo, program: string, crawl: () => Promise<number>, cleanup: () => void): Promise<number> {
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
