/**
 * The bench's end-of-run table (bench/report.ts) for the two crawl sizes,
 * and the crawl section's choice of crawlers (bench/crawl-bench.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crawlSection, type CrawlRun, type CrawlSection, type ToolResult } from '../../bench/crawl-bench.js';
import { formatResults, SMALL_TARGET, type Results } from '../../bench/report.js';
import type { Site } from '../../bench/site.js';

function tool(name: string, pagesPerSecond: number, cpu: number, pages = 2060): ToolResult {
  return {
    tool: name,
    command: name,
    available: true,
    runs: [{ round: 1 } as CrawlRun],
    pages,
    medianWallSeconds: pages / pagesPerSecond,
    pagesPerSecond,
    medianCpuSeconds: (cpu * pages) / 1e6,
    cpuMicrosPerPage: cpu,
    peakRssMiB: 70,
    ok: pages === 2060,
  };
}

function section(): CrawlSection {
  const ours = tool('ours', 2200, 520);
  const wget = tool('wget', 2000, 345);
  return {
    expectedPages: 2060,
    rounds: 5,
    filesystems: [
      {
        fs: 'tmpfs',
        dir: '/dev/shm/x',
        tools: [ours, wget, tool('wget2', 4000, 190, 2040)],
        ratios: [{ peer: 'wget', pagesPerSecondPaired: 1.12, pagesPerSecond: 1.1, cpuPerPage: 1.51, peakRss: 10 }],
        variantRatios: [],
      },
    ],
  };
}

const meta: Results['meta'] = { date: 'd', node: 'v20', cpus: 2, cpuModel: 'x', platform: 'linux x64', options: {}, cpuMethod: 'm', sections: ['small'], loadAverageAtStart: [0.1, 0, 0], git: 'abc' };

describe('the bench report', () => {
  it('prints the small crawl as its own table, with its paired ratio and the 1.2x target', () => {
    const text = formatResults({ meta, small: section(), problems: [] });
    assert.match(text, /small crawl, 2060 URLs, pages on tmpfs/);
    assert.match(text, /ours \/ wget\s+1\.12x \(1\.10x\)\s+1\.51x/);
    assert.match(text, /wget2\s+2040\/2060 .* incomplete/);
    assert.ok(text.includes(`ours / wget at least ${SMALL_TARGET}x on this crawl`), text);
    assert.doesNotMatch(text, /crawl, depth 6/, 'no big-crawl table when that section did not run');
  });

  it('prints the big crawl under its own title and no small-crawl target without the small section', () => {
    const text = formatResults({ meta, crawl: section(), problems: [] });
    assert.match(text, /crawl, depth 6, pages on tmpfs/);
    assert.doesNotMatch(text, /small crawl|at least 1\.2x/);
  });
});

describe('the crawl section', () => {
  it('refuses a choice of crawlers without ours, before running anything', async () => {
    const site = { seedUrl: 'http://127.0.0.1:9/index.html', maxDepth: 1, expected: new Set<string>(), origin: 'http://127.0.0.1:9' } as unknown as Site;
    await assert.rejects(crawlSection(site, [], process.cwd(), 1, () => {}, { only: ['wget'] }), /"ours" must be among the crawlers chosen/);
  });
});
