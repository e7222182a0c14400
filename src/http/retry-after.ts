/**
 * Retry-After (RFC 9110 §10.2.3): how long a server asks us to wait, as
 * delta-seconds or as an HTTP-date (§5.6.7) in any of its three forms:
 * IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
 * (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
 * A date is read against the response's own `Date` header when it has one,
 * so a server whose clock runs ahead of ours still gets the pause it meant.
 */
import { headerValue, type Field } from './header-lines.js';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAY = '(?:mon|tue|wed|thu|fri|sat|sun)';
const LONG_DAY = '(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const IMF = new RegExp(`^${DAY}, (\\d{2}) ([a-z]{3}) (\\d{4}) ${TIME} gmt$`, 'i');
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-([a-z]{3})-(\\d{2}) ${TIME} gmt$`, 'i');
const ASCTIME = new RegExp(`^${DAY} ([a-z]{3}) ([ \\d]\\d) ${TIME} (\\d{4})$`, 'i');

function utc(year: number, month: string, day: number, h: string, m: string, s: string): number | undefined {
  const mon = MONTHS.indexOf(month.toLowerCase());
  const hh = Number(h);
  const mm = Number(m);
  const ss = Number(s);
  if (mon === -1 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60) return undefined;
  const t = Date.UTC(year, mon, day, hh, mm, Math.min(ss, 59));
  // Date.UTC rolls 31 Feb over into March: such a date is no date.
  return new Date(t).getUTCDate() === day ? t : undefined;
}

/** An HTTP-date in any of its three forms, as ms since the epoch; undefined when it is none of them. */
export function parseHttpDate(text: string): number | undefined {
  const v = text.trim();
  let m = IMF.exec(v);
  if (m !== null) return utc(Number(m[3]), m[2] as string, Number(m[1]), m[4] as string, m[5] as string, m[6] as string);
  m = RFC850.exec(v);
  if (m !== null) {
    // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
    const yy = Number(m[3]);
    const now = new Date().getUTCFullYear();
    let year = Math.floor(now / 100) * 100 + yy;
    if (year > now + 50) year -= 100;
    return utc(year, m[2] as string, Number(m[1]), m[4] as string, m[5] as string, m[6] as string);
  }
  m = ASCTIME.exec(v);
  if (m !== null) return utc(Number(m[6]), m[1] as string, Number((m[2] as string).trim()), m[3] as string, m[4] as string, m[5] as string);
  return undefined;
}

/**
 * The wait a Retry-After value asks for, in ms (0 for a date in the past),
 * or undefined when the value is neither delta-seconds nor an HTTP-date.
 * `date` is the response's Date header (the server's now), `nowMs` ours.
 */
export function retryAfterMs(value: string, date: string | undefined, nowMs: number): number | undefined {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v), 2 ** 31 / 1000) * 1000;
  const at = parseHttpDate(v);
  if (at === undefined) return undefined;
  const serverNow = date === undefined ? undefined : parseHttpDate(date);
  return Math.max(0, at - (serverNow ?? nowMs));
}

/** A pause a response asks for: Retry-After as sent, and its wait in ms (undefined when it is neither form). */
export interface RetryAfter {
  value: string;
  ms: number | undefined;
}

/**
 * The Retry-After a 429 or 503 response carries (spec decision "When the
 * server pushes back": the statuses whose Retry-After pauses a host), read
 * against its own Date; undefined for any other status or without one.
 */
export function responseRetryAfter(response: { status: number; headers: readonly Field[] }, nowMs: number = Date.now()): RetryAfter | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  const value = headerValue(response.headers, 'retry-after');
  return value === undefined ? undefined : { value, ms: retryAfterMs(value, headerValue(response.headers, 'date'), nowMs) };
}
