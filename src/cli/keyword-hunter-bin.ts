#!/usr/bin/env node
import { keywordHunterMain } from './keyword-hunter.js';
import { runCli } from './run-cli.js';

runCli(keywordHunterMain, 'KeywordHunter');
