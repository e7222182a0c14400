/** The package entry (package.json "main") loads and exports the engine's parts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as api from '../src/index.js';

test('the public API exports the engine, both extractors, stores and sinks', () => {
  for (const name of ['Crawl', 'HttpClient', 'ResponseParser', 'RobotsRules', 'RobotsPolicy', 'HtmlLinkExtractor', 'HrefPatternExtractor', 'MemoryFrontier', 'SqliteFrontier', 'TsePageDirectory', 'OutputDirSink', 'parseHttpUrl', 'CrawlerError']) {
    assert.equal(typeof (api as Record<string, unknown>)[name], 'function', name);
  }
  assert.equal(api.parseHttpUrl('HTTP://H:80/a/../b#f').key, 'http://h/b');
});
