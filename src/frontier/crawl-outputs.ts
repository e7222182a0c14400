/**
 * The files a private crawl writes besides its pages (`--warc`, `--wacz`,
 * `--report`), recorded in its state when it starts, so that a `--resume`
 * continues them (spec decision "What the programs say"), and the pages its
 * archive lists so far, which a resumed archive lists first.
 */
import { PagesReader } from './pages-table.js';
import { openStateIfAny } from './state-ownership.js';

/** The meta key of CrawlRecord.outputs (JSON). */
export const META_OUTPUTS = 'outputs';

/** The output files of a crawl, by absolute path. */
export interface CrawlOutputs {
  warc?: string | undefined;
  wacz?: string | undefined;
  /** --warc-max-size, bytes. */
  warcMaxSize?: number | undefined;
  report?: string | undefined;
}

/** A page the crawl's archive lists: its key and its response record's date. */
export interface CapturedPage {
  id: number;
  key: string;
  date: string;
}

/** What a crawl state in a directory says of its outputs. */
export interface RecordedOutputs {
  /** Undefined for a state written before outputs were recorded (its archive alone is known: `legacyWarc`). */
  outputs: CrawlOutputs | undefined;
  /** The archive a state of before outputs were recorded names (meta `archive`). */
  legacyWarc: string | undefined;
  /** The pages saved so far that have a capture in the archive, in ID order. */
  captured(): CapturedPage[];
  close(): void;
}

/** The state in `dir`, read for its outputs; undefined when there is none that can be read (the crawl's own open says why). */
export function readRecordedOutputs(dir: string): RecordedOutputs | undefined {
  const db = openStateIfAny(dir);
  if (db === undefined) return undefined;
  try {
    const meta = db.prepare('SELECT value FROM meta WHERE key = ?').pluck();
    const text = meta.get(META_OUTPUTS) as string | undefined;
    const outputs = text === undefined ? undefined : (JSON.parse(text) as CrawlOutputs);
    const legacyWarc = meta.get('archive') as string | undefined;
    const lastId = Number(meta.get('lastId') ?? '0');
    return {
      outputs,
      legacyWarc,
      captured: () => [...new PagesReader(db).captured(lastId)],
      close: () => db.close(),
    };
  } catch {
    db.close();
    return undefined;
  }
}
