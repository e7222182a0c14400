/**
 * The summary of a crawl's page requisites (--page-requisites), one line on
 * stderr: how many were fetched (and their bytes), then what became of the
 * others, by cause, each only when there were some.
 */
import type { Requisites } from '../engine/requisites.js';
import { count } from '../plural.js';

/** "crawler: page requisites: 42 fetched (1234567 bytes) for the archive; 1 failed, 2 disallowed by robots.txt\n" */
export function requisitesLine(c: Requisites['counts'], program = 'crawler'): string {
  const others = [
    c.unchanged > 0 ? `${c.unchanged} unchanged since the earlier crawl (${count(c.sparedBytes, 'byte')} not sent again)` : '',
    c.failed > 0 ? `${c.failed} failed` : '',
    c.robots > 0 ? `${c.robots} disallowed by robots.txt` : '',
    c.outside > 0 ? `${c.outside} outside the scope` : '',
    c.capped > 0 ? `${c.capped} left out by the per-page caps` : '',
  ].filter((p) => p !== '');
  return `${program}: page requisites: ${c.fetched} fetched (${count(c.bytes, 'byte')}) for the archive${others.length === 0 ? '' : `; ${others.join(', ')}`}\n`;
}
