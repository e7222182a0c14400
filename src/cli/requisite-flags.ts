/**
 * --page-requisites and its flags, as the crawl is given them: the archive
 * they go into is needed; requisites come from any host unless
 * --requisites-on-crawl-hosts, and --exclude applies to them either way.
 */
import { DEFAULT_REQUISITES, type RequisiteSettings } from '../engine/requisites.js';
import { CrawlerError } from '../errors.js';
import type { CrawlScope } from '../url/scope.js';

/** The parsed flags this reads. */
export interface RequisiteFlags {
  pageRequisites: boolean;
  requisitesOnCrawlHosts: boolean;
  requisitesPerPage: number;
  requisiteBytes: number;
}

/** The requisites' settings, or undefined without --page-requisites; throws ERR_INVALID_OPTION naming the flag that is wrong. */
export function requisitesFrom(flags: RequisiteFlags, scope: CrawlScope, archiving: boolean): RequisiteSettings | undefined {
  const wrong = (message: string): CrawlerError => new CrawlerError('ERR_INVALID_OPTION', message);
  if (!flags.pageRequisites) {
    if (flags.requisitesOnCrawlHosts) throw wrong('--requisites-on-crawl-hosts goes with --page-requisites');
    return undefined;
  }
  if (!archiving) throw wrong('--page-requisites keeps what it fetches in the archive only: give --warc FILE or --wacz FILE too');
  if (flags.requisitesPerPage < 1) throw wrong('--requisites-per-page must be at least 1');
  const anyHost = !flags.requisitesOnCrawlHosts;
  return { ...DEFAULT_REQUISITES, maxPerPage: flags.requisitesPerPage, maxBytesPerPage: flags.requisiteBytes, outside: (url) => scope.leftOut(url, anyHost) };
}
