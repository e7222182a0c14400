/**
 * What a KeywordHunter search is run with: its settings, as the command
 * line (src/cli/keyword-hunter.ts) checks and builds them, and the spec's
 * constants.
 */
import type { RequisiteSettings } from '../engine/requisites.js';
import type { HttpUrl } from '../url/http-url.js';
import type { RunSettings } from './run-settings.js';

/** The User-Agent the spec requires, also the robots.txt agent. */
export const KH_USER_AGENT = 'ee122-KeywordHunter';
/** StartURL is depth 1; pages at depth 5 are searched but their links are not followed. */
export const KH_MAX_DEPTH = 5;
export const KH_MAX_KEYWORD = 100;

/** Everything a search is run with, checked by the command line. */
export interface KeywordHunterSettings extends RunSettings {
  start: HttpUrl;
  keyword: string;
  outputDir: string | undefined;
  /** --page-requisites (with --warc or --wacz): each saved page's requisites, into the archive only. */
  requisites?: RequisiteSettings | undefined;
}
