/**
 * Hands a run's events to more than one consumer (the program's output, the
 * crawl archive, the report), and turns the HTTP client's wire exchanges
 * into `exchange` events for the same consumers, in the order they happen.
 */
import type { ExchangeObserver } from '../http/wire-exchange.js';
import type { CrawlEvent, CrawlEventSink } from './events.js';

/** One sink that tells `first`, then each of `more`, every event. With no `more`, `first` itself. */
export function fanOut(first: CrawlEventSink, more: readonly CrawlEventSink[]): CrawlEventSink {
  if (more.length === 0) return first;
  return (e: CrawlEvent): void => {
    first(e);
    for (const sink of more) sink(e);
  };
}

/**
 * The client's `onExchange` for these consumers, or undefined when there are
 * none (the client then keeps no bytes for a tap). The program's own output
 * has no use for exchanges, so they go to the consumers only.
 */
export function exchangeEvents(consumers: readonly CrawlEventSink[]): ExchangeObserver | undefined {
  if (consumers.length === 0) return undefined;
  return (exchange) => {
    const e: CrawlEvent = { type: 'exchange', exchange };
    for (const sink of consumers) sink(e);
  };
}
