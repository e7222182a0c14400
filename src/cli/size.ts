/**
 * A size written for people: bytes (`1048576`), or a number with a unit,
 * decimal (`500K`, `100MB`, `1G`: powers of 1000, as disks count) or binary
 * (`64KiB`, `1GiB`: powers of 1024).
 */
import { CrawlerError } from '../errors.js';

const SIZE_RE = /^([0-9]+(?:\.[0-9]+)?)\s*(?:([KMGT])(i?)B?|B)?$/i;
const POWER: Record<string, number> = { K: 1, M: 2, G: 3, T: 4 };

/** Bytes from `text`; throws ERR_INVALID_OPTION naming `what` when it is no size. */
export function parseSize(text: string, what: string): number {
  const m = SIZE_RE.exec(text.trim());
  if (m === null) throw new CrawlerError('ERR_INVALID_OPTION', `${what} must be a size such as 1000000, 500K, 100MB, 1GB or 64KiB, got "${text}"`);
  const unit = m[2]?.toUpperCase();
  const base = m[3] === '' || m[3] === undefined ? 1000 : 1024;
  const bytes = Math.round(Number(m[1]) * (unit === undefined ? 1 : base ** (POWER[unit] as number)));
  if (!Number.isSafeInteger(bytes)) throw new CrawlerError('ERR_INVALID_OPTION', `${what} is too large: "${text}"`);
  return bytes;
}
