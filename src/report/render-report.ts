/**
 * The crawl report as one self-contained HTML file: inline CSS and SVG, no
 * script, nothing fetched (its Content-Security-Policy forbids any request
 * and any script, should a bug ever let one in). Marked as ours by its
 * generator meta tag (report-file.ts).
 */
import type { ReportModel } from './report-model.js';
import { GENERATOR_META } from './report-file.js';
import { esc } from './html-text.js';
import { renderSummary } from './render-summary.js';
import { renderTimeline } from './render-timeline.js';
import { renderDepths, renderRobots, renderSlowest, renderStatuses } from './render-sections.js';
import { renderChain, renderTree } from './render-tree.js';
import { renderRefresh } from './render-refresh.js';

export interface RenderOptions {
  /** The report's own path (links to saved pages are relative to it). */
  file: string;
  /** Epoch ms: the end of a run not ended. */
  now: number;
}

const CSS = `
:root{--fg:#1d2430;--mut:#5b6575;--line:#d9dee6;--bg:#fff;--s2:#2e9d57;--s3:#3b6fd1;--s4:#e08a1e;--s5:#d2343a;--s0:#7d8590}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:#f4f6f9}
header{background:#1d2430;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}header p{margin:2px 0 0;color:#c6ccd6}
main{padding:8px 24px 40px;max-width:1400px}section{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:12px 16px;margin:14px 0}
h2{font-size:16px;margin:0 0 8px}h3{font-size:14px;margin:4px 0}.note,.more{color:var(--mut);margin:4px 0}
.figs{display:flex;flex-wrap:wrap;gap:10px}.fig{border:1px solid var(--line);border-radius:6px;padding:8px 12px;min-width:120px}.fig .v{font-size:22px;font-weight:600}.fig .k{color:var(--mut);font-size:12px}
.skips{margin:8px 0;color:var(--mut)}dl.run{display:grid;grid-template-columns:90px 1fr;gap:2px 10px;margin:8px 0 0}dt{color:var(--mut)}dd{margin:0;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:4px 0}th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.url{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;overflow-wrap:anywhere}td.url{max-width:760px}
.st{font-weight:600}.s2{color:var(--s2)}.s3{color:var(--s3)}.s4{color:var(--s4)}.s5{color:var(--s5)}.s0{color:var(--s0)}.ok{color:var(--s2)}.bad{color:var(--s5);font-weight:700}
.cols{display:flex;flex-wrap:wrap;gap:24px}
svg.timeline{display:block;background:#fff;font-size:11px}svg .host{text-anchor:end;fill:var(--fg);font-family:ui-monospace,Menlo,monospace}svg .ax{text-anchor:middle;fill:var(--mut)}
svg .grid{stroke:#eef0f4}svg .base{stroke:#c9ced8}svg .resume{stroke:#7a4bd1;stroke-dasharray:4 3}svg .iv{fill:#9fb6df;opacity:.35}
svg .tick{stroke-width:2}svg .tick.s2{stroke:var(--s2)}svg .tick.s3{stroke:var(--s3)}svg .tick.s4{stroke:var(--s4)}svg .tick.s5{stroke:var(--s5)}svg .tick.s0{stroke:var(--s0)}
svg .bin.s2{fill:var(--s2)}svg .bin.s5{fill:var(--s5)}svg .pause{fill:url(#hatch);fill-opacity:.7;stroke:var(--s5);stroke-width:.8}svg .backoff{fill:#f0a020}
.legend .key{display:inline-block;width:12px;height:12px;margin:0 4px 0 10px;vertical-align:-2px;border-radius:2px}.key.s2{background:var(--s2)}.key.s3{background:var(--s3)}.key.s4{background:var(--s4)}.key.s5{background:var(--s5)}.key.s0{background:var(--s0)}
.key.kpause{background:repeating-linear-gradient(45deg,#f5c2c4 0 3px,#fff 3px 6px);border:1px solid var(--s5)}.key.kbackoff{background:#f0a020}.key.kiv{background:#9fb6df;opacity:.6}
table.chart td.bars{width:520px}.bar{display:inline-block;height:14px;vertical-align:middle}.bar.ok{background:var(--s2)}.bar.other{background:var(--s4)}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:18px}ul.tree{padding-left:0}ul.tree li{margin:1px 0}summary{cursor:pointer}
.d{display:inline-block;min-width:1.6em;color:var(--mut);text-align:right}.id{font-weight:600}.n{color:var(--mut);font-size:12px}.why{color:var(--s5)}
table.gaps{display:block}table.gaps thead,table.gaps tbody{display:flex;flex-direction:column}table.gaps tr{display:grid;grid-template-columns:minmax(16em,3fr) repeat(6,minmax(6.5em,1fr))}
table.gaps td:nth-child(n+2),table.gaps th:nth-child(n+2){text-align:right;font-variant-numeric:tabular-nums}table.gaps td:nth-child(5){color:var(--s2)}table.gaps tr[data-below] td:nth-child(5){color:var(--s5);font-weight:700}
#gap-sort-g:checked~table.gaps tbody tr{order:var(--g)}#gap-sort-r:checked~table.gaps tbody tr{order:var(--r)}#gap-sort-h:checked~table.gaps tbody tr{order:0}.gapsort label{margin-right:10px}
ol.chain li{margin:2px 0}pre.line{background:#f4f6f9;border:1px solid var(--line);padding:8px;white-space:pre-wrap;overflow-wrap:anywhere}pre.line mark{background:#ffe066;color:inherit;font-weight:bold}details.line summary{cursor:pointer;color:var(--mut)}
`;

/** The hatch pattern the timeline's pause bands use (an SVG of its own, so the timeline's markup stays per lane). */
const DEFS = '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fff"/><rect width="3" height="6" fill="#f5c2c4"/></pattern></defs></svg>';

export function renderReport(model: ReportModel, o: RenderOptions): string {
  const run = model.run;
  const title = run === undefined ? 'Crawl report' : run.program === 'KeywordHunter' ? `KeywordHunter report: ${run.keyword ?? ''}` : `crawler report: ${run.pageDir ?? ''}`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
${GENERATOR_META}
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body>${DEFS}<header><h1>${esc(title)}</h1><p>Did it crawl what was expected? Was it polite? What failed, and why?</p></header><main>
${renderSummary(model, o.now)}
${renderRefresh(model, o.file)}
${renderChain(model)}
${renderTimeline(model, o.now)}
${renderDepths(model)}
${renderStatuses(model)}
${renderSlowest(model)}
${renderRobots(model)}
${renderTree(model, o.file)}
</main></body></html>
`;
}
