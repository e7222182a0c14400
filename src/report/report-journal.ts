/**
 * The report's part of a private crawl's state: an append-only file of
 * report records (one JSON array a line) in the page directory, so that a
 * resumed crawl's report covers the whole crawl. It is written only in a
 * directory that carries our marker, and read back on --resume; a new crawl
 * starts it afresh. Lines are written in batches, at most `flushBytes`
 * apart and whenever the crawl flushes its log; a line cut by a crash is
 * skipped when it is read back.
 */
import { closeSync, constants, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CrawlerError, writeError } from '../errors.js';
import { hasOurMarker } from '../sink/tse-pagedir.js';
import type { ReportRecord } from './report-records.js';

/** The journal's name in the page directory. */
export const REPORT_JOURNAL = '.crawler-report.jsonl';

export class ReportJournal {
  private fd: number;
  private buffer = '';

  private constructor(
    private readonly path: string,
    fd: number,
    private readonly flushBytes: number,
  ) {
    this.fd = fd;
  }

  /**
   * Opens the journal of the crawl in `pageDir` (which must carry our
   * marker): with `resume`, its records so far are returned and new ones
   * are appended; otherwise it starts empty.
   */
  static async open(pageDir: string, resume: boolean, flushBytes = 64 * 1024): Promise<{ journal: ReportJournal; records: ReportRecord[] }> {
    if (!(await hasOurMarker(pageDir))) throw new CrawlerError('ERR_STATE', `${pageDir} is not a crawl of ours: not writing ${REPORT_JOURNAL} there`);
    const path = join(pageDir, REPORT_JOURNAL);
    const records = resume && existsSync(path) ? readRecords(readFileSync(path, 'utf8')) : [];
    let fd: number;
    try {
      // O_NOFOLLOW: a link planted under our name is refused, never followed.
      fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | (resume ? constants.O_APPEND : constants.O_TRUNC), 0o644);
    } catch (err) {
      throw writeError('ERR_WRITE', path, err);
    }
    const journal = new ReportJournal(path, fd, flushBytes);
    // A line a crash cut short ends where the next run starts: begin on a line of our own.
    if (records.length > 0) journal.buffer = '\n';
    return { journal, records };
  }

  append(record: ReportRecord): void {
    if (this.fd === -1) return;
    this.buffer += JSON.stringify(record) + '\n';
    if (this.buffer.length >= this.flushBytes) this.flush();
  }

  /** Writes what is buffered. */
  flush(): void {
    if (this.fd === -1 || this.buffer === '') return;
    const data = Buffer.from(this.buffer, 'utf8');
    this.buffer = '';
    try {
      for (let off = 0; off < data.length; ) off += writeSync(this.fd, data, off);
    } catch (err) {
      throw writeError('ERR_WRITE', this.path, err);
    }
  }

  close(): void {
    if (this.fd === -1) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = -1;
    }
  }
}

/** The records of a journal's text; lines that do not parse (cut by a crash) are skipped. */
export function readRecords(text: string): ReportRecord[] {
  const out: ReportRecord[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    try {
      const r = JSON.parse(line) as unknown;
      if (Array.isArray(r) && typeof r[0] === 'string') out.push(r as ReportRecord);
    } catch {
      // a line cut short by a crash
    }
  }
  return out;
}
