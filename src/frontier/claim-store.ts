/**
 * The shared frontier: a crawl that several workers (processes, on one
 * machine or many) run together. Where `FrontierStore` hands one process its
 * next URL in strict order, a `ClaimStore` hands any worker the next URL that
 * may be fetched *now*: the host's delay has passed and no other worker holds
 * the host. Three implementations run one contract suite
 * (test/frontier/claim-contract.test.ts): in memory (tests), SQLite (workers
 * on one machine sharing a file) and PostgreSQL (workers anywhere).
 *
 * The life of a URL: `add` (seen once, ever: de-duplication is by identity
 * key) -> `claim` (leased to one worker; the host is reserved) -> the worker
 * fetches it -> `complete` (its links added, the host's next fetch time set
 * from the request start, a document ID taken if the page was saved) or
 * `release` (given back untouched, e.g. on a stop signal). A saved page is
 * done only once the worker says its file is in place (`published`); until
 * then its claim is still out. A worker that dies holding a claim loses it
 * when the lease runs out; the URL is then claimed again (fetched twice,
 * saved once: the late `complete` of the dead lease is refused). Its host
 * stays held one interval longer (`holdUntil`): the dead worker may have
 * sent its request just before its lease ran out, and no completion will
 * ever say when, so the next request waits the interval from the latest
 * moment that request can have started. That holds
 * also when it died between `complete` and `published` (the store recorded
 * the page, the file never got its name): the new claim's completion takes
 * the same document ID, so IDs stay 1..N.
 *
 * robots.txt is part of the frontier: before the first URL of a host is
 * handed out, the host's robots.txt is (`kind: 'robots'`), through the same
 * claim, lease and delay; its answer is kept on the host, and every claim of
 * that host carries it, so every worker obeys the same rules and Crawl-delay.
 *
 * A shared worker queues a redirect's target (at the same depth) instead of
 * following it: the hops taken to reach a URL travel with it (`hops`), so
 * `--max-redirects` bounds the chain whichever worker takes each hop.
 *
 * The page budget (`maxPages`, spec decision "One crawl, whatever runs it":
 * `--max-pages N` bounds the whole crawl) is held by the store: it counts the
 * completions that say they were `answered`, and hands out no page claim
 * while those and the page claims still out could reach the budget.
 *
 * Time: a store has one clock for all its workers (PostgreSQL's, or the
 * machine's wall clock). `claim` says what that clock read; a worker turns
 * its own monotonic measurements into the store's time from there (see
 * `storeTime`), so the next fetch time is stamped from the request start, not
 * from the claim.
 */

/** What a crawl is; workers joining a crawl must agree on it. */
export interface ClaimCrawlConfig {
  /** The seed, queued when the crawl is created (depth 0 for crawler). */
  seed: ClaimEntry;
  /** Seeds queued after it when the crawl is created, in order (crawler --seeds); absent: none. */
  moreSeeds?: readonly ClaimEntry[];
  /**
   * The crawl's scope as text (crawler's CrawlScope.key): workers with
   * different scopes would crawl different sets of URLs into one crawl, so
   * joining workers must give the same. Absent or '': the seeds' origins.
   */
  scope?: string;
  maxDepth: number;
  /** The crawl-wide least time between request starts to one host, in ms. */
  delayMs: number;
  /** When false, hosts need no robots.txt item and are ready at once. */
  robots: boolean;
  /**
   * The page budget of the whole crawl (--max-pages): at most this many
   * completions `answered`, by all workers together, at any concurrency
   * (see `claim`). Absent: no cap. Joining workers must give the same.
   */
  maxPages?: number;
}

/** A URL to add: its identity key, href, depth, and its host's politeness key (`HttpUrl.origin`). */
export interface ClaimEntry {
  key: string;
  url: string;
  depth: number;
  origin: string;
  /**
   * Redirect hops taken to reach this URL (a redirect's target queued at the
   * depth of the URL that answered it, with one hop more), kept with the
   * queued URL and given back as `Claim.hops`. Absent: 0 (a link or a seed).
   * De-duplication is by key alone: an entry whose key was seen is not
   * added again, whatever its hops.
   */
  hops?: number;
}

/** A host's robots.txt as fetched: the final status (0 when none arrived) and the body text. */
export interface StoredRobots {
  status: number;
  body: string;
}

/**
 * A URL (or a host's robots.txt, or a host's turn) leased to one worker.
 * `page`: a queued URL to fetch. `robots`: the host's robots.txt, whose
 * answer the store keeps. `turn`: the host's turn with no URL of the queue
 * (see `ClaimStore.turn`), e.g. a robots.txt redirect's hop to this host.
 */
export interface Claim {
  kind: 'page' | 'robots' | 'turn';
  /** The store's handle of this claim (opaque). */
  readonly id: number;
  /** The lease token: a later claim of the same URL gets another. */
  readonly token: number;
  origin: string;
  /** For `robots` and `turn`, the origin's `/robots.txt` URL (what a turn is for is the worker's). */
  key: string;
  url: string;
  /** For `robots`, the depth of the host's shallowest waiting URL (or robotsFor's); 0 for `turn`. */
  depth: number;
  /** Redirect hops taken to reach this URL (its entry's `hops`; 0 for `robots` and `turn`). */
  hops: number;
  /** The host's least interval between request starts (max of the crawl's delay and its Crawl-delay), ms. */
  delayMs: number;
  /** The host's robots.txt (for `page` claims; undefined when the crawl ignores robots). */
  robots: StoredRobots | undefined;
  /** The store's clock when the claim was made, in ms. */
  clock: number;
  /**
   * For a store across a network: the worker's monotonic clock (the
   * worker's Clock, performance.now() for the real one) just before the
   * call that made this claim was sent, the try that succeeded when a lost
   * connection made the store try again. Absent: the worker's own reading
   * before it asked (see storeTime).
   */
  sentAt?: number;
  /** Tries of this URL made before and given up for a later retry (0 for `robots` and `turn`). */
  attempts: number;
  /** The host's consecutive push-backs (429, 5xx, timeouts, resets) across all workers: its back-off. */
  streak: number;
  /** Set when the host asked for a pause beyond the cap: why none of its pages is requested any more. */
  refusal: string | undefined;
}

/**
 * What `claim` gives: a claim, a time to wait before asking again, or the end
 * of the crawl. `spent` on the end: the page budget (`maxPages`) is used up
 * (URLs may still wait; none will be fetched); absent, nothing waits.
 */
export type ClaimResult = { claim: Claim } | { waitMs: number } | { done: true; spent?: true };

/** What `turn` gives: the host's turn, or a time to wait before asking again. */
export type TurnResult = { claim: Claim } | { waitMs: number };

/** What `robotsFor` gives: the host's known answer, a claim to fetch its robots.txt now, or a time to wait. */
export type RobotsResult = { answer: StoredRobots } | { claim: Claim } | { waitMs: number };

/** How a claim ended. */
export interface Completion {
  /** The request start of the claim's (last) request, in the store's time; undefined when nothing was sent. */
  startedAt: number | undefined;
  /** Links found, in document order (only those to queue: in scope, below maxDepth). */
  links: readonly ClaimEntry[];
  /** True when the page was saved: a document ID is taken. */
  saved: boolean;
  /**
   * For a `page` claim: its request got a final answer that counts toward
   * the page budget (`maxPages`); the engine decides (a redirect, a retry, a
   * network failure do not count). Counted once per completion that is
   * `ok`; a completion whose lease was lost counts nothing. Ignored for
   * `robots` and `turn` claims. Absent: false.
   */
  answered?: boolean;
  /** For a `robots` claim: what robots.txt answered, and the host's interval from now on (ms). */
  robots?: { answer: StoredRobots; delayMs: number };
  /**
   * For a `page` claim the server pushed back on: try it again later in the
   * crawl, at its depth. The URL waits again, behind those waiting now, with
   * one attempt more; nothing is saved and no link is added.
   */
  retry?: boolean;
  /**
   * The host's politeness after this claim (spec decision "When the server
   * pushes back"), kept on its row so every worker obeys it: the back-off
   * streak, the interval from `startedAt` to the next request start (back-off
   * and --delay-factor included), and a pause a Retry-After asked for (in the
   * store's time). Absent: the host's delay, streak unchanged.
   */
  host?: HostTiming;
}

/** A host's politeness as one worker leaves it for all (see Completion.host). */
export interface HostTiming {
  streak: number;
  /** Least time from this request's start to the next one's: the host's interval and its arrival guard (politeness.ts). */
  intervalMs: number;
  pausedUntil: number | undefined;
  /** The host asked for a pause beyond --max-retry-after: its pages fail with this reason (kept once set). */
  refusal?: string | undefined;
}

export interface CompletionResult {
  /** False when the lease was lost (another worker holds the URL now): nothing was recorded. */
  ok: boolean;
  /** The document ID taken (when `saved` and `ok`). */
  documentId: number | undefined;
  /** For each link, in order: true when it was new (queued), false for a duplicate. */
  added: boolean[];
}

export interface ClaimOptions {
  /** Most time a worker may hold a claim before it is given to another, ms. */
  leaseMs: number;
  /** Finish each depth before the next is claimed (strict breadth first across workers). */
  strictBfs: boolean;
}

export interface ClaimStore {
  /**
   * Creates the crawl, or joins it when it exists (then `config` must match:
   * ERR_STATE names the difference). The seed is queued on creation.
   * Resolves with `created` true for the worker that created it.
   */
  open(config: ClaimCrawlConfig): Promise<{ created: boolean }>;
  /** Queues the entries that were never seen; says which were new, in order. */
  add(entries: readonly ClaimEntry[]): Promise<boolean[]>;
  /**
   * The next URL that may be fetched now: from the ready, unreserved host
   * with the shallowest waiting URL (ties: the earliest next fetch time), its
   * shallowest, oldest URL; a host whose robots.txt is not known yet gives
   * that first. `waitMs` when nothing is ready yet (or claims are out that
   * may add more); `done` when nothing is waiting and no claim is out.
   *
   * With a page budget (`maxPages`): no page claim while the completions
   * answered so far and the page claims out (claimed, not completed: any of
   * them may count) reach it; then `waitMs` (POLL_WAIT_MS) while claims are
   * out that may not count, and `{ done: true, spent: true }` once the
   * answered completions reach it, whatever still waits (no robots claim
   * either: nothing more is fetched). Exclusive across workers: two
   * concurrent claims never both take the last page of the budget. A
   * worker told `spent` still publishes the saved pages of its claims.
   *
   * `published`, when given, are claims whose saved pages are now in place:
   * each is marked done first, exactly as `published` would, so a
   * worker's next claim and the publication of the pages its lanes saved
   * meanwhile cost one call (one round trip to a database), not one each.
   */
  claim(options: ClaimOptions, published?: readonly Claim[]): Promise<ClaimResult>;
  /**
   * Ends a claim (see Completion). A completion after the lease was lost is
   * refused (`ok` false); its `startedAt` still counts for the host (the
   * request was sent: the host's next one waits the interval from it). A saved page's claim stays out (under its lease)
   * until `published`; if the lease runs out first, the URL is claimed again
   * and that claim's saved completion gets the same document ID.
   */
  complete(claim: Claim, completion: Completion): Promise<CompletionResult>;
  /** The saved pages of completed claims are in place under their document IDs: each URL is done (one call for all). */
  published(claims: readonly Claim[]): Promise<void>;
  /**
   * The robots.txt answer of a host a link leads to, so that the link is
   * judged when it is found, as a private crawl judges it: the answer when
   * the host's row has it; else a `robots` claim (the row is made for a new
   * host), to fetch and complete now; else, while another worker fetches it
   * or the host is not ready, a time to wait before asking again.
   */
  robotsFor(origin: string, depth: number, options: ClaimOptions): Promise<RobotsResult>;
  /**
   * Gives a claim back (a stop signal), or ends a `turn`: the URL waits again
   * (a `page` claim; a `robots` claim's robots.txt is unclaimed), and the host is
   * free. `startedAt`, when a request was sent under the claim (in the
   * store's time), still counts: the host's next request waits its
   * interval from it, as after a completion.
   */
  release(claim: Claim, startedAt?: number): Promise<void>;
  /** The highest document ID taken so far. */
  lastDocumentId(): Promise<number>;
  /**
   * A host's turn without a URL of the queue: a request a worker must make to
   * `origin` within the host's politeness across all workers (a robots.txt
   * redirect's hop to another host of the crawl, RFC 9309 §2.3.1.2), not by
   * its own clock. When the host is free (no claim holds it, its next fetch
   * time has passed; its row is made when new, as robotsFor makes it), a
   * `turn` claim that holds the host under a lease, as a page claim does (a
   * host with no delay is not held, but a claim is still given); else a time
   * to wait: until its next fetch time, or POLL_WAIT_MS while another claim
   * holds it. Its robots.txt need not be known, and the page budget does
   * not apply. A turn is ended by `release(claim, startedAt)`, which sets the
   * host's next fetch time from `startedAt` and frees the host; it never
   * changes the host's robots.txt state nor any queued URL. A turn is not a
   * claim out for `claim`'s end of the crawl: take it while holding another.
   */
  turn(origin: string, options: ClaimOptions): Promise<TurnResult>;
  /** Releases the connection or file. */
  close(): Promise<void>;
}

/** Default lease: longer than a whole request may take (connect 10 s + response 30 s), with room. */
export const DEFAULT_LEASE_MS = 120_000;

/** Longest wait `claim` asks for, so a worker sees new work (or a lost lease) soon. */
export const MAX_CLAIM_WAIT_MS = 250;

/**
 * The wait `claim` asks for when only another worker can make work ready (a
 * host held by a claim, or claims out that may add links): the holder
 * itself claims again the moment it completes, so others only poll.
 */
export const POLL_WAIT_MS = 20;

/**
 * Marks, in order, which entries are new given the set of keys the store
 * inserted: the first occurrence of an inserted key is new, a repeat on the
 * same page is a duplicate.
 */
export function markAdded(entries: readonly ClaimEntry[], inserted: ReadonlySet<string>): boolean[] {
  const taken = new Set<string>();
  return entries.map((e) => {
    if (!inserted.has(e.key) || taken.has(e.key)) return false;
    taken.add(e.key);
    return true;
  });
}

/** The robots.txt URL of an origin. */
export function robotsUrlOf(origin: string): string {
  return `${origin}/robots.txt`;
}

/**
 * Turns a local monotonic time into the store's clock, given the claim made
 * after `localBefore` (the worker's reading before it asked for the claim).
 */
export function storeTime(claim: Claim, localBefore: number, localAt: number): number {
  // The call was sent after localBefore (and after claim.sentAt, when the
  // store says when it sent the try that succeeded), so the store's clock
  // read later than either: this over-estimates, and an over-estimated
  // request start only makes the next one to the host later, never earlier.
  // sentAt keeps the estimate close when the call waited out a lost connection.
  const sent = claim.sentAt === undefined ? localBefore : Math.max(localBefore, claim.sentAt);
  return claim.clock + (localAt - sent);
}

/**
 * Until when a claim made at `now` (the store's clock) holds its host: its
 * lease, then the host's interval (`delayMs`). A worker that dies (or stops
 * answering) after sending its request never says when it started, and may
 * have started it at the last moment of its lease; so the host is free again
 * no sooner than the interval after the lease ran out, and a request of the
 * next claim is never closer than the interval to it. A completion or
 * release frees the host at once, and its request start (if any) sets the
 * host's next fetch time instead.
 */
export function holdUntil(now: number, leaseMs: number, delayMs: number): number {
  return now + leaseMs + Math.max(0, delayMs);
}

/** A wait as `claim` asks for it: whole ms, at least 1, at most MAX_CLAIM_WAIT_MS. */
export function clampWait(ms: number): number {
  return Math.min(MAX_CLAIM_WAIT_MS, Math.max(1, Math.ceil(ms)));
}

/** Whether a completion counts toward the page budget: an answered page (see Completion.answered). */
export function counts(claim: Claim, c: Completion): boolean {
  return claim.kind === 'page' && c.answered === true;
}

/** The page budget's state: spent (nothing more), full (no page claim now: claims out may count), or room. */
export function budget(maxPages: number | undefined | null, answered: number, out: number): 'spent' | 'full' | 'room' {
  if (maxPages === undefined || maxPages === null) return 'room';
  if (answered >= maxPages) return 'spent';
  return answered + out >= maxPages ? 'full' : 'room';
}

/** Whether a completion sends its page back to wait (a retry; a saved page is never retried). */
export function isRetry(c: Completion): boolean {
  return c.retry === true && !c.saved;
}

/**
 * The host's next fetch time after a completion: the later of what it was,
 * the request start plus the interval (the host's delay, or the worker's
 * interval with back-off), and a Retry-After pause.
 */
export function nextFetchAfter(current: number, delayMs: number, c: Completion): number {
  let next = current;
  if (c.startedAt !== undefined) next = Math.max(next, c.startedAt + (c.host?.intervalMs ?? delayMs));
  if (c.host?.pausedUntil !== undefined) next = Math.max(next, c.host.pausedUntil);
  return next;
}

/** The answer to a completion whose lease was lost: nothing recorded. */
export function lostLease(c: Completion): CompletionResult {
  return { ok: false, documentId: undefined, added: c.links.map(() => false) };
}
