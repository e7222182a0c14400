/**
 * KeywordHunter's flags and its --help text (src/cli/keyword-hunter.ts
 * parses them and runs the search), grouped as crawler's are.
 */
import { KH_MAX_DEPTH, KH_MAX_KEYWORD, KH_USER_AGENT } from '../programs/keyword-settings.js';
import { defineFlags } from './args.js';
import { HTTP_FLAGS, INFO_FLAGS, MAX_CONCURRENCY, REPORT_FLAGS, WARC_FLAGS } from './common-flags.js';
import { formatOptions } from './help-format.js';
import { REQUISITE_FLAGS } from './requisite-flags.js';

/** KeywordHunter's flags: what its --help lists. */
export const KH_FLAGS = defineFlags([
  { name: 'delay', type: 'duration', arg: 'SECONDS', default: 0, group: 'politeness', help: 'least time between the starts of two requests to one host, for every host; a robots.txt Crawl-delay can make it longer' },
  // The spec's crawler stops at the page holding the keyword: fetching ahead
  // (--concurrency above 1) would request pages after it, so it is opt-in here.
  ...HTTP_FLAGS.map((f) =>
    f.name === 'concurrency'
      ? { ...f, default: 1, help: `requests in flight at once, each to another host (1 to ${MAX_CONCURRENCY}); above 1 fetches ahead, so pages after the one that holds the keyword may be requested` }
      : f,
  ),
  ...WARC_FLAGS,
  ...REQUISITE_FLAGS,
  ...REPORT_FLAGS,
  ...INFO_FLAGS,
]);

const NOTES = {
  output: 'The archive holds robots.txt and each redirect hop too; a CDXJ index goes beside it (crawl.warc.gz: crawl.cdxj).',
} as const;

/** KeywordHunter's --help, made when asked for (as crawler's is). */
export function keywordHunterHelp(): string {
  return `Usage: KeywordHunter [options] StartURL SearchKeyword [OutputDir]

Searches pages breadth first from StartURL (depth 1) to depth ${KH_MAX_DEPTH} for
SearchKeyword (case-sensitive, 1 to ${KH_MAX_KEYWORD} characters), following links of
the form a href="..." to any host, obeying each host's robots.txt (agent
${KH_USER_AGENT}) and its Crawl-delay. Pages answered 200 are saved in
OutputDir (created if missing) under the last segment of their path;
without OutputDir, no page is saved anywhere.

Output (stdout), one line per event, in the order they happen:
  PAGE:host=H;port=P;respath=R;status=S         a request (S=0: no answer)
  LINK:host=H;port=P;respath=R;action=A         A: follow, robots_ignore,
                                                already_seen_ignore
  FOUND_KEYWORD:host=H;port=P;respath=R;line=L  then it stops
  NOT_FOUND_KEYWORD:                            after the last page
Notes and errors go to stderr.

${formatOptions(KH_FLAGS, NOTES)}

Exit status: 0 the search ran (found or not); 1 bad arguments, or an OutputDir
unusable or in use by another run; 130 stopped by SIGINT/SIGTERM; 141 stopped
because stdout's reader went away (as SIGPIPE would).
`;
}
