/**
 * crawler's log on stdout. The CS50 reference format is C's
 * `printf("%2d %*s%9s: %s\n", depth, depth, "", word, url)`; ours adds the
 * reason after the URL of a `Failed` line. `--json` prints one object per
 * event instead; `--quiet` prints nothing. Lines are gathered per page and
 * written before the next request, so a reader sees each page's lines as
 * soon as the page is done, at one write per page instead of one per line.
 */
import { printable } from './terminal-text.js';
import type { CliIo } from '../program-io.js';

export type LogMode = 'cs50' | 'json' | 'quiet';

/** One CS50-format log line (without the newline). URL and reason go through `printable`. */
export function formatCs50(depth: number, word: string, url: string, reason?: string): string {
  return `${String(depth).padStart(2)} ${' '.repeat(depth)}${word.padStart(9)}: ${printable(url)}${reason !== undefined ? ` ${printable(reason)}` : ''}`;
}

export class CrawlLog {
  private buffer = '';

  constructor(
    private readonly io: CliIo,
    private readonly mode: LogMode,
  ) {}

  event(depth: number, word: string, url: string, reason?: string): void {
    if (this.mode === 'quiet') return;
    if (this.mode === 'json') {
      this.buffer += JSON.stringify(reason === undefined ? { event: word, depth, url } : { event: word, depth, url, reason }) + '\n';
    } else {
      this.buffer += formatCs50(depth, word, url, reason) + '\n';
    }
    if (this.buffer.length > 65536) this.flush();
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    this.io.stdout(this.buffer);
    this.buffer = '';
  }
}
