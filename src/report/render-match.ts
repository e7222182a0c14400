/**
 * KeywordHunter's line in the report: the keyword marked, with some context
 * around it, so that a match on a minified page (one line of 14 KB) shows
 * where it is; the whole line follows, folded, cut at a bound that keeps the
 * report small. The protocol's FOUND_KEYWORD line on stdout is untouched.
 */
import { esc, int } from './html-text.js';

/** Characters of context shown before and after the keyword. */
export const MATCH_CONTEXT = 120;
/** The most characters of the whole line the report holds. */
export const LINE_LIMIT = 64 * 1024;

/** The line with `keyword` marked in its context, then the whole line folded when there is more of it. */
export function renderMatchLine(line: string, keyword: string): string {
  const at = keyword === '' ? -1 : line.indexOf(keyword);
  // Not found in the decoded text (a line that is not UTF-8 around it): the line as it is.
  if (at === -1) return `<pre class="line">${esc(line.length > LINE_LIMIT ? line.slice(0, LINE_LIMIT) : line)}</pre>`;
  const from = Math.max(0, at - MATCH_CONTEXT);
  const to = Math.min(line.length, at + keyword.length + MATCH_CONTEXT);
  const shown = `${from > 0 ? '…' : ''}${esc(line.slice(from, at))}<mark>${esc(keyword)}</mark>${esc(line.slice(at + keyword.length, to))}${to < line.length ? '…' : ''}`;
  const context = `<pre class="line" id="match">${shown}</pre>`;
  if (from === 0 && to === line.length) return context;
  const cut = line.length > LINE_LIMIT ? `, the first ${int(LINE_LIMIT)} shown` : '';
  return `${context}<details class="line"><summary>the whole line (${int(line.length)} characters${cut})</summary><pre class="line">${esc(line.slice(0, LINE_LIMIT))}</pre></details>`;
}
