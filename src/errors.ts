/**
 * One error hierarchy for the whole crawler. Every error a module throws on
 * purpose is a CrawlerError with a stable `code`; the command-line front ends
 * map codes to exit status and print `message` as one line, never a stack.
 */

/** Stable error codes. Never renumber or reuse one: scripts may match on them. */
export type ErrorCode =
  // command line and configuration
  | 'ERR_USAGE'
  | 'ERR_INVALID_OPTION'
  // URLs
  | 'ERR_INVALID_URL'
  | 'ERR_UNSUPPORTED_SCHEME'
  | 'ERR_URL_TOO_LONG'
  | 'ERR_INVALID_PORT'
  | 'ERR_INVALID_HOST'
  // network and HTTP
  | 'ERR_DNS'
  | 'ERR_CONNECT'
  | 'ERR_CONNECT_TIMEOUT'
  | 'ERR_IDLE_TIMEOUT'
  | 'ERR_RESPONSE_TIMEOUT'
  | 'ERR_SOCKET'
  | 'ERR_TLS'
  | 'ERR_HEADERS_OVERFLOW'
  | 'ERR_BODY_OVERFLOW'
  | 'ERR_BAD_RESPONSE'
  | 'ERR_PREMATURE_CLOSE'
  | 'ERR_REDIRECT_LIMIT'
  | 'ERR_HOST_REFUSED'
  | 'ERR_ABORTED'
  | 'ERR_DISALLOWED'
  // storage
  | 'ERR_PAGE_DIRECTORY'
  | 'ERR_OUTPUT_DIRECTORY'
  | 'ERR_WRITE'
  | 'ERR_STATE'
  /** crawler --since: the earlier crawl cannot be used, or a page's earlier copy cannot be read. */
  | 'ERR_EARLIER_CRAWL'
  // the crawl itself
  | 'ERR_SEED';

export interface CrawlerErrorOptions {
  /** The URL the failure concerns, when there is one. */
  url?: string;
  /** The lower-level error, kept for debugging (never printed to users). */
  cause?: unknown;
  /** A line of our own printed after the message (e.g. the usage line); never network text. */
  hint?: string;
}

/** Base class of every deliberate failure. `code` is stable; `message` is one line. */
export class CrawlerError extends Error {
  override readonly name = 'CrawlerError';
  readonly code: ErrorCode;
  readonly url: string | undefined;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: CrawlerErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.url = options.url;
    this.hint = options.hint;
  }
}

/** True when `err` is a CrawlerError (optionally with one of `codes`). */
export function isCrawlerError(err: unknown, ...codes: ErrorCode[]): err is CrawlerError {
  return err instanceof CrawlerError && (codes.length === 0 || codes.includes(err.code));
}

/** A one-line description of any thrown value, for logs (no stack trace). */
export function describeError(err: unknown): string {
  if (err instanceof CrawlerError) return err.message;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    const first = err.message.split('\n')[0] ?? String(err);
    // Node's system errors already begin with their code ("ENOSPC: no space left on device, write").
    return code && !first.startsWith(`${code}:`) ? `${code}: ${first}` : first;
  }
  return String(err);
}

/** A system error as its code and description, without the call and paths node appends ("EISDIR: illegal operation on a directory"). */
function systemWords(err: unknown): string {
  const text = describeError(err);
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !text.startsWith(`${code}: `)) return text;
  const comma = text.indexOf(', ');
  return comma === -1 ? text : text.slice(0, comma);
}

/** What a failed write's system (or SQLite) code means, in words, cause first. */
const WRITE_CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'the disk is full',
  SQLITE_FULL: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  SQLITE_READONLY: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EIO: 'the disk reported an input/output error',
  SQLITE_IOERR: 'the disk reported an input/output error',
  EMFILE: 'too many files are open',
  ENFILE: 'too many files are open',
};

/** What a file's system error means, in a user's words: "no such file", "permission denied" (never an errno name alone). */
const FILE_CAUSES: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  ENOTDIR: 'a part of the path is not a directory',
  EISDIR: 'it is a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  ...WRITE_CAUSES,
};

/** A file system error in words (FILE_CAUSES), else its code and description without node's call and paths. */
export function fileErrorWords(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return (typeof code === 'string' ? FILE_CAUSES[code] : undefined) ?? systemWords(err);
}

/**
 * A write that failed, as one line that names its cause first: "the disk
 * is full: cannot write DIR/4 (ENOSPC)". A failure without a known cause
 * says what could not be written, then the error.
 */
export function writeError(code: 'ERR_WRITE' | 'ERR_STATE', what: string, err: unknown): CrawlerError {
  const sys = (err as { code?: unknown } | undefined)?.code;
  const known = typeof sys === 'string' ? (WRITE_CAUSES[sys] ?? (sys.startsWith('SQLITE_IOERR') ? WRITE_CAUSES['SQLITE_IOERR'] : undefined)) : undefined;
  const message = known !== undefined ? `${known}: cannot write ${what} (${sys as string})` : `cannot write ${what}: ${systemWords(err)}`;
  return new CrawlerError(code, message, { cause: err });
}
