/**
 * How many sockets the HTTP client may hold open at once: the process's
 * soft RLIMIT_NOFILE (its open-file limit, `ulimit -n`) less a margin for
 * the files and other descriptors the crawl needs besides its connections.
 * Past that budget, socket() or open() fails with EMFILE; the client keeps
 * under it and makes requests wait instead (connection-pool.ts).
 *
 * Node has no getrlimit: on Linux the limit is read from /proc/self/limits
 * (one small read at start, no child process); where that file does not
 * exist or cannot be read, FALLBACK_FILE_LIMIT is assumed.
 */
import { readFileSync } from 'node:fs';

/**
 * Descriptors kept for what is not an HTTP connection. A crawl with --warc,
 * --report and the page-file thread held 33 of them before its first socket
 * (measured in /proc/PID/fd): stdio (3), the event loops of the main thread
 * and of the page and record threads (epoll, eventfd and pipes: 23), the
 * state database with its WAL and shared memory (3), the WARC, the report
 * journal and the directory lock. Open beside them, some of the time: DNS
 * (c-ares keeps a UDP socket, and a TCP one for a truncated answer, per
 * name server, resolv.conf names up to 3; getaddrinfo's two threads one
 * each), a page file being written and a page staged ahead of its turn, the
 * next WARC file while the last one closes, the CDXJ index, the WACZ and
 * the report at the end, a shared crawl's database connection: some 20
 * more. 64 leaves room beyond that for what a later change adds.
 */
export const FILE_MARGIN = 64;

/**
 * The limit assumed where /proc/self/limits cannot be read: 256 is macOS's
 * default soft limit, the lowest common one (Linux distributions give 1024).
 */
export const FALLBACK_FILE_LIMIT = 256;

/**
 * The soft "Max open files" limit from the text of /proc/PID/limits:
 * Infinity for "unlimited", undefined when the line is not there.
 */
export function parseOpenFileLimit(limitsText: string): number | undefined {
  const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(limitsText);
  if (m === null) return undefined;
  return m[1] === 'unlimited' ? Infinity : Number(m[1]);
}

/** This process's soft open-file limit (see the module comment); FALLBACK_FILE_LIMIT when it cannot be read. */
export function openFileLimit(limitsFile = '/proc/self/limits'): number {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'latin1');
  } catch {
    return FALLBACK_FILE_LIMIT;
  }
  return parseOpenFileLimit(text) ?? FALLBACK_FILE_LIMIT;
}

/**
 * The most sockets to hold open at once under an open-file limit of
 * `fileLimit`: the limit less FILE_MARGIN, and at least 1 so that a crawl
 * under a tiny limit still goes on, one connection at a time.
 */
export function socketBudget(fileLimit: number = openFileLimit()): number {
  return Math.max(1, fileLimit - FILE_MARGIN);
}
