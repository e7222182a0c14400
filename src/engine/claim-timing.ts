/**
 * Host timing on the store's row, for a worker of a shared crawl: every
 * worker obeys one interval, back-off streak, Retry-After pause and refusal
 * per host, kept on the host's row in the ClaimStore. A claim brings the
 * row's values into this worker's politeness before the request; the
 * completion carries them back, with the request start in the store's time.
 */
import { storeTime, type Claim, type HostTiming } from '../frontier/claim-store.js';
import { arrivalGuard, type Politeness } from '../frontier/politeness.js';

export class ClaimTiming {
  constructor(private readonly politeness: Politeness) {}

  /** The host's interval, back-off streak and refusal as its row has them (every worker's push-backs count). */
  take(claim: Claim): void {
    const p = this.politeness;
    p.setHostDelay(claim.origin, claim.delayMs);
    p.setStreak(claim.origin, claim.streak);
    if (claim.refusal !== undefined) p.refuse(claim.origin, claim.refusal);
  }

  /**
   * The start of the claim's last request, in the store's time, or
   * undefined when none left after the claim was made. `before` is this
   * worker's clock read just before it asked for the claim.
   */
  startedAt(claim: Claim, before: number): number | undefined {
    const at = this.politeness.lastStartOf(claim.origin);
    return at === undefined || at < before ? undefined : storeTime(claim, before, at);
  }

  /** The host's politeness after this claim, for its row: the streak, the interval (with its arrival guard), a Retry-After pause in the store's time, a refusal. */
  after(claim: Claim, before: number): HostTiming {
    const p = this.politeness;
    const paused = p.pausedUntilOf(claim.origin);
    const interval = p.intervalFor(claim.origin);
    return {
      streak: p.streakOf(claim.origin),
      intervalMs: interval + arrivalGuard(interval),
      pausedUntil: paused === undefined || paused <= before ? undefined : storeTime(claim, before, paused),
      refusal: p.refusalOf(claim.origin),
    };
  }
}
