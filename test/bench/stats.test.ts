/**
 * The bench's arithmetic (bench/stats.ts): medians, per-round pairing and
 * the page count that says whether a peer saved the whole site.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countPages, describeCount, median, medianPairedRatio, pairedDifferences, pairedRatios } from '../../bench/stats.js';

describe('median', () => {
  it('takes the middle of an odd list and the mean of the two middles of an even one', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });
  it('is NaN for no values and ignores values that are not finite', () => {
    assert.ok(Number.isNaN(median([])));
    assert.equal(median([NaN, 5, Infinity, 1, 3]), 3);
  });
  it('does not reorder its input', () => {
    const xs = [3, 1, 2];
    median(xs);
    assert.deepEqual(xs, [3, 1, 2]);
  });
});

describe('pairing by round', () => {
  it('divides round k of one list by round k of the other', () => {
    assert.deepEqual(pairedRatios([10, 20, 30], [5, 10, 10]), [2, 2, 3]);
  });
  it('skips a round that one side lacks or that cannot be divided', () => {
    assert.deepEqual(pairedRatios([10, NaN, 30, 8], [5, 10, 0]), [2]);
  });
  it('takes the median of the ratios, not the ratio of the medians', () => {
    // Load drifts: both tools run at half speed in round 2.
    const ours = [210, 100, 220];
    const peer = [100, 50, 110];
    assert.equal(medianPairedRatio(ours, peer), 2);
    assert.equal(median(ours) / median(peer), 2.1);
  });
  it('differences pair the same way', () => {
    assert.deepEqual(pairedDifferences([150, 160, NaN], [100, 120, 90]), [50, 40]);
  });
});

describe('countPages', () => {
  const expected = new Set(['/a.html', '/b.html', '/c.html', '/d.html']);
  it('counts a full set as complete', () => {
    const c = countPages(['/d.html', '/a.html', '/b.html', '/c.html'], expected);
    assert.deepEqual([c.pages, c.missing, c.extra, c.duplicates], [4, 0, 0, 0]);
    assert.equal(describeCount(c, 4), '4 / 4');
  });
  it('names the missing pages and the extra ones', () => {
    const c = countPages(['/a.html', '/x.html', '/b.html'], expected, 1);
    assert.deepEqual([c.pages, c.missing, c.extra], [2, 2, 1]);
    assert.deepEqual(c.missingExamples, ['/c.html']);
    assert.deepEqual(c.extraExamples, ['/x.html']);
    assert.equal(describeCount(c, 4), '2 / 4 (2 missing, 1 extra)');
  });
  it('counts a page saved twice once, and says so', () => {
    const c = countPages(['/a.html', '/a.html', '/b.html', '/c.html', '/d.html', '/x.html', '/x.html'], expected);
    assert.deepEqual([c.pages, c.missing, c.extra, c.duplicates], [4, 0, 1, 1]);
    assert.equal(describeCount(c, 4), '4 / 4 (1 extra, 1 saved twice)');
  });
});

describe('rssByMapping', () => {
  it('sums Rss by mapping name, nameless mappings as [anon]', async () => {
    const { rssByMapping } = await import('../../bench/rss-breakdown.js');
    const smaps = [
      '00400000-00500000 r-xp 00000000 fd:00 123 /usr/bin/node',
      'Size:               1024 kB',
      'Rss:                 800 kB',
      '00600000-00700000 r--p 00100000 fd:00 123 /usr/bin/node',
      'Rss:                 200 kB',
      '7f0000000000-7f0000100000 rw-p 00000000 00:00 0 ',
      'Rss:                 300 kB',
      '01000000-02000000 rw-p 00000000 00:00 0          [heap]',
      'Rss:                 50 kB',
    ].join('\n');
    assert.deepEqual([...rssByMapping(smaps)], [['/usr/bin/node', 1000], ['[anon]', 300], ['[heap]', 50]]);
  });
});
