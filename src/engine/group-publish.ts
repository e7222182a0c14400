/**
 * A shared worker's saved pages, published to the store in groups, as a
 * database commits a group of transactions with one flush. A lane whose page
 * is saved (its file renamed to its ID) tells the store at once; when a call
 * of this worker is already out, the page waits for that call to come back
 * and then goes with every page saved meanwhile, in one call. So nothing
 * waits longer than about one call's time: a page saved and not yet
 * published is the window in which this worker's death makes another worker
 * fetch and save it again (its lease runs out). Grouping halves the
 * publish calls and the database's time on them (docs/performance.md,
 * Group commit).
 */
import type { Claim, ClaimStore } from '../frontier/claim-store.js';

export class GroupPublish {
  /** Saved pages not yet in a call: the next group. */
  private waiting: Claim[] = [];
  /** The call out now, if any. */
  private out: Promise<void> | undefined;
  /** The call that took each group. */
  private readonly calls = new WeakMap<Claim[], Promise<void>>();

  constructor(private readonly store: Pick<ClaimStore, 'published'>) {}

  /** Resolves once `claim` is published, in a call with the others saved while one was out; rejects as that call does. */
  async publish(claim: Claim): Promise<void> {
    const group = this.waiting;
    group.push(claim);
    for (;;) {
      const sent = this.calls.get(group);
      if (sent !== undefined) return sent; // taken by the lane that came first
      if (this.out === undefined) return this.send(group);
      await this.out.catch(() => undefined); // that call's failure is its own lanes'
    }
  }

  private async send(group: Claim[]): Promise<void> {
    this.waiting = [];
    const call = this.store.published(group);
    this.out = call;
    this.calls.set(group, call);
    try {
      await call;
    } finally {
      if (this.out === call) this.out = undefined;
    }
  }
}
