/**
 * KeywordHunter's output protocol, a consumer of crawl events: a `PAGE:`
 * line for every answer (status 0 when none came), a `LINK:` line for every
 * link and redirect target with the action the graders read, and notes on
 * stderr for what has no line (a link that is not an http(s) URL, a redirect
 * that cannot be followed, header lines skipped) and why a page has no
 * answer, a dead host's once. Each line is written as it happens, one write
 * per line.
 */
import type { CrawlerError } from '../errors.js';
import type { CrawlEvent, LinkAction } from '../engine/events.js';
import type { CliIo } from '../program-io.js';
import type { HttpUrl } from '../url/http-url.js';

/** The protocol's word for what became of a link. */
export const ACTION_NAMES: Readonly<Record<LinkAction, string>> = {
  follow: 'follow',
  robots: 'robots_ignore',
  duplicate: 'already_seen_ignore',
  external: 'follow', // KeywordHunter has no out-of-scope links
};

/**
 * host, port and respath as the protocol prints them. respath is the target
 * exactly as the request line carries it ("GET respath HTTP/1.1"):
 * characters that cannot go on the wire (space, controls, non-ASCII) are
 * percent-encoded, so no link can break a protocol line.
 */
export function protocolFields(url: HttpUrl): string {
  return `host=${url.host};port=${url.port};respath=${url.target}`;
}

export class KhProtocol {
  /** Host names whose lookup failure stderr has told: a dead host is told once, not once per link (spec decision "Errors name their cause first"). */
  private readonly unresolved = new Set<string>();

  constructor(private readonly io: CliIo) {}

  private line(text: string): void {
    this.io.stdout(text + '\n');
  }

  /** Consumes one crawl event. */
  consume(e: CrawlEvent): void {
    switch (e.type) {
      case 'response':
        this.line(`PAGE:${protocolFields(e.url)};status=${e.status}`);
        for (const note of e.notes ?? []) this.io.stderr(`KeywordHunter: ${e.url.href}: ${note}\n`);
        break;
      case 'redirect':
        if (e.target === undefined || e.action === 'invalid') this.io.stderr(`KeywordHunter: not following redirect to ${e.raw}: ${e.error?.message ?? 'not an http(s) URL'}\n`);
        else this.line(`LINK:${protocolFields(e.target)};action=${ACTION_NAMES[e.action]}`);
        break;
      case 'link':
        // Schemes other than http and https produce no LINK line (spec decision).
        if (e.url === undefined || e.action === 'invalid') {
          if (e.error !== undefined && e.error.code !== 'ERR_UNSUPPORTED_SCHEME') this.io.stderr(`KeywordHunter: skipping link "${e.raw}": ${e.error.message}\n`);
        } else {
          this.line(`LINK:${protocolFields(e.url)};action=${ACTION_NAMES[e.action]}`);
        }
        break;
      case 'match':
        this.found(e.url, e.line);
        break;
      default:
        break;
    }
  }

  /**
   * Why a page has no answer (its `PAGE:` line, status 0, came with the
   * response event), on stderr: the cause in words. A host whose name did
   * not resolve is told once, at its first page; its other pages fail alike
   * without another line.
   */
  failed(url: HttpUrl, error: CrawlerError): void {
    if (error.code !== 'ERR_DNS') {
      this.io.stderr(`KeywordHunter: ${url.href}: ${error.message}\n`);
      return;
    }
    if (this.unresolved.has(url.hostname)) return;
    this.unresolved.add(url.hostname);
    this.io.stderr(`KeywordHunter: ${url.href}: ${error.message} (told once for ${url.hostname})\n`);
  }

  /** The page holding the keyword, and the line (as sent, without its line end). */
  private found(url: HttpUrl, line: Buffer): void {
    this.io.stdout(Buffer.concat([Buffer.from(`FOUND_KEYWORD:${protocolFields(url)};line=`, 'utf8'), line, Buffer.from('\n')]));
  }

  /** After the last page, when the keyword was not found. */
  notFound(): void {
    this.line('NOT_FOUND_KEYWORD:');
  }
}
