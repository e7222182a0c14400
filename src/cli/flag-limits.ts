/**
 * The largest values some flags can have on this platform, checked once the
 * flags are read, so that a cap the program cannot honour is refused before
 * any request instead of failing the crawl later ("cannot write .../2:
 * Unknown system error -2147483648" once a page passed 2 GiB):
 *
 * - `--max-body-bytes`: a page is scanned for links as one string, and V8's
 *   longest string is buffer.constants.MAX_STRING_LENGTH (536,870,888 on
 *   64-bit Node 20). That is also well within what one write takes (2 GiB -
 *   1, fs.writev's int32 result), which a page file (URL line and body) and
 *   an archive record (its heads and body) each need.
 * - `--max-header-bytes`: an answer that waits for its turn keeps its
 *   header and trailer sections (each up to the cap) packed in one JSON
 *   string, where a byte may take two characters: a quarter of the longest
 *   string.
 * - every duration (`--delay`, the timeouts, `--max-retry-after`, `--lease`,
 *   `--frontier-wait`): a timer waits at most 2^31 - 1 ms (about 24.8 days);
 *   Node runs a longer one after 1 ms, so `--delay 3000000` would ask
 *   without any delay.
 */
import { constants } from 'node:buffer';
import { CrawlerError } from '../errors.js';
import { flagKey, type FlagSpec } from './args.js';

/** Half of what one write can take: the other half is room for a page file's or a record's heads. */
const HALF_A_WRITE = Math.floor((2 ** 31 - 1) / 2);

/** The largest --max-body-bytes (see the module comment). */
export const MAX_BODY_BYTES_LIMIT = Math.min(constants.MAX_STRING_LENGTH, HALF_A_WRITE);

/** The largest --max-header-bytes (see the module comment). */
export const MAX_HEADER_BYTES_LIMIT = Math.floor(constants.MAX_STRING_LENGTH / 4);

/** The longest duration a flag may give, in ms: a timer's longest wait. */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** The byte caps with a limit, and what makes it. */
const BYTE_LIMITS: Record<string, { most: number; why: string }> = {
  'max-body-bytes': { most: MAX_BODY_BYTES_LIMIT, why: 'the longest page a link scan can read as one string' },
  'max-header-bytes': { most: MAX_HEADER_BYTES_LIMIT, why: 'the header and trailer sections of an answer waiting for its turn are kept in one string' },
};

/**
 * Throws ERR_INVALID_OPTION, one line naming the flag, its value and the
 * largest allowed, when a parsed flag of `specs` is beyond what this
 * platform can honour (see the module comment).
 */
export function checkFlagLimits(specs: readonly FlagSpec[], flags: Readonly<Record<string, unknown>>): void {
  for (const spec of specs) {
    const value = flags[flagKey(spec)];
    if (typeof value !== 'number') continue;
    const bytes = spec.type === 'count' ? BYTE_LIMITS[spec.name] : undefined;
    if (bytes !== undefined && value > bytes.most) {
      throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} ${value} is too large: at most ${bytes.most} bytes on this platform (${bytes.why})`);
    }
    if (spec.type === 'duration' && value > MAX_DURATION_MS) {
      throw new CrawlerError('ERR_INVALID_OPTION', `--${spec.name} ${value / 1000} is too long: at most ${MAX_DURATION_MS / 1000} seconds, about 24 days (the longest a timer can wait)`);
    }
  }
}
