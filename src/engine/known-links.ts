/**
 * The links a worker of a shared crawl knows the store has seen, so that a
 * completion carries only the others. A store's seen keys are never
 * forgotten (pc_seen, the SQLite and memory stores' sets are insert-only),
 * so a key once in a completion the store accepted is a duplicate in every
 * completion after it, whichever worker makes it. Pages repeat their links
 * (a site's navigation, a directory's siblings), and each such link was a
 * key for the store to insert and find taken, in every completion: in the
 * bench's 500 hosts x 20 pages, every page after a host's first carried 3
 * links the store had (its host's root, the next page, the next host's
 * root), and a worker knows them once it has sent them.
 *
 * Bounded: two generations of at most `cap` keys each; when the newer is
 * full, the older is dropped. A key forgotten is only sent again, and the
 * store says it is a duplicate, as before.
 */
import type { ClaimEntry } from '../frontier/claim-store.js';

/** Keys kept in a generation (two at most): some 100 bytes each. */
export const KNOWN_LINKS_CAP = 50_000;

/** A completion's links the store may not know, and how its answer maps back onto all of them. */
export interface UnknownLinks<T extends ClaimEntry> {
  /** The links to send, in order. */
  links: T[];
  /** The store's `added` for `links`, spread over every link (a known one was not added). */
  spread(added: readonly boolean[]): boolean[];
}

export class KnownLinks {
  private newer = new Set<string>();
  private older = new Set<string>();

  constructor(private readonly cap = KNOWN_LINKS_CAP) {}

  /** True when the store is known to have seen `key`. */
  has(key: string): boolean {
    return this.newer.has(key) || this.older.has(key);
  }

  /** The links of `all` the store may not know yet. */
  unknownOf<T extends ClaimEntry>(all: readonly T[]): UnknownLinks<T> {
    const links = all.filter((l) => !this.has(l.key));
    if (links.length === all.length) return { links, spread: (added) => [...added] };
    return {
      links,
      spread: (added) => {
        let i = 0;
        return all.map((l) => (links[i] === l ? (added[i++] as boolean) : false));
      },
    };
  }

  /** The store accepted a completion carrying `links`: their keys are in it now, new or not. */
  learn(links: readonly ClaimEntry[]): void {
    for (const l of links) {
      if (this.newer.size >= this.cap) {
        this.older = this.newer;
        this.newer = new Set();
      }
      this.newer.add(l.key);
    }
  }
}
