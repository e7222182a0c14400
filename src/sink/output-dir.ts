/**
 * KeywordHunter's OutputDir: every page fetched with status 200 is saved as
 * one flat file named after the last segment of its path
 * (`/photos/january.html` gives `january.html`; an empty segment gives
 * `index.html`). Only the body is saved, byte for byte. A name can never
 * escape the directory, and nothing is ever overwritten: neither a page of
 * the run nor a file that was there before (a user's, or an earlier run's).
 * A clash gets a numeric suffix (`index-2.html`).
 */
// Synchronous: before the first request, and node:fs/promises would add to the start (docs/performance.md, Start-up).
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { CrawlerError } from '../errors.js';
import { writeFileNewSync } from './atomic-file.js';
import type { PageSink, PageToKeep, StagedPage } from './page-sink.js';

/** Longest file name we make, in bytes (most file systems allow 255). */
export const MAX_NAME_BYTES = 200;

/** Creates `dir` when missing; fails when it cannot be created, is not a directory or is not writable. */
export async function prepareOutputDir(dir: string): Promise<void> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'it exists and is not a directory' : `cannot create it (${code ?? err})`;
    throw new CrawlerError('ERR_OUTPUT_DIRECTORY', `OutputDir "${dir}": ${why}`, { cause: err });
  }
  let st;
  try {
    st = statSync(dir);
  } catch {
    st = undefined;
  }
  if (st === undefined || !st.isDirectory()) throw new CrawlerError('ERR_OUTPUT_DIRECTORY', `OutputDir "${dir}": it exists and is not a directory`);
  // Found out now, before any request, rather than at the first page (read-only mount, no write permission).
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CrawlerError('ERR_OUTPUT_DIRECTORY', `OutputDir "${dir}": it is not writable (${code ?? err})`, { cause: err });
  }
}

function decodePercent(s: string): string {
  if (s.indexOf('%') === -1) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // malformed escapes: keep the text as written
  }
}

/**
 * The safe file name for a URL path: the last segment, percent-decoded, with
 * separators, NUL and control characters replaced, never "." or "..", and
 * cut to MAX_NAME_BYTES keeping the extension.
 */
export function fileNameForPath(path: string): string {
  const segment = decodePercent(path.slice(path.lastIndexOf('/') + 1));
  // eslint-disable-next-line no-control-regex
  let name = segment.replace(/[/\\\u0000-\u001f\u007f]/g, '_');
  // A lone surrogate (u flag: paired ones are one code point) would reach the disk as U+FFFD.
  if (/[\ud800-\udfff]/u.test(name)) name = name.replace(/[\ud800-\udfff]/gu, '_');
  if (name === '' ) return 'index.html';
  if (name === '.' || name === '..') return 'index.html';
  if (name.startsWith('.')) name = '_' + name; // no hidden files (and never "..")
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    // Cut whole code points, so that no lone surrogate (written to disk as U+FFFD) is left.
    const chars = Array.from(name.slice(0, name.length - ext.length));
    let bytes = Buffer.byteLength(name);
    while (bytes > MAX_NAME_BYTES && chars.length > 0) bytes -= Buffer.byteLength(chars.pop() as string);
    name = chars.join('') + ext;
  }
  return name;
}

function withSuffix(name: string, n: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}-${n}${name.slice(dot)}` : `${name}-${n}`;
}

export class OutputDirSink implements PageSink {
  readonly dir: string;
  private readonly used = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The name the next page with this path would get (no file is written). */
  nameFor(path: string): string {
    const base = fileNameForPath(path);
    let name = base;
    for (let n = 2; this.used.has(name.toLowerCase()); n++) name = withSuffix(base, n);
    return name;
  }

  /** PageSink: a page is written (under the last segment of its path) when published; its ID names nothing here. */
  stage(page: PageToKeep): StagedPage {
    return {
      publish: async () => void (await this.save(page.url.path, page.body)),
      discard: () => undefined,
    };
  }

  /** Saves a body under a name nothing holds yet; resolves with the file name used. */
  async save(path: string, body: Buffer): Promise<string> {
    for (;;) {
      const name = this.nameFor(path);
      // Names compare case-insensitively so that case-insensitive file systems never clash either.
      this.used.add(name.toLowerCase());
      // A name taken on disk (a file that was there before the run) is skipped like one of the run's.
      if (writeFileNewSync(this.dir, name, [body])) return name;
    }
  }
}
