/**
 * The TSE crawler's consumer of crawl events, for the private crawl and a
 * worker of a shared one alike: the CS50 (or JSON) log on stdout, people's
 * notes on stderr, and the seed PANIC, which replaces what would have been
 * the seed's `Failed` line (with several seeds, only when none of them can be
 * crawled: see SeedPanic). Its words are in output/cs50-words.ts and the
 * pages' reasons in the policy (tse.ts), once.
 */
import type { CrawlerError } from '../errors.js';
import type { CrawlEvent, CrawlEventSink, SitemapDropped } from '../engine/events.js';
import type { CliIo } from '../program-io.js';
import type { CrawlLog } from '../output/cs50-log.js';
import { robotsUrlOf } from '../frontier/claim-store.js';
import type { HttpUrl } from '../url/http-url.js';
import { encodeTarget } from '../url/request-target.js';
import type { ScopeReason } from '../url/scope.js';
import { LINK_WORDS, linkLeftOut, redirectRefusal, UNCHANGED_WORD } from '../output/cs50-words.js';
import { parsed, type SeedPanic } from './seed-panic.js';
import { count } from '../plural.js';

export interface TseLogOptions {
  io: CliIo;
  log: CrawlLog;
  seedPanic: SeedPanic;
  /** True while no page of the crawl is saved (a failure of the seed is then a PANIC). */
  nothingSaved: () => boolean;
  /** --delay in ms: a robots.txt Crawl-delay above it is said once a host (it makes the crawl of that host slower). */
  delayMs?: number | undefined;
  /** Why a URL is outside the scope (CrawlScope.leftOut): --json's reason for a link left out. */
  leftOut?: ((url: HttpUrl) => ScopeReason | undefined) | undefined;
}

/** The sink of a TSE run's events. */
export function tseEventLog({ io, log, seedPanic, nothingSaved, delayMs, leftOut }: TseLogOptions): CrawlEventSink {
  /**
   * Hosts whose robots.txt means "disallow all" (its status, 0 when not
   * fetched), not yet told: the note is told once a host, when a page past
   * the seeds is left out by it (spec decision "One crawl, whatever runs
   * it"). A seed left out is told by the PANIC, which names the cause.
   */
  const disallowAll = new Map<string, number>();
  const tellDisallowAll = (origin: string | undefined): void => {
    const status = origin === undefined ? undefined : disallowAll.get(origin);
    if (origin === undefined || status === undefined) return;
    disallowAll.delete(origin);
    const note = seedPanic.robotsNote(robotsUrlOf(origin), status);
    if (note !== undefined) io.stderr(`crawler: ${note}\n`);
  };
  const said = new Set<string>();
  const failed = (url: string, depth: number, reason: string, error?: CrawlerError): void => {
    if (!seedPanic.failed(depth, nothingSaved(), reason, error, url)) log.event(depth, 'Failed', url, reason);
  };
  return (e: CrawlEvent): void => {
    switch (e.type) {
      case 'response':
        for (const note of e.notes ?? []) io.stderr(`crawler: ${e.url.key}: ${note}\n`);
        break;
      case 'saved':
        log.event(e.depth, 'Fetched', e.url.key);
        // A refresh's extra line: every saved page keeps its Fetched line, so a reader of CS50 logs reads on.
        if (e.refresh?.state === 'unchanged') log.event(e.depth, UNCHANGED_WORD, e.url.key);
        break;
      case 'scanning':
        log.event(e.depth, 'Scanning', e.url.key);
        break;
      case 'link': {
        // An unusable link is shown as written, but encoded like a request
        // target: no space, control character or line break reaches the log.
        const shown = e.url?.key ?? encodeTarget(e.raw);
        log.event(e.depth, 'Found', shown);
        log.event(e.depth, e.action === 'invalid' ? LINK_WORDS.external : LINK_WORDS[e.action], shown, undefined, linkLeftOut(e.action, e.url, e.error, leftOut));
        if (e.action === 'robots') tellDisallowAll(e.url?.origin);
        break;
      }
      case 'redirect': {
        if (e.action === 'follow') break; // fetched next, or queued at the same depth
        const target = e.target?.key ?? encodeTarget(e.raw);
        const why = redirectRefusal(e.action, e.error);
        // The seed (the only page at depth 0) not fetched because of where it redirects: nothing to crawl.
        if (!(e.depth === 0 && nothingSaved() && seedPanic.redirected(e.from, target, why))) log.event(e.depth, 'Failed', e.from.key, `(redirects to ${target}: ${why})`);
        if (e.action === 'robots' && e.depth > 0) tellDisallowAll(e.target?.origin);
        break;
      }
      case 'failed':
        failed(e.url, e.depth, e.reason, e.error);
        break;
      case 'disallowed':
        // The seed (or a redirect target at depth 0): a PANIC that says why robots.txt disallows it (its rules, or its failure).
        if (!(e.depth === 0 && nothingSaved() && seedPanic.disallowed(e.url))) log.event(e.depth, 'Failed', e.url, '(disallowed by robots.txt)');
        if (e.depth > 0) tellDisallowAll(parsed(e.url)?.origin);
        break;
      case 'sitemap':
        for (const note of e.notes) io.stderr(`crawler: ${note}\n`);
        if (e.url !== undefined && e.outcome !== 'not-requested') io.stderr(`crawler: sitemap ${e.url.key}: ${count(e.found, 'URL')} listed, ${e.queued} queued${droppedWords(e.dropped)}\n`);
        break;
      case 'requisite':
        // --page-requisites: kept in the archive only; --json says what became of each, the CS50 log nothing.
        log.jsonOnly('Requisite', { depth: e.depth, url: e.url.key, page: e.page.key, outcome: e.outcome, status: e.status, bytes: e.bytes, sparedBytes: e.sparedBytes, reason: e.reason });
        break;
      case 'lost':
        io.stderr(`crawler: the lease on ${e.url} ran out before it was done; another worker has taken it over (--lease)\n`);
        break;
      case 'robots': {
        if (said.has(e.origin)) break;
        said.add(e.origin);
        // A Crawl-delay that slows the host down, as wget and Heritrix log it: once a host.
        if (delayMs !== undefined && e.crawlDelay !== undefined && e.crawlDelay * 1000 > delayMs) {
          io.stderr(`crawler: ${e.origin}: Crawl-delay ${e.crawlDelay} s from robots.txt, above --delay ${delayMs / 1000}\n`);
        }
        // Rules that disallow all (robots.txt 5xx, or the host not reached), however this process learnt them.
        if (e.source === 'disallow-all') disallowAll.set(e.origin, e.status ?? 0);
        break;
      }
    }
  };
}

/** A sitemap's URLs not queued, in words after its counts: "; 2 out of scope, 1 disallowed by robots.txt, 3 already known" ('' for none). */
function droppedWords(d: SitemapDropped | undefined): string {
  if (d === undefined) return '';
  const parts = [d.outside > 0 ? `${d.outside} out of scope` : '', d.disallowed > 0 ? `${d.disallowed} disallowed by robots.txt` : '', d.known > 0 ? `${d.known} already known` : ''].filter((p) => p !== '');
  return parts.length === 0 ? '' : `; ${parts.join(', ')}`;
}
