/**
 * A ring of shared memory that carries the exchanges' bytes from the
 * crawl's thread to the archive's (record-thread-client.ts writes, the
 * thread reads): one copy into the ring, no allocation, no transfer, and a
 * fixed amount of memory, where a buffer per exchange left tens of
 * megabytes of garbage for two heaps to collect. Places are handed out in
 * order and given back in order (the thread works through its jobs in
 * order), so two counters say what is in use.
 */

/** Default size: room for about 350 pages of 22 KB in flight. */
export const RING_BYTES = 8 * 1024 * 1024;

/**
 * V8 copies into shared memory with relaxed atomic stores: a word at a time
 * when source and destination have the same offset modulo 8, a byte at a
 * time when they do not, several times slower (docs/performance.md, The
 * page files' thread). So each part goes where its offset in the ring
 * matches its offset in its own buffer: at most ALIGN_SLACK bytes of
 * padding each.
 */
const WORD = 8;
export const ALIGN_SLACK = WORD - 1;

/**
 * The first position at or after `at`, within a piece that starts at `base`
 * in the ring, where `part` is copied a word at a time (same offset modulo 8).
 */
export function alignedFor(part: Uint8Array, base: number, at: number): number {
  return at + ((part.byteOffset - base - at) & (WORD - 1));
}

export class SendRing {
  readonly shared: SharedArrayBuffer;
  readonly bytes: Uint8Array;
  /** Bytes handed out and bytes given back, since the start (they only grow). */
  private reserved = 0;
  private released = 0;

  constructor(size = RING_BYTES) {
    this.shared = new SharedArrayBuffer(size);
    this.bytes = new Uint8Array(this.shared);
  }

  /**
   * A place for `n` contiguous bytes: its offset in the ring and the end to
   * give back once the thread is done with it; undefined when the ring has
   * no room (then the bytes travel on their own). A place never wraps: the
   * ring's tail is skipped when it is too short.
   */
  reserve(n: number): { offset: number; end: number } | undefined {
    const size = this.bytes.length;
    if (n > size / 4) return undefined;
    const at = this.reserved % size;
    const skip = at + n > size ? size - at : 0;
    if (this.reserved + skip + n - this.released > size) return undefined;
    this.reserved += skip + n;
    return { offset: (at + skip) % size, end: this.reserved };
  }

  /** The thread is done with every place up to `end` (a value reserve() gave). */
  release(end: number): void {
    if (end > this.released) this.released = end;
  }

  /** Bytes in use. */
  get used(): number {
    return this.reserved - this.released;
  }
}
