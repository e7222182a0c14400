/**
 * The report's refresh section (crawler --since): the pages saved, as
 * against the earlier crawl, unchanged (a 304: copied from the earlier
 * crawl), changed (sent again in full), new, and gone (saved then, not
 * now), and the bytes the server did not send again; then the changed and
 * the gone pages by URL. Absent from the report of a crawl that refreshed
 * nothing. Each figure carries a `data-figure` name, as in the summary.
 */
import type { PageNode, ReportModel } from './report-model.js';
import { bytes, cut, esc, int } from './html-text.js';
import { LIST_LIMIT } from './render-sections.js';
import { pageFileHref } from './render-tree.js';

function figure(name: string, label: string, value: number | undefined, text: string): string {
  return `<div class="fig"><div class="v" data-figure="${name}" data-value="${value ?? ''}">${text}</div><div class="k">${label}</div></div>`;
}

function urlList(id: string, urls: readonly string[], total: number, href?: (url: string) => string | undefined): string {
  const { shown } = cut(urls, LIST_LIMIT);
  const items = shown.map((u) => {
    const link = href?.(u);
    return `<li class="url" data-url="${esc(u)}">${link === undefined ? esc(u) : `<a href="${esc(link)}">${esc(u)}</a>`}</li>`;
  });
  const more = total > shown.length ? `<p class="more">… and ${int(total - shown.length)} more (${int(total)} in all)</p>` : '';
  return `<ul id="${id}">${items.join('')}</ul>${more}`;
}

export function renderRefresh(model: ReportModel, file: string): string {
  const since = model.run?.since;
  if (since === undefined) return '';
  const count = { new: 0, changed: 0, unchanged: 0 };
  let spared = 0;
  const changed: PageNode[] = [];
  for (const p of model.savedPages) {
    if (p.refresh === undefined) continue;
    count[p.refresh]++;
    if (p.refresh === 'unchanged') spared += p.spared ?? 0;
    else if (p.refresh === 'changed') changed.push(p);
  }
  const gone = model.gone;
  const pageDir = model.runs[model.runs.length - 1]?.pageDir;
  const byUrl = new Map(changed.map((p) => [p.url, p.id]));
  const href = (url: string): string | undefined => {
    const id = byUrl.get(url);
    return id === undefined || pageDir === undefined ? undefined : pageFileHref(file, pageDir, id);
  };
  const goneText = gone === undefined ? 'not known' : int(gone.count);
  return `<section id="refresh"><h2>Refresh of <span class="url">${esc(since)}</span></h2><p class="note">Each page the earlier crawl saved was asked for with its validators (If-None-Match, If-Modified-Since). A page the server said was unchanged (304) was copied from the earlier crawl; a changed one was sent again in full.</p>
<div class="figs">${figure('refresh-unchanged', 'unchanged (304)', count.unchanged, int(count.unchanged))}${figure('refresh-changed', 'changed', count.changed, int(count.changed))}${figure('refresh-new', 'new', count.new, int(count.new))}${figure('refresh-gone', 'gone (saved then, not now)', gone?.count, goneText)}${figure('refresh-spared', 'bytes not sent again', spared, bytes(spared))}</div>
<h3>Changed pages</h3>${changed.length === 0 ? '<p>None.</p>' : urlList('refresh-changed-pages', changed.map((p) => p.url), changed.length, href)}
<h3>Gone pages</h3>${gone === undefined ? '<p>Known once the refresh has run to its end.</p>' : gone.count === 0 ? '<p>None.</p>' : urlList('refresh-gone-pages', gone.listed, gone.count)}</section>`;
}
