/**
 * Flags both programs take (timeouts, caps, connections), with their
 * defaults in one place, and the client settings they give.
 */
import { CrawlerError } from '../errors.js';
import { defineFlags, type FlagValues } from './args.js';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../engine/polite-fetch.js';
import { DEFAULT_CLIENT_OPTIONS, type HttpClientOptions } from '../http/client.js';
import { DEFAULT_MAX_URL_LENGTH } from '../url/http-url.js';
import { packageInfo } from '../package-info.js';
import { DEFAULT_MAX_PATH_SEGMENTS } from '../url/limits.js';

/** Default of --concurrency: first requests in flight at once, to different hosts. */
export const DEFAULT_CONCURRENCY = 4;
/**
 * The most --concurrency accepts. Each request in flight holds a socket, and
 * a Linux process may open 1024 files by default (`ulimit -n`): past the
 * open-file limit requests wait for a socket anyway (socket-budget.ts).
 */
export const MAX_CONCURRENCY = 1000;

/** --help and --version, for both programs: each prints and exits (see versionText). */
export const INFO_FLAGS = defineFlags([
  { name: 'help', short: 'h', type: 'boolean', group: 'general', help: 'print this help and exit' },
  { name: 'version', type: 'boolean', group: 'general', help: 'print the program\'s name and version and exit' },
]);

/** What --version prints: `crawler 0.1.0`, the version from the package's package.json. */
export function versionText(program: string): string {
  return `${program} ${packageInfo().version}\n`;
}

/** How hard a crawl presses: requests at once, and the pauses it takes (Politeness in --help). */
export const PACE_FLAGS = defineFlags([
  { name: 'concurrency', type: 'count', arg: 'N', default: DEFAULT_CONCURRENCY, group: 'politeness', help: `requests in flight at once, each to another host (1 to ${MAX_CONCURRENCY}); every host keeps its delay, and the output is as with 1` },
  { name: 'connections-per-host', type: 'count', arg: 'N', default: 1, group: 'politeness', help: 'requests in flight at once to one host; above 1 needs --delay 0, and a host with a Crawl-delay gets 1' },
  { name: 'delay-factor', type: 'factor', arg: 'F', default: 0, group: 'politeness', help: 'make each host\'s delay at least F times its last response\'s duration, so a slow server is asked less often; 0 turns it off' },
  { name: 'max-retry-after', type: 'duration', arg: 'SECONDS', default: DEFAULT_MAX_RETRY_AFTER_MS / 1000, group: 'politeness', help: 'longest pause granted to a 429 or 503 with Retry-After; for a longer one the page fails' },
]);

/** What one request may take: redirects, link sizes, time, bytes (Limits in --help). */
export const REQUEST_LIMIT_FLAGS = defineFlags([
  { name: 'max-redirects', type: 'count', arg: 'N', default: 5, group: 'limits', help: 'follow at most N redirects from one link' },
  { name: 'max-url-length', type: 'count', arg: 'CHARS', default: DEFAULT_MAX_URL_LENGTH, group: 'limits', help: 'skip links longer than this' },
  { name: 'max-path-depth', type: 'count', arg: 'N', default: DEFAULT_MAX_PATH_SEGMENTS, group: 'limits', help: 'skip links with more path segments than this (a trap such as /a/a/a/...)' },
  { name: 'connect-timeout', type: 'duration', arg: 'SECONDS', default: DEFAULT_CLIENT_OPTIONS.connectTimeoutMs / 1000, group: 'limits', help: 'give up on a host not looked up and connected to (DNS, TCP, TLS) within this time' },
  { name: 'idle-timeout', type: 'duration', arg: 'SECONDS', default: DEFAULT_CLIENT_OPTIONS.idleTimeoutMs / 1000, group: 'limits', help: 'give up on a response when no byte of it arrives for this long' },
  { name: 'response-timeout', type: 'duration', arg: 'SECONDS', default: DEFAULT_CLIENT_OPTIONS.responseTimeoutMs / 1000, group: 'limits', help: 'give up on a response not complete this long after the request' },
  { name: 'max-header-bytes', type: 'count', arg: 'BYTES', default: DEFAULT_CLIENT_OPTIONS.limits.maxHeaderBytes, group: 'limits', help: 'give up on a response whose header section is larger' },
  { name: 'max-body-bytes', type: 'count', arg: 'BYTES', default: DEFAULT_CLIENT_OPTIONS.limits.maxBodyBytes, group: 'limits', help: 'give up on a response whose body is larger (with --compressed, also once decoded)' },
]);

/** How the client talks to servers (Connections in --help). */
export const CONNECTION_FLAGS = defineFlags([
  { name: 'compressed', type: 'boolean', group: 'connections', help: 'ask for pages compressed (gzip or br) and decode them before they are saved or searched; an archive keeps them as they came' },
  { name: 'max-idle-connections', type: 'count', arg: 'N', default: DEFAULT_CLIENT_OPTIONS.maxIdleConnections, group: 'connections', help: 'keep at most N unused connections open for their hosts\' next requests; the one unused longest is closed first' },
  { name: 'no-keep-alive', type: 'boolean', group: 'connections', help: 'open a new connection for every request (send "Connection: close")' },
  { name: 'insecure', type: 'boolean', group: 'connections', help: 'accept any TLS certificate (for test servers only)' },
]);

/** The flags of the HTTP client and the crawl's pace, which both programs take. */
export const HTTP_FLAGS = defineFlags([...PACE_FLAGS, ...REQUEST_LIMIT_FLAGS, ...CONNECTION_FLAGS]);

/** The crawl archive's flags (both programs). */
export const WARC_FLAGS = defineFlags([
  { name: 'warc', type: 'string', arg: 'FILE', group: 'output', help: 'keep every request and response, byte for byte, in the web archive FILE (WARC/1.1, gzipped if .gz); never overwrites a file not ours' },
  { name: 'warc-max-size', type: 'size', arg: 'SIZE', default: '1GB', group: 'output', help: 'with --warc: past this size, go on in FILE-00002.warc(.gz), -00003... (1GB, 500MB, 64KiB...)' },
  { name: 'wacz', type: 'string', arg: 'FILE', group: 'output', help: 'at the end, package archive, index and pages into FILE for ReplayWeb.page (WACZ 1.1); without --warc, the archive goes beside it' },
]);

/** The archive settings from parsed flags: undefined without --warc. */
export function archiveFrom(flags: { warc: string | undefined; warcMaxSize: number; wacz: string | undefined }): { path: string; maxSize: number; wacz?: string } | undefined {
  if (flags.warc === undefined && flags.wacz === undefined) return undefined;
  if (flags.warc === '') throw new CrawlerError('ERR_INVALID_OPTION', '--warc needs a file name');
  if (flags.wacz === '') throw new CrawlerError('ERR_INVALID_OPTION', '--wacz needs a file name');
  if (flags.warcMaxSize < 1) throw new CrawlerError('ERR_INVALID_OPTION', '--warc-max-size must be more than 0 bytes');
  // --wacz alone: the archive it packages goes beside it, gzipped per record as the package wants.
  const path = flags.warc ?? `${(flags.wacz as string).replace(/\.wacz$/i, '')}.warc.gz`;
  return flags.wacz === undefined ? { path, maxSize: flags.warcMaxSize } : { path, maxSize: flags.warcMaxSize, wacz: flags.wacz };
}

/** --report, for both programs. */
export const REPORT_FLAGS = defineFlags([
  { name: 'report', type: 'string', arg: 'FILE', group: 'output', help: 'when the crawl ends, also after SIGINT, write a report of it to FILE (.html), a page any browser opens' },
]);

/** The parsed values of HTTP_FLAGS (a program's own flags may come with them). */
export type HttpFlags = FlagValues<typeof HTTP_FLAGS>;

/** Client settings from parsed flags. */
export function clientOptionsFrom(flags: HttpFlags, userAgent: string): Partial<HttpClientOptions> & { userAgent: string } {
  return {
    userAgent,
    keepAlive: !flags.noKeepAlive,
    connectTimeoutMs: Math.round(flags.connectTimeoutMs),
    idleTimeoutMs: Math.round(flags.idleTimeoutMs),
    responseTimeoutMs: Math.round(flags.responseTimeoutMs),
    limits: { maxHeaderBytes: flags.maxHeaderBytes, maxBodyBytes: flags.maxBodyBytes },
    rejectUnauthorized: !flags.insecure,
    maxIdleConnections: flags.maxIdleConnections,
    compressed: flags.compressed,
  };
}

/** The crawl's concurrency settings from parsed flags (and the program's --delay); throws ERR_INVALID_OPTION for an impolite mix. */
export function concurrencyFrom(flags: Pick<HttpFlags, 'concurrency' | 'connectionsPerHost'> & { delayMs: number }): { concurrency: number; connectionsPerHost: number } {
  const { concurrency, connectionsPerHost } = flags;
  if (concurrency < 1) throw new CrawlerError('ERR_INVALID_OPTION', '--concurrency must be at least 1');
  if (concurrency > MAX_CONCURRENCY) throw new CrawlerError('ERR_INVALID_OPTION', `--concurrency must be at most ${MAX_CONCURRENCY}, got ${concurrency}`);
  if (connectionsPerHost < 1) throw new CrawlerError('ERR_INVALID_OPTION', '--connections-per-host must be at least 1');
  if (connectionsPerHost > 1 && flags.delayMs > 0) {
    throw new CrawlerError('ERR_INVALID_OPTION', '--connections-per-host above 1 is only allowed with --delay 0 (a second connection would break the delay)');
  }
  return { concurrency, connectionsPerHost };
}
