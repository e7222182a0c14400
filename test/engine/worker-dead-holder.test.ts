/**
 * A worker that dies holding a claim, at many moments of its lease: it sent
 * its request (the server has it) and never completed, as a worker that is
 * SIGKILLed mid-fetch. Another worker (a real Worker, polling all along)
 * takes the host over once the store frees it. At the server, no two
 * request starts to the host may be closer than the delay: the dead
 * worker's request, sent as late as the last moments of its lease, included.
 * Run over every ClaimStore (memory, SQLite, PostgreSQL).
 */
// run-tests: long (14 s: leases that run out)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CrawlEvent } from '../../src/engine/events.js';
import { MemoryClaimStore } from '../../src/frontier/claim-memory.js';
import { PostgresClaimStore } from '../../src/frontier/claim-postgres.js';
import { SqliteClaimStore } from '../../src/frontier/claim-sqlite.js';
import type { ClaimCrawlConfig, ClaimStore } from '../../src/frontier/claim-store.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { assertStartsApart, longestGap } from '../helpers/arrivals.js';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';
import { page, startSite } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { makeWorker } from '../helpers/worker-run.js';

const dirs = useTempDirs();

const DELAY = 200;
const LEASE = 300;
/** When the dying worker's request leaves, ms after it asked for its claim: early in the lease, past lease - delay, at its end. */
const MOMENTS = [60, 160, 260, 290];

/** Two handles on one crawl (the dying worker's, the survivor's) and how to let go of them. */
type Stores = () => Promise<{ dying: ClaimStore; survivor: ClaimStore; close(): Promise<void> }>;

const stores: Array<[string, Stores, string | undefined]> = [
  [
    'memory',
    async () => {
      const m = new MemoryClaimStore();
      return { dying: m, survivor: m, close: async () => undefined };
    },
    undefined,
  ],
  [
    'sqlite',
    async () => {
      const file = `${dirs.temp('dead-holder-')}/frontier.db`;
      const [dying, survivor] = [new SqliteClaimStore(file), new SqliteClaimStore(file)];
      return { dying, survivor, close: async () => void (await Promise.all([dying.close(), survivor.close()])) };
    },
    undefined,
  ],
  [
    'postgresql',
    async () => {
      const db = await freshDatabase();
      const [dying, survivor] = [new PostgresClaimStore(db.url), new PostgresClaimStore(db.url)];
      return {
        dying,
        survivor,
        close: async () => {
          await Promise.all([dying.close(), survivor.close()]);
          await db.drop();
        },
      };
    },
    pgSkipReason,
  ],
];

/** Writes `bytes` on `socket`; resolves with performance.now() once they are handed to the kernel. */
function write(socket: Socket, bytes: string): Promise<number> {
  return new Promise((resolve, reject) => socket.write(bytes, (err) => (err ? reject(err) : resolve(performance.now()))));
}

/**
 * One run: the dying worker claims the seed with a lease of LEASE ms, sends
 * its request `moment` ms after it asked, and is never heard of again; the
 * survivor crawls the site. Resolves with the gap at the server from the
 * dead request to the next (at most), or undefined when this process was
 * stalled past the lease before the request left (then the run proves
 * nothing: the caller runs it again).
 */
async function run(make: Stores, moment: number): Promise<number | undefined> {
  const site = await startSite({ '/': { body: page('home', ['/a.html', '/b.html']) }, '/a.html': { body: page('a') }, '/b.html': { body: page('b') } });
  const { dying, survivor, close } = await make();
  let socket: Socket | undefined;
  try {
    const seed = parseHttpUrl(`${site.origin}/`);
    // As makeWorker's worker has it (a joining worker must agree).
    const config: ClaimCrawlConfig = { seed: { key: seed.key, url: seed.href, depth: 0, origin: seed.origin }, maxDepth: 2, delayMs: DELAY, robots: false };
    await dying.open(config);
    const asked = performance.now();
    const r = await dying.claim({ leaseMs: LEASE, strictBfs: false });
    assert.ok('claim' in r && r.claim.key === seed.key, `the dying worker claims the seed: ${JSON.stringify(r)}`);
    // The survivor polls from now on: it takes the host the moment the store lets it.
    const reports: CrawlEvent[] = [];
    const survived = makeWorker(survivor, seed, dirs.temp('survivor-'), reports, { delayMs: DELAY, lanes: 2 }).run();
    await sleep(Math.max(0, moment - (performance.now() - asked)));
    // Connected now, not before: the server counts a connection's first request from its accept (arrivals.ts).
    const open = connect(site.port, site.host);
    socket = open;
    await new Promise<void>((resolve, reject) => open.once('connect', resolve).once('error', reject));
    const sent = await write(open, `GET / HTTP/1.1\r\nHost: ${site.host}:${site.port}\r\nUser-Agent: dying-worker\r\n\r\n`);
    // Dead from here: no completion, no release. (Its request is at the server; its answer is never read.)
    const summary = await survived;
    assert.ok(summary.crawlDone, 'the survivor finished the crawl');
    // A request that left after the lease ran out is no dead holder's: this process was stalled.
    if (sent - asked >= LEASE) return undefined;
    const requests = site.requests;
    assert.deepEqual(requests.map((q) => `${q.headers['user-agent']} ${q.path}`), ['dying-worker /', 'worker-test /', 'worker-test /a.html', 'worker-test /b.html']);
    assertStartsApart(requests, DELAY, `request left ${moment} ms into a ${LEASE} ms lease`, (i) => `${requests[i]?.headers['user-agent']} ${requests[i]?.path}`);
    return longestGap(requests[0]!, requests[1]!);
  } finally {
    socket?.destroy();
    await close();
    await site.close();
  }
}

for (const [name, make, skip] of stores) {
  describe(`a worker that dies holding a claim (${name})`, () => {
    test(`its request sent at ${MOMENTS.join(', ')} ms of a ${LEASE} ms lease, --delay ${DELAY / 1000}: the next request to the host waits the delay from it, at the server`, { skip, timeout: 60_000 }, async (t) => {
      const gaps: string[] = [];
      for (const moment of MOMENTS) {
        let gap: number | undefined;
        for (let tries = 0; gap === undefined; tries++) {
          assert.ok(tries < 3, `three runs at ${moment} ms, each stalled past the lease before the request left`);
          gap = await run(make, moment);
        }
        gaps.push(`${moment} ms: ${gap.toFixed(1)}`);
      }
      t.diagnostic(`from the dead request to the next, at the server (at most, ms): ${gaps.join(', ')}`);
    });
  });
}
