/**
 * Shared crawls hold the interval at the server: several worker processes on
 * one PostgreSQL frontier, a small delay, every worker competing for every
 * host, and at each server no two request starts closer than the delay,
 * over many runs (a gap that falls short once in five runs is a failure).
 * PC_STRESS_RUNS raises the number of runs (default 10).
 */
// run-tests: long (22 s: the interval across workers, at the server)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { longestGap } from '../helpers/arrivals.js';
import { freshDatabase, pgSkipReason } from '../helpers/postgres.js';
import { assertHostsPolite, assertSavedOnce, startSharedHosts } from '../helpers/shared-hosts.js';
import { startProgram } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('workers-interval-');

const RUNS = Number(process.env['PC_STRESS_RUNS'] ?? 10);
const WORKERS = 3;
const DELAY = 0.1;
const HOSTS = 3;
const PAGES = 10;

describe('crawler --frontier postgresql://: the interval holds at the server across workers', () => {
  test(`${WORKERS} workers, ${HOSTS} hosts x ${PAGES} pages, --delay ${DELAY}, ${RUNS} runs: every gap at every server >= the delay`, { skip: pgSkipReason, timeout: RUNS * 30_000 }, async (t) => {
    const least: number[] = [];
    const noted: number[] = [];
    for (let run = 1; run <= RUNS; run++) {
      const db = await freshDatabase();
      const hosts = await startSharedHosts(HOSTS, PAGES);
      try {
        const dirs = Array.from({ length: WORKERS }, () => tempDir());
        const ends = await Promise.all(
          dirs.map(
            (dir, i) =>
              startProgram('crawler', ['--frontier', db.url, '--delay', String(DELAY), '--quiet', '--user-agent', `worker-${i}`, ...hosts.internal, hosts.seed, dir, '1'], {
                timeoutMs: 60_000,
              }).done,
          ),
        );
        for (const [i, end] of ends.entries()) assert.equal(end.code, 0, `run ${run}, worker ${i}: ${end.stderr}`);
        assertSavedOnce(dirs, hosts.reachable);
        // Requests from every worker reached each host (else the run tested nothing across workers).
        for (const s of hosts.sites) {
          const agents = new Set(s.requests.map((r) => r.headers['user-agent']));
          assert.ok(agents.size >= 2, `run ${run}: ${s.host} was asked by ${agents.size} worker(s) only`);
          let min = Infinity;
          for (let i = 1; i < s.requests.length; i++) min = Math.min(min, longestGap(s.requests[i - 1]!, s.requests[i]!));
          least.push(min);
          let naive = Infinity;
          for (let i = 1; i < s.requests.length; i++) naive = Math.min(naive, s.requests[i]!.at - s.requests[i - 1]!.at);
          noted.push(naive);
        }
        assertHostsPolite(hosts, DELAY * 1000, `run ${run}`);
      } finally {
        await hosts.close();
        await db.drop();
      }
    }
    // For the record: a gap between the times the server noted (one stamp per request, as a naive
    // server measures) can fall below the delay on a loaded machine, though no request started early.
    t.diagnostic(`least noted gap per host and run (ms): ${noted.map((m) => m.toFixed(1)).join(' ')}`);
    t.diagnostic(`least gap per host and run (ms, at most): ${least.map((m) => m.toFixed(1)).join(' ')}`);
  });
});
