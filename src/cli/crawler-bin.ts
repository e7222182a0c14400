#!/usr/bin/env node
import { crawlerMain } from './crawler.js';
import { runCli } from './run-cli.js';

runCli(crawlerMain, 'crawler', {
  // A shared crawl is joined (and so resumed) by the same command; a private one by --resume.
  afterStop: (argv) =>
    argv.some((a) => a === '--frontier' || a.startsWith('--frontier=')) ? 'the same command rejoins the shared crawl' : 'the same command with --resume continues the crawl',
});
