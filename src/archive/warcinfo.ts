/**
 * The `warcinfo` record that starts each archive file (WARC 1.1 §6.2): what
 * wrote it and how, in `application/warc-fields`.
 */
import { hostname } from 'node:os';
import { sha1Digest } from './digest.js';
import { softwareName } from './software.js';
import { newRecordId, serializeRecord, warcDate, warcFields, type RecordBytes } from './warc-record.js';

/** What the warcinfo says about the crawl. */
export interface CrawlDescription {
  /** `obey` (robots.txt fetched and obeyed) or `ignore`. */
  robots: 'obey' | 'ignore';
  userAgent: string;
  /** The program's name and arguments, as given. */
  commandLine: readonly string[];
}

/** The WARC 1.1 specification, as `conformsTo` names it. */
export const WARC_1_1 = 'http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/';

/** A shell-like rendering of argv: arguments with spaces or quotes are JSON-quoted. */
function commandText(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ');
}

/** The serialized warcinfo record for the file `fileName`. */
export function warcinfoRecord(fileName: string, crawl: CrawlDescription, resumed: boolean, now = Date.now()): RecordBytes {
  const fields: Array<[string, string]> = [
    ['software', softwareName()],
    ['format', 'WARC File Format 1.1'],
    ['conformsTo', WARC_1_1],
    ['robots', crawl.robots],
    ['http-header-user-agent', crawl.userAgent],
    ['command-line', commandText(crawl.commandLine)],
    ['hostname', hostname()],
  ];
  if (resumed) fields.push(['description', 'the crawl continued here after an interruption (--resume)']);
  const block = warcFields(fields);
  return serializeRecord({
    type: 'warcinfo',
    fields: [
      ['WARC-Record-ID', newRecordId()],
      ['WARC-Date', warcDate(now)],
      ['WARC-Filename', fileName],
      ['Content-Type', 'application/warc-fields'],
      ['WARC-Block-Digest', sha1Digest(block)],
    ],
    block: [block],
  });
}
