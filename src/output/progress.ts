/**
 * A one-line progress display on stderr, drawn only when stderr is a
 * terminal (spec decision "Stdout is the product, stderr is for people"),
 * redrawn at most ten times a second, and erased when the work ends.
 */
import { STATUS_WIDTH, type CliIo } from '../program-io.js';

export class Progress {
  private last = Number.NEGATIVE_INFINITY;
  private drawn = false;

  constructor(
    private readonly io: CliIo,
    private readonly enabled = io.stderrIsTTY,
  ) {}

  /** Redraws the line with `text` unless it was drawn less than 100 ms ago. */
  update(text: () => string): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < 100) return;
    this.last = now;
    const line = text();
    this.io.status(line.length > STATUS_WIDTH ? line.slice(0, STATUS_WIDTH) : line.padEnd(STATUS_WIDTH));
    this.drawn = true;
  }

  /** Erases the line. */
  done(): void {
    if (this.drawn) this.io.status('');
    this.drawn = false;
  }
}
