/**
 * The bench's end-of-run table (bench/report.ts) for the two crawl sizes,
 * and the crawl section's choice of crawlers (bench/crawl-bench.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crawlSection, peerRatios, type CrawlRun, type CrawlSection, type ToolResult } from '../../bench/crawl-bench.js';
import { ARCHIVE_VARIANT } from '../../bench/peers.js';
import { ARCHIVE_TARGET, formatResults, SMALL_TARGET, type Results } from '../../bench/report.js';
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

describe('the archive rows (issue 31)', () => {
  // ours, its archive variant, wget, and wget --warc measured against that variant.
  const peers = [{}, {}, {}, { against: ARCHIVE_VARIANT }];
  const tools = (archive: number): ToolResult[] => [tool('ours', 2000, 500), tool(ARCHIVE_VARIANT, archive, 700), tool('wget', 1000, 400), tool('wget --warc', 800, 600)];

  it('pairs wget --warc with ours --warc .gz, not with ours, and ours with plain wget', () => {
    const ratios = peerRatios(peers, tools(1600));
    assert.deepEqual(ratios.map((r) => [r.ours ?? 'ours', r.peer, r.pagesPerSecond]), [['ours', 'wget', 2], [ARCHIVE_VARIANT, 'wget --warc', 2]]);
    const skipped = tools(1600);
    skipped[1] = { ...(skipped[1] as ToolResult), available: false };
    assert.deepEqual(peerRatios(peers, skipped).map((r) => r.peer), ['wget'], 'no archive row when our archive variant did not run');
  });

  it('prints the row with the 1.5x target beside it, met or not, and the target under the table', () => {
    for (const [archive, verdict] of [[1600, 'met'], [1000, 'not met']] as const) {
      const t = tools(archive);
      const ratios = peerRatios(peers, t).map((r) => ({ ...r, pagesPerSecondPaired: r.pagesPerSecond }));
      const text = formatResults({ meta, crawl: { expectedPages: 2060, rounds: 1, filesystems: [{ fs: 'disk', dir: '/d', tools: t, ratios, variantRatios: [] }] }, problems: [] });
      assert.match(text, new RegExp(`ours --warc \\.gz / wget --warc\\s+${(archive / 800).toFixed(2)}x .*target ${ARCHIVE_TARGET}x: ${verdict}\\n`));
      assert.ok(text.includes(`target (issue 31): ${ARCHIVE_VARIANT} / wget --warc at least ${ARCHIVE_TARGET}x pages/s`), text);
    }
  });
});

describe('the crawl section', () => {
  it('refuses a choice of crawlers without ours, before running anything', async () => {
    const site = { seedUrl: 'http://127.0.0.1:9/index.html', maxDepth: 1, expected: new Set<string>(), origin: 'http://127.0.0.1:9' } as unknown as Site;
    await assert.rejects(crawlSection(site, [], process.cwd(), 1, () => {}, { only: ['wget'] }), /"ours" must be among the crawlers chosen/);
  });
});
