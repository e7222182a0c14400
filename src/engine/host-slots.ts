/**
 * Connections per host (--connections-per-host), for every request of a
 * process: pages, robots.txt, sitemaps and page requisites. The crawl's
 * window keeps its own pages within the limit; this is what keeps a page
 * requisite (or anything else asked beside the pages) from opening one
 * more. A host with an interval gets one request in flight at a time: its
 * turn ends when a request is written, and a slow answer must not overlap
 * the next request's.
 */
import { CrawlerError } from '../errors.js';
import type { Politeness } from '../frontier/politeness.js';

/**
 * --connections-per-host as it applies to `origin` now: `perHost` where the
 * host asks for no interval, else 1 (a second connection would break it).
 * The window's pages and the fetcher's slots both keep to it.
 */
export function connectionsFor(politeness: Politeness, perHost: number): (origin: string) => number {
  return (origin) => (politeness.intervalFor(origin) === 0 ? perHost : 1);
}

export class HostSlots {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();

  /** `limit(origin)`: how many requests to `origin` may be in flight at once now (at least 1). */
  constructor(private readonly limit: (origin: string) => number) {}

  /**
   * Resolves with the release of a slot of `origin` once one is free, in
   * the order asked; rejects with ERR_ABORTED when `signal` aborts first.
   */
  async take(origin: string, signal?: AbortSignal): Promise<() => void> {
    for (;;) {
      const slot = this.tryTake(origin);
      if (slot !== undefined) return slot;
      await this.wait(origin, signal);
    }
  }

  /** The release of a slot of `origin` taken now, or undefined when none is free. */
  tryTake(origin: string): (() => void) | undefined {
    const n = this.inFlight.get(origin) ?? 0;
    if (n >= Math.max(1, this.limit(origin))) return undefined;
    this.inFlight.set(origin, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.inFlight.get(origin) ?? 1) - 1;
      if (n === 0) this.inFlight.delete(origin);
      else this.inFlight.set(origin, n);
      const next = this.waiting.get(origin)?.shift();
      if (this.waiting.get(origin)?.length === 0) this.waiting.delete(origin);
      next?.();
    };
  }

  /** Requests to `origin` in flight now. */
  busy(origin: string): number {
    return this.inFlight.get(origin) ?? 0;
  }

  private wait(origin: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(new CrawlerError('ERR_ABORTED', `stopped while waiting for a connection to ${origin}`));
        return;
      }
      let queue = this.waiting.get(origin);
      if (queue === undefined) this.waiting.set(origin, (queue = []));
      const wake = (): void => {
        signal?.removeEventListener('abort', stop);
        resolve();
      };
      const stop = (): void => {
        const q = this.waiting.get(origin);
        const i = q?.indexOf(wake) ?? -1;
        if (q !== undefined && i >= 0) q.splice(i, 1);
        if (q?.length === 0) this.waiting.delete(origin);
        reject(new CrawlerError('ERR_ABORTED', `stopped while waiting for a connection to ${origin}`));
      };
      queue.push(wake);
      signal?.addEventListener('abort', stop, { once: true });
    });
  }
}
