/**
 * The breadth-first tree of the crawl as nested <details>: each page with
 * its depth, status and (crawler, a saved page) its ID, linked to its saved
 * file `pageDirectory/ID` by a path relative to the report. KeywordHunter's
 * pages have no ID and no link (its files are named after their paths), and
 * the legend above the tree says only what the tree of its program shows.
 * Cut past TREE_LIMIT pages, and past CHILD_LIMIT children of one page,
 * with a count. And
 * KeywordHunter's chain from StartURL to the page that held the keyword,
 * with the matching line.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { bareReason } from '../output/cs50-log.js';
import { MAX_CHILDREN, type PageNode, type ReportModel } from './report-model.js';
import { esc, int, statusClass } from './html-text.js';
import { renderMatchLine } from './render-match.js';

export const TREE_LIMIT = 2000;
/** Children shown per page (as many as the model keeps). */
export const CHILD_LIMIT = MAX_CHILDREN;
/** Levels shown open at first. */
const OPEN_LEVELS = 2;

/** The href of a saved page's file, relative to the report's directory (each segment percent-encoded). */
export function pageFileHref(reportFile: string, pageDir: string, id: number): string {
  const rel = relative(dirname(resolve(reportFile)), resolve(pageDir, String(id)));
  return rel.split(sep).map(encodeURIComponent).join('/');
}

function label(p: PageNode, model: ReportModel, file: string): string {
  // The last run's name for the directory: it was given in this process's working directory.
  const pageDir = model.runs[model.runs.length - 1]?.pageDir;
  const id = p.id !== undefined && pageDir !== undefined ? `<a class="id" href="${esc(pageFileHref(file, pageDir, p.id))}">#${p.id}</a> ` : '';
  const st = p.status === undefined ? (p.failed === undefined ? '<span class="st">queued</span>' : '') : `<span class="st ${statusClass(p.status)}">${p.status === 0 ? 'no answer' : p.status}</span>`;
  // A reason that only repeats the status beside it ("404 (HTTP 404)") is left out.
  const why = p.id === undefined ? bareReason(p.failed) : undefined;
  const failed = why === undefined || why === `HTTP ${p.status}` ? '' : ` <span class="why">(${esc(why)})</span>`;
  return `<span class="d">${p.depth}</span> ${id}<span class="url">${esc(p.url)}</span> ${st}${failed}`;
}

/** What each line of the tree shows, for the program whose report it is: nothing it does not show. */
function treeLegend(model: ReportModel): string {
  const open = 'Open a page to see the pages found on it.';
  if (model.run?.program === 'KeywordHunter') return `Each page requested, with its depth (StartURL is 1), its URL and its status. ${open}`;
  return `Each page, with its depth, its ID if it was saved (#1, #2...: a link to its file in the page directory), its URL, and its status or why it failed. ${open}`;
}

export function renderTree(model: ReportModel, file: string): string {
  let budget = TREE_LIMIT;
  let cutPages = 0;
  const seen = new Set<string>();
  const node = (p: PageNode, level: number): string => {
    seen.add(p.url);
    budget--;
    const kids = p.children.map((k) => model.pages.get(k)).filter((k): k is PageNode => k !== undefined && !seen.has(k.url));
    if (kids.length === 0 && p.more === 0) return `<li>${label(p, model, file)}</li>`;
    const items: string[] = [];
    let shown = 0;
    for (const k of kids) {
      if (budget <= 0 || shown >= CHILD_LIMIT) break;
      items.push(node(k, level + 1));
      shown++;
    }
    const rest = kids.length - shown;
    if (rest > 0) cutPages += rest;
    if (rest + p.more > 0) items.push(`<li class="more">… and ${int(rest + p.more)} more link${rest + p.more === 1 ? '' : 's'} followed from here</li>`);
    return `<li><details${level < OPEN_LEVELS ? ' open' : ''}><summary>${label(p, model, file)} <span class="n">${int(kids.length)} below</span></summary><ul>${items.join('')}</ul></details></li>`;
  };
  const roots = model.roots().sort((a, b) => a.depth - b.depth);
  const trees: string[] = [];
  for (const r of roots) {
    if (seen.has(r.url)) continue;
    if (budget <= 0) {
      cutPages++;
      continue;
    }
    trees.push(node(r, 0));
  }
  const note = cutPages > 0 ? `<p class="more">The tree is cut at ${int(TREE_LIMIT)} pages: ${int(cutPages)} branches are not shown.</p>` : '';
  return `<section id="tree"><h2>Breadth-first tree</h2><p class="note">${treeLegend(model)}</p><ul class="tree">${trees.join('')}</ul>${note}</section>`;
}

/** KeywordHunter: the chain of pages from StartURL to the one holding the keyword, and the line. */
export function renderChain(model: ReportModel): string {
  const run = model.run;
  if (run?.program !== 'KeywordHunter') return '';
  const m = model.match;
  if (m === undefined) return `<section id="chain"><h2>Keyword</h2><p>The keyword <code>${esc(run.keyword ?? '')}</code> was not found.</p></section>`;
  const chain = model.chainTo(m.url);
  const steps = chain.map((p) => `<li data-url="${esc(p.url)}"><span class="d">${p.depth}</span> <span class="url">${esc(p.url)}</span> <span class="st ${statusClass(p.status ?? 0)}">${p.status ?? ''}</span></li>`);
  return `<section id="chain"><h2>Keyword found</h2><p>The keyword <code>${esc(run.keyword ?? '')}</code> is on <span class="url">${esc(m.url)}</span> (depth ${m.depth}), reached by this chain of links:</p><ol class="chain">${steps.join('')}</ol><p>The line, the keyword marked:</p>${renderMatchLine(m.line, run.keyword ?? '')}</section>`;
}
