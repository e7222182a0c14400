/**
 * Flags both programs take (timeouts, caps, connections), with their
 * defaults in one place, and the client settings they give.
 */
import { CrawlerError } from '../errors.js';
import { defineFlags, type FlagValues } from './args.js';
import { DEFAULT_MAX_RETRY_AFTER_MS } from '../engine/polite-fetch.js';
import { DEFAULT_CLIENT_OPTIONS, type HttpClientOptions } from '../http/client.js';
import { DEFAULT_MAX_URL_LENGTH } from '../url/http-url.js';
import { DEFAULT_MAX_PATH_SEGMENTS } from '../url/limits.js';

/** Default of --concurrency: first requests in flight at once, to different hosts. */
export const DEFAULT_CONCURRENCY = 4;

export const HTTP_FLAGS = defineFlags([
  { name: 'concurrency', type: 'count', arg: 'N', default: DEFAULT_CONCURRENCY, help: 'requests in flight at once to different hosts (each host keeps its delay; output order is unchanged)' },
  { name: 'connections-per-host', type: 'count', arg: 'N', default: 1, help: 'requests in flight to one host; above 1 only with --delay 0, and never to a host with a Crawl-delay' },
  { name: 'connect-timeout', type: 'duration', arg: 'SECONDS', default: DEFAULT_CLIENT_OPTIONS.connectTimeoutMs / 1000, help: 'give up connecting (DNS, TCP, TLS) after this long' },
  { name: 'idle-timeout', type: 'duration', arg: 'SECONDS', default: DEFAULT_CLIENT_OPTIONS.idleTimeoutMs / 1000, help: 'give up on a response when no byte arrives for this long' },
  { name: 'response-timeout', type: 'duration', arg: 'SECONDS', default: DEFAULT_CLIENT_OPTIONS.responseTimeoutMs / 1000, help: 'give up on a response not complete this long after the request' },
  { name: 'max-header-bytes', type: 'count', arg: 'BYTES', default: DEFAULT_CLIENT_OPTIONS.limits.maxHeaderBytes, help: 'largest response header section accepted' },
  { name: 'max-body-bytes', type: 'count', arg: 'BYTES', default: DEFAULT_CLIENT_OPTIONS.limits.maxBodyBytes, help: 'largest response body accepted' },
  { name: 'max-redirects', type: 'count', arg: 'N', default: 5, help: 'most redirect hops followed from one link' },
  { name: 'max-url-length', type: 'count', arg: 'CHARS', default: DEFAULT_MAX_URL_LENGTH, help: 'longer links are skipped' },
  { name: 'max-path-depth', type: 'count', arg: 'N', default: DEFAULT_MAX_PATH_SEGMENTS, help: 'links with more path segments are skipped (crawler traps)' },
  { name: 'delay-factor', type: 'factor', arg: 'F', default: 0, help: 'each host\'s interval is at least F times its last response\'s duration (0: off)' },
  { name: 'max-retry-after', type: 'duration', arg: 'SECONDS', default: DEFAULT_MAX_RETRY_AFTER_MS / 1000, help: 'longest pause granted to a server\'s Retry-After (429, 503); a longer one is not waited for' },
  { name: 'no-keep-alive', type: 'boolean', help: 'send "Connection: close" and open a connection per request' },
  { name: 'insecure', type: 'boolean', help: 'do not verify TLS certificates (test servers only)' },
  { name: 'compressed', type: 'boolean', help: 'ask for gzip or br bodies; decode them within --max-body-bytes' },
]);

/** The crawl archive's flags (both programs). */
export const WARC_FLAGS = defineFlags([
  { name: 'warc', type: 'string', arg: 'FILE', help: 'write every request and response to a WARC/1.1 archive (FILE.gz: one gzip member per record); a file that is not an archive of ours is never overwritten' },
  { name: 'warc-max-size', type: 'size', arg: 'SIZE', default: '1GB', help: 'with --warc: go on in FILE-00002.warc(.gz) and so on past this size (1GB, 500MB, 64KiB...)' },
  { name: 'wacz', type: 'string', arg: 'FILE', help: 'at the end, package the archive, its CDXJ index and the page list into FILE (WACZ 1.1: opens in ReplayWeb.page); without --warc the archive is FILE with .warc.gz for .wacz' },
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
  { name: 'report', type: 'string', arg: 'FILE', help: 'write a self-contained HTML report of the crawl to FILE (a name ending in .html) when it ends, also after SIGINT; an existing FILE is replaced only when it is a report of ours' },
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
    compressed: flags.compressed,
  };
}

/** The crawl's concurrency settings from parsed flags (and the program's --delay); throws ERR_INVALID_OPTION for an impolite mix. */
export function concurrencyFrom(flags: Pick<HttpFlags, 'concurrency' | 'connectionsPerHost'> & { delayMs: number }): { concurrency: number; connectionsPerHost: number } {
  const { concurrency, connectionsPerHost } = flags;
  if (concurrency < 1) throw new CrawlerError('ERR_INVALID_OPTION', '--concurrency must be at least 1');
  if (connectionsPerHost < 1) throw new CrawlerError('ERR_INVALID_OPTION', '--connections-per-host must be at least 1');
  if (connectionsPerHost > 1 && flags.delayMs > 0) {
    throw new CrawlerError('ERR_INVALID_OPTION', '--connections-per-host above 1 is only allowed with --delay 0 (a second connection would break the delay)');
  }
  return { concurrency, connectionsPerHost };
}
