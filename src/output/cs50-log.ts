/**
 * crawler's log on stdout. The CS50 reference format is C's
 * `printf("%2d %*s%9s: %s\n", depth, depth, "", word, url)`; ours adds the
 * reason, in parentheses, after the URL of a `Failed` line. `--json`
 * prints one object per event instead, its reason without the parentheses
 * (`"reason":"HTTP 404"`); `--quiet` prints nothing. Lines are gathered per page and
 * written before the next request, so a reader sees each page's lines as
 * soon as the page is done, at one write per page instead of one per line.
 */
import { printable } from './terminal-text.js';
import type { CliIo } from '../program-io.js';

export type LogMode = 'cs50' | 'json' | 'quiet';

/**
 * A Failed line's reason without the log's parentheses: "(HTTP 404)" is
 * "HTTP 404", for the JSON log and the report; a reason not in parentheses
 * is returned as it is.
 */
export function bareReason(reason: string | undefined): string | undefined {
  return reason !== undefined && reason.length > 2 && reason.startsWith('(') && reason.endsWith(')') ? reason.slice(1, -1) : reason;
}

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

  /**
   * One line. `reason` is a Failed line's, in both formats; `why` is for
   * --json alone (why a link is left out: the CS50 line has no room for it).
   */
  event(depth: number, word: string, url: string, reason?: string, why?: string): void {
    if (this.mode === 'quiet') return;
    if (this.mode === 'json') {
      const because = reason === undefined ? why : bareReason(reason);
      this.buffer += JSON.stringify(because === undefined ? { event: word, depth, url } : { event: word, depth, url, reason: because }) + '\n';
    } else {
      this.buffer += formatCs50(depth, word, url, reason) + '\n';
    }
    if (this.buffer.length > 65536) this.flush();
  }

  /**
   * A line of --json alone (a page requisite: the CS50 log has no word for
   * it and stays as it is without the flag). Its fields after `event`.
   */
  jsonOnly(event: string, fields: Record<string, string | number | undefined>): void {
    if (this.mode !== 'json') return;
    this.buffer += JSON.stringify({ event, ...fields }) + '\n';
    if (this.buffer.length > 65536) this.flush();
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    this.io.stdout(this.buffer);
    this.buffer = '';
  }
}
