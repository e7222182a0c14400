/**
 * A refresh of an earlier crawl (crawler --since OLD_DIR): its start (the
 * earlier crawl opened for reading, the archive checked against the earlier
 * one, one line on stderr) and its end (what it saved, as against the
 * earlier crawl). The requests and the pages go through the one page path
 * (src/engine/page-path.ts), which asks the earlier crawl for validators and
 * copies.
 */
import { basename, dirname, resolve as resolvePath } from 'node:path';
import { CrawlerError } from '../errors.js';
import type { RefreshSource } from '../frontier/refresh-source.js';
import type { SqliteFrontier } from '../frontier/private-sqlite.js';
import type { CliIo } from '../program-io.js';
import type { TseSettings } from './tse-settings.js';
import { count } from '../plural.js';

/** Gone pages named in a summary (the rest are counted). */
export const GONE_LISTED = 100;

/**
 * Opens the earlier crawl of `settings.since` (see RefreshSource.open) and
 * checks the archive against its own: a new archive must not be the
 * earlier one (a new crawl replaces an archive of its name), nor share its
 * file name when a package will hold both. Tells stderr what the refresh
 * starts from. Throws ERR_EARLIER_CRAWL.
 */
export async function openRefresh(settings: TseSettings, io: CliIo): Promise<RefreshSource> {
  const since = settings.since as string;
  const { RefreshSource } = await import('../frontier/refresh-source.js');
  const source = RefreshSource.open(since, { pageDir: settings.pageDir });
  try {
    checkArchives(settings, source);
  } catch (err) {
    source.close();
    throw err;
  }
  const pages = `${count(source.pages, 'page')}`;
  io.stderr(`crawler: refreshing ${since} (${pages} of ${source.seed}): each is asked for with its validators, and copied from there when unchanged (304)\n`);
  const archive = settings.archive;
  if (archive?.wacz !== undefined) {
    const files = source.archiveFiles();
    for (const path of source.archivePaths) {
      if (!files.includes(path)) io.stderr(`crawler: the earlier archive ${path} is gone: the package will not hold it, and the unchanged pages whose records it held will not replay\n`);
    }
  }
  return source;
}

function checkArchives(settings: TseSettings, source: RefreshSource): void {
  const archive = settings.archive;
  if (archive === undefined) return;
  const ours = resolvePath(archive.path);
  for (const file of [...source.archivePaths, ...source.archiveFiles()]) {
    if (file === ours || (dirname(file) === dirname(ours) && basename(file) === basename(ours))) {
      throw new CrawlerError('ERR_EARLIER_CRAWL', `--warc ${archive.path} is the archive of the earlier crawl in ${settings.since}, which a refresh only reads: give another file`);
    }
    if (archive.wacz !== undefined && basename(file) === basename(ours)) {
      throw new CrawlerError('ERR_EARLIER_CRAWL', `--warc ${archive.path} has the name of the earlier crawl's archive ${file}, which the package holds too: give another name`);
    }
  }
}

/** What a refresh saved, as against the earlier crawl, over all its runs. */
export interface RefreshSummary {
  /** Pages the earlier crawl did not save. */
  fresh: number;
  /** Pages saved again in full. */
  changed: number;
  /** Pages answered 304 and copied from the earlier crawl. */
  unchanged: number;
  /** Pages the earlier crawl saved and this one did not: the first GONE_LISTED of them, in the earlier crawl's order. */
  gone: number;
  goneListed: string[];
  /** Bytes the server did not send again (the unchanged pages' earlier bodies). */
  sparedBytes: number;
}

/** The summary of a refresh that ran to its end, from its state and the earlier crawl's. */
export function refreshSummary(frontier: SqliteFrontier, source: RefreshSource): RefreshSummary {
  const counts = frontier.refreshCounts();
  let gone = 0;
  const goneListed: string[] = [];
  for (const { key } of source.saved()) {
    if (frontier.savedKey(key)) continue;
    gone++;
    if (goneListed.length < GONE_LISTED) goneListed.push(key);
  }
  return { ...counts, gone, goneListed };
}

/** The summary as one line for stderr. */
export function refreshLine(since: string, s: RefreshSummary): string {
  return `crawler: refresh of ${since}: ${s.unchanged} unchanged, ${s.changed} changed, ${s.fresh} new, ${s.gone} gone; ${s.sparedBytes} bytes not sent again\n`;
}
