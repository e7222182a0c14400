/**
 * A seed file (`crawler --seeds FILE`): one absolute http(s) URL a line,
 * crawled at depth 0 after the positional seedURL, in file order (spec
 * decision "Many hosts"). Blank lines and lines starting with `#` are
 * skipped, and each line's surrounding whitespace (a CR, a BOM) is trimmed.
 */
import { CrawlerError, describeError } from '../errors.js';
import { parseHttpUrl, type HttpUrl } from './http-url.js';

/** A seed and the line of the file it came from (1-based). */
export interface SeedLine {
  url: HttpUrl;
  line: number;
}

/** A line as an error message shows it: quoted, escaped, cut at 100 characters. */
function shown(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}...` : text);
}

/**
 * The seeds of a seed file's text, in order (duplicates kept: the caller
 * queues each identity key once). `name` is the file as the user gave it.
 * Throws ERR_INVALID_URL naming the file and line of the first line that is
 * not one absolute http(s) URL, or ERR_INVALID_OPTION when no line is.
 */
export function parseSeedList(text: string, name: string, maxUrlLength: number): SeedLine[] {
  const seeds: SeedLine[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const where = `--seeds ${name} line ${i + 1}`;
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000e-\u001f\u007f]/.test(line)) throw new CrawlerError('ERR_INVALID_URL', `${where}: ${shown(line)} holds a control character`);
    if (/\s/.test(line)) throw new CrawlerError('ERR_INVALID_URL', `${where}: ${shown(line)} is not one URL (one URL a line, no spaces)`);
    try {
      seeds.push({ url: parseHttpUrl(line, maxUrlLength), line: i + 1 });
    } catch (err) {
      throw new CrawlerError('ERR_INVALID_URL', `${where}: ${shown(line)} is not an absolute http(s) URL: ${describeError(err)}`, { cause: err });
    }
  }
  if (seeds.length === 0) throw new CrawlerError('ERR_INVALID_OPTION', `--seeds ${name} holds no URL (one absolute http(s) URL a line; # starts a comment)`);
  return seeds;
}
