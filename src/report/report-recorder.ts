/**
 * The crawl report's consumer of crawl events: turns each event it needs
 * into a compact record (report-records.ts), applies it to the model and,
 * for a private crawl, appends it to the journal in the page directory.
 * `finish` writes the report (at the end of the crawl, or after a stop).
 */
import { epochNow, hostEvents, type CrawlEvent } from '../engine/events.js';
import type { PacingObserver } from '../frontier/politeness.js';
import type { ReportJournal } from './report-journal.js';
import { ReportModel } from './report-model.js';
import { originOf, type ReportRecord, type RunInfo, type SkipReason } from './report-records.js';
import { renderReport } from './render-report.js';
import { checkReportFile, writeReportFile } from './report-file.js';
import { versions, type ReportSettings } from './run-info.js';
import { linkLeftOut } from '../output/cs50-words.js';
import type { HttpUrl } from '../url/http-url.js';
import type { ScopeReason } from '../url/scope.js';

export interface ReportRecorderOptions {
  /** The report file (checked to be ours or absent before the crawl: checkReportFile). */
  file: string;
  run: RunInfo;
  /** Why a URL is outside the crawl's scope (CrawlScope.leftOut); absent: every such URL counts as external. */
  leftOut?: ((url: HttpUrl) => ScopeReason | undefined) | undefined;
}

/** The report's key for each reason --json gives a link left out. */
const SKIP_OF: Record<string, SkipReason> = {
  'already seen': 'duplicate',
  'robots.txt': 'robots',
  'too long': 'too-long',
  'not a crawlable URL': 'invalid',
  external: 'external',
  excluded: 'excluded',
  'non-HTML extension': 'extension',
};

/**
 * The recorder for `--report` (undefined without it), once the file is
 * known to be absent or a report of ours: a file of someone else's is
 * refused here, before any request.
 */
export function reportRecorder(
  settings: ReportSettings | undefined,
  run: Omit<RunInfo, 'command' | 'versions' | 'startedAt'>,
  leftOut?: ReportRecorderOptions['leftOut'],
): ReportRecorder | undefined {
  if (settings === undefined) return undefined;
  checkReportFile(settings.file);
  return new ReportRecorder({ file: settings.file, run: { ...run, command: settings.command, versions: versions(), startedAt: epochNow() }, leftOut });
}

const STOPS: Record<string, string> = {
  done: 'the crawl finished',
  signal: 'stopped by a signal (SIGINT or SIGTERM): --resume goes on',
  'max-pages': 'stopped at --max-pages',
  'seed-disallowed': 'robots.txt disallows the first URL',
  program: 'the program stopped it',
};

/** How a crawl ended (a CrawlSummary's stoppedBy), in words. */
export function stopWords(stoppedBy: string): string {
  return STOPS[stoppedBy] ?? stoppedBy;
}

export class ReportRecorder {
  readonly model = new ReportModel();
  private journal: ReportJournal | undefined;
  /** The page being scanned, and its links not followed so far. */
  private scanning: string | undefined;
  private skips: Partial<Record<SkipReason, number>> = {};
  private skipCount = 0;
  /** The URL of the page being visited (its last answer). */
  private visiting: string | undefined;
  /** Links recorded by `completing` before their events come. */
  private recorded = new Set<string>();

  constructor(private readonly o: ReportRecorderOptions) {}

  /** The report file. */
  get file(): string {
    return this.o.file;
  }

  /** Politeness's observer: each change of a host's pacing becomes a `host` event of the report. */
  get pacingObserver(): PacingObserver {
    return hostEvents(this.consume);
  }

  /**
   * Starts the run's records, after those of the earlier runs of a resumed
   * crawl, appending them to a private crawl's journal from now on.
   */
  start(journal?: { journal: ReportJournal; records: ReportRecord[] }): void {
    for (const r of journal?.records ?? []) this.model.apply(r);
    this.journal = journal?.journal;
    this.record(['run', this.o.run]);
  }

  /** The events' consumer. */
  readonly consume = (e: CrawlEvent): void => {
    if (e.type !== 'link' && e.type !== 'exchange' && e.type !== 'host' && e.type !== 'robots' && e.type !== 'requisite') this.endScan();
    switch (e.type) {
      case 'exchange': {
        const x = e.exchange;
        this.record(['x', x.url.origin, x.url.key, x.startedAt, x.endedAt, x.status, x.response.length, ...(x.error === undefined ? [] : [x.error.message])] as ReportRecord);
        break;
      }
      case 'response':
        this.visiting = e.url.key;
        this.record(['resp', e.url.key, e.depth, e.status, ...(e.error === undefined ? [] : [e.error.message])] as ReportRecord);
        break;
      case 'saved': {
        const r = e.refresh;
        this.record(r === undefined ? ['saved', e.url.key, e.depth, e.id] : r.state === 'unchanged' ? ['saved', e.url.key, e.depth, e.id, r.state, r.sparedBytes] : ['saved', e.url.key, e.depth, e.id, r.state]);
        break;
      }
      case 'scanning':
        this.scanning = e.url.key;
        break;
      case 'link':
        if (e.action === 'follow' && e.url !== undefined) {
          if (!this.recorded.has(e.url.key)) this.record(['follow', e.url.key, e.depth + 1, this.scanning ?? e.url.key]);
        }
        else this.skip(SKIP_OF[linkLeftOut(e.action === 'follow' ? 'invalid' : e.action, e.url, e.error, this.o.leftOut) ?? 'not a crawlable URL'] ?? 'invalid');
        break;
      case 'redirect':
        if (e.action === 'follow' && e.target !== undefined) this.record(['follow', e.target.key, e.depth, e.from.key]);
        else this.record(['skips', e.from.key, { redirect: 1 }]);
        break;
      case 'failed':
        this.record(['failed', e.url, e.depth, e.reason]);
        break;
      case 'disallowed':
        this.record(['failed', e.url, e.depth, '(disallowed by robots.txt)']);
        break;
      case 'robots':
        this.record(['robots', e.origin, e.source, e.group, e.rules, e.crawlDelay ?? null]);
        break;
      case 'robots-txt':
        this.record(['robots-status', originOf(e.url), e.answer.status]);
        break;
      case 'host':
        this.record(['host', e.origin, e.at, e.intervalMs, e.pausedUntil ?? 0, e.failures]);
        break;
      case 'requisite':
        // A cap is told once a page: it counts as one line of the reasons.
        this.record(e.outcome === 'fetched' || e.outcome === 'unchanged' ? ['req', e.page.key, e.outcome] : ['req', e.page.key, e.outcome, requisiteReason(e)]);
        break;
      case 'match':
        this.record(['match', e.url.key, e.depth, e.line.toString('utf8')]);
        break;
      case 'lost':
        break;
    }
  };

  /**
   * The page being visited is about to be done in the crawl state, queueing
   * `links` (their events come after): records them, under that page, and
   * flushes the journal, so the crawl state never holds a page the journal
   * does not (see JournaledFrontier).
   */
  completing(links: readonly { key: string; depth: number }[]): void {
    this.recorded = new Set();
    const page = this.visiting;
    if (page !== undefined) {
      for (const l of links) {
        this.record(['follow', l.key, l.depth, page]);
        this.recorded.add(l.key);
      }
    }
    this.flush();
  }

  /** A refresh ran to its end: the pages of the earlier crawl it did not save (their count, and the first of them). */
  refreshed(gone: { gone: number; goneListed: readonly string[] }): void {
    this.record(['gone', gone.gone, [...gone.goneListed]]);
  }

  /** Writes buffered records to the journal. */
  flush(): void {
    this.endScan();
    this.journal?.flush();
  }

  /** Ends the run (`why`: how the crawl ended) and writes the report. Returns the file's path. */
  finish(why: string): string {
    this.endScan();
    this.record(['end', epochNow(), why]);
    this.journal?.close();
    const html = renderReport(this.model, { file: this.o.file, now: epochNow() });
    writeReportFile(this.o.file, html);
    return this.o.file;
  }

  private skip(reason: SkipReason): void {
    this.skips[reason] = (this.skips[reason] ?? 0) + 1;
    this.skipCount++;
  }

  private endScan(): void {
    if (this.scanning !== undefined && this.skipCount > 0) this.record(['skips', this.scanning, this.skips]);
    this.scanning = undefined;
    this.skips = {};
    this.skipCount = 0;
  }

  private record(r: ReportRecord): void {
    if (this.model.apply(r)) this.journal?.append(r);
  }
}

/** Why a requisite was not fetched, as the report groups them: its status, its error's cause, robots.txt, the scope, the cap. */
function requisiteReason(e: Extract<CrawlEvent, { type: 'requisite' }>): string {
  switch (e.outcome) {
    case 'robots':
      return 'disallowed by robots.txt';
    case 'outside':
      return e.reason === 'excluded' ? 'excluded by --exclude' : 'outside the crawl\'s hosts';
    case 'capped':
      return `a page's cap (${e.reason ?? ''})`;
    default:
      return e.status !== undefined ? `HTTP ${e.status}` : (e.error?.code ?? e.reason ?? 'failed');
  }
}
