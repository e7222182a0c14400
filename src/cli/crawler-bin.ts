#!/usr/bin/env node
import { crawlerMain } from './crawler.js';
import { runCli } from './run-cli.js';

runCli(crawlerMain, 'crawler');
