/**
 * --page-requisites and its flags, as the crawl is given them: the archive
 * they go into is needed; requisites come from any host unless
 * --requisites-on-crawl-hosts, and --exclude applies to them either way.
 */
import { DEFAULT_REQUISITES, type RequisiteSettings } from '../engine/requisites.js';
import { CrawlerError } from '../errors.js';
import type { CrawlScope } from '../url/scope.js';
import { defineFlags } from './args.js';

/** --page-requisites and its caps: both programs' (KeywordHunter's scope is every host, so it has no --requisites-on-crawl-hosts). */
export const REQUISITE_FLAGS = defineFlags([
  { name: 'page-requisites', type: 'boolean', group: 'output', help: 'with --warc or --wacz: also fetch what each saved page needs to be displayed (stylesheets, images, scripts, fonts, on any host) into the archive only; politely, each URL once' },
  { name: 'requisites-per-page', type: 'count', arg: 'N', default: DEFAULT_REQUISITES.maxPerPage, group: 'output', help: 'with --page-requisites: most requisites fetched for one page' },
  { name: 'requisite-bytes', type: 'size', arg: 'SIZE', default: '50MB', group: 'output', help: 'with --page-requisites: most bytes of requisites fetched for one page' },
]);

/** The crawler's flag that keeps requisites inside the crawl's scope. */
export const ON_CRAWL_HOSTS_FLAG = defineFlags([
  { name: 'requisites-on-crawl-hosts', type: 'boolean', group: 'output', help: 'with --page-requisites: only those inside the crawl\'s scope (default: any host, as pages use CDNs)' },
]);

/** The parsed flags this reads (KeywordHunter has no --requisites-on-crawl-hosts, nor a scope that leaves a host out). */
export interface RequisiteFlags {
  pageRequisites: boolean;
  requisitesOnCrawlHosts?: boolean;
  requisitesPerPage: number;
  requisiteBytes: number;
}

/** The requisites' settings, or undefined without --page-requisites; throws ERR_INVALID_OPTION naming the flag that is wrong. */
export function requisitesFrom(flags: RequisiteFlags, scope: CrawlScope | undefined, archiving: boolean): RequisiteSettings | undefined {
  const wrong = (message: string): CrawlerError => new CrawlerError('ERR_INVALID_OPTION', message);
  if (!flags.pageRequisites) {
    if (flags.requisitesOnCrawlHosts === true) throw wrong('--requisites-on-crawl-hosts goes with --page-requisites');
    return undefined;
  }
  if (!archiving) throw wrong('--page-requisites keeps what it fetches in the archive only: give --warc FILE or --wacz FILE too');
  if (flags.requisitesPerPage < 1) throw wrong('--requisites-per-page must be at least 1');
  const anyHost = flags.requisitesOnCrawlHosts !== true;
  return { ...DEFAULT_REQUISITES, maxPerPage: flags.requisitesPerPage, maxBytesPerPage: flags.requisiteBytes, outside: scope === undefined ? undefined : (url) => scope.leftOut(url, anyHost) };
}
