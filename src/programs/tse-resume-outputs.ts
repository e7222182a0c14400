/**
 * A `--resume` continues the files the crawl was started with (spec decision
 * "What the programs say"): the archive (`--warc`, `--wacz`) and the report
 * (`--report`) are recorded in the crawl's state (crawl-outputs.ts); a resume
 * without them writes to them again and says so in one line, one that names
 * other files is refused before any request, and a resumed archive lists the
 * pages the earlier runs archived before this run's, so that "archived N"
 * and the package's page list count what the file holds.
 */
import { openSync, readSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pageTitle } from '../archive/page-title.js';
import type { ArchivedPage } from '../archive/crawl-archive.js';
import { CrawlerError } from '../errors.js';
import type { CrawlOutputs, RecordedOutputs } from '../frontier/crawl-outputs.js';
import type { ReportSettings } from '../report/run-info.js';
import type { ArchiveSettings } from './archive-run.js';

/** What a resumed crawl writes, and what its archive already lists. */
export interface ResumedOutputs {
  archive: ArchiveSettings | undefined;
  report: ReportSettings | undefined;
  /** The pages the earlier runs archived (a resume with an archive), listed first. */
  listed: ArchivedPage[] | undefined;
}

/** The outputs a new crawl records in its state. */
export function outputsOf(archive: ArchiveSettings | undefined, report: string | undefined): CrawlOutputs {
  return {
    warc: archive === undefined ? undefined : resolve(archive.path),
    wacz: archive?.wacz === undefined ? undefined : resolve(archive.wacz),
    warcMaxSize: archive?.maxSize,
    report: report === undefined ? undefined : resolve(report),
  };
}

function refuse(message: string): CrawlerError {
  return new CrawlerError('ERR_STATE', message);
}

/** The flag's file as given and as recorded agree, or the resume is refused naming both. */
function same(flag: string, given: string | undefined, recorded: string | undefined, pageDir: string): void {
  if (given === undefined || resolve(given) === recorded) return;
  if (recorded === undefined) {
    throw refuse(`--resume: the crawl in ${pageDir} was started without ${flag}, so a ${flag} file begun now would miss its first pages; resume without ${flag}, or start a new crawl with it`);
  }
  throw refuse(`--resume: the crawl in ${pageDir} writes ${flag} ${recorded}, not ${resolve(given)}; resume without ${flag} (the crawl's own file is used) or with that file`);
}

/**
 * Reconciles the outputs a `--resume` names with those `state` records
 * (undefined: no readable state, which the crawl's own open reports): the
 * files to write, and a line for `say` when the recorded ones are used.
 */
export function resumedOutputs(
  state: RecordedOutputs | undefined,
  given: { archive: ArchiveSettings | undefined; report: ReportSettings | undefined; pageDir: string; commandLine: readonly string[] },
  say: (line: string) => void,
): ResumedOutputs {
  let { archive, report } = given;
  if (state === undefined) return { archive, report, listed: undefined };
  // A state written before outputs were recorded knows its archive only.
  const recorded: CrawlOutputs = state.outputs ?? { warc: state.legacyWarc };
  same('--warc', archive?.path, recorded.warc, given.pageDir);
  if (archive !== undefined && state.outputs !== undefined) same('--wacz', archive.wacz, recorded.wacz, given.pageDir);
  if (state.outputs !== undefined) same('--report', report?.file, recorded.report, given.pageDir);
  const used: string[] = [];
  if (archive === undefined && recorded.warc !== undefined) {
    archive = { path: recorded.warc, maxSize: recorded.warcMaxSize ?? 1e9, commandLine: given.commandLine, ...(recorded.wacz === undefined ? {} : { wacz: recorded.wacz }) };
    used.push(`the archive ${recorded.warc}`);
    if (recorded.wacz !== undefined) used.push(`its package ${recorded.wacz}`);
  }
  if (report === undefined && recorded.report !== undefined) {
    report = { file: recorded.report, command: [...given.commandLine] };
    used.push(`the report ${recorded.report}`);
  }
  if (used.length > 0) say(`resuming into the files the crawl was started with: ${used.join(', ')}`);
  const listed = archive === undefined ? undefined : state.captured().map((p) => listedPage(given.pageDir, p.id, p.key, p.date));
  return { archive, report, listed };
}

/** Bytes of a page file read for its title: its two lines of URL and depth, then the HTML's first 64 KiB. */
const HEAD_BYTES = 65536 + 4096;

/** An earlier run's archived page as the package lists it, its title read from its page file. */
function listedPage(pageDir: string, id: number, url: string, ts: string): ArchivedPage {
  let title: string | undefined;
  try {
    const fd = openSync(join(pageDir, String(id)), 'r');
    try {
      const head = Buffer.alloc(HEAD_BYTES);
      const n = readSync(fd, head, 0, HEAD_BYTES, 0);
      const first = head.indexOf(10);
      const second = first === -1 ? -1 : head.indexOf(10, first + 1);
      if (second !== -1) title = pageTitle(head.subarray(second + 1, n));
    } finally {
      closeSync(fd);
    }
  } catch {
    title = undefined; // no page file to read (removed by hand): listed without a title
  }
  return title === undefined ? { url, ts, status: 200 } : { url, ts, status: 200, title };
}
