/**
 * What counts as a server pushing back (spec decision "When the server
 * pushes back"): an answer of 429, 500, 502, 503 or 504, or a request lost
 * to a timeout or a reset. Such a try backs the host off (its interval
 * doubles per consecutive one) and, in `crawler`, is retried later.
 */
import type { ErrorCode } from '../errors.js';
import type { FetchOutcome } from './redirects.js';

/** Statuses that say "not now" or "struggling". */
export const PUSHBACK_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/** Failures that say the same without a status: timeouts and resets. */
export const PUSHBACK_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['ERR_CONNECT_TIMEOUT', 'ERR_IDLE_TIMEOUT', 'ERR_RESPONSE_TIMEOUT', 'ERR_SOCKET', 'ERR_PREMATURE_CLOSE']);

/** True when the outcome is the server pushing back. */
export function isPushback(outcome: FetchOutcome): boolean {
  return outcome.response !== undefined ? PUSHBACK_STATUSES.has(outcome.response.status) : PUSHBACK_ERRORS.has(outcome.error.code);
}
