/**
 * Per-host politeness (spec decision "Politeness means request starts"): the
 * least time between the starts of two requests to one host is the larger of
 * the crawl's delay and the host's robots.txt Crawl-delay. The wait is
 * measured from the last request start, so parsing and writing that happen
 * in between overlap the wait instead of adding to it.
 */
import { systemClock, type Clock } from './clock.js';

export interface PolitenessOptions {
  /** The crawl-wide least interval between request starts to one host, in ms. */
  delayMs: number;
  clock?: Clock;
}

export class Politeness {
  private readonly delayMs: number;
  private readonly clock: Clock;
  private readonly lastStart = new Map<string, number>();
  private readonly hostDelay = new Map<string, number>();

  constructor(options: PolitenessOptions) {
    this.delayMs = options.delayMs;
    this.clock = options.clock ?? systemClock;
  }

  /** Sets a host's own least interval (robots.txt Crawl-delay), in ms. */
  setHostDelay(host: string, ms: number | undefined): void {
    if (ms === undefined) this.hostDelay.delete(host);
    else this.hostDelay.set(host, ms);
  }

  /** The interval that applies to `host`: max(delay, Crawl-delay). */
  intervalFor(host: string): number {
    return Math.max(this.delayMs, this.hostDelay.get(host) ?? 0);
  }

  /** Milliseconds until a request to `host` may start (0 when it may now). */
  waitTime(host: string): number {
    const last = this.lastStart.get(host);
    if (last === undefined) return 0;
    return Math.max(0, last + this.intervalFor(host) - this.clock.now());
  }

  /** Waits until a request to `host` may start. Returns early when `signal` aborts. */
  async wait(host: string, signal?: AbortSignal): Promise<void> {
    // Loop: a timer may fire a hair early, and the interval may have been
    // raised (Crawl-delay learned) while we slept.
    for (let ms = this.waitTime(host); ms > 0 && !signal?.aborted; ms = this.waitTime(host)) {
      await this.clock.sleep(ms, signal);
    }
  }

  /** Records that a request to `host` starts now. */
  stamp(host: string): void {
    this.lastStart.set(host, this.clock.now());
  }
}
