/**
 * The frontier database is part of the fault model. Two worker processes
 * crawl 3 hosts x 30 pages through a PostgreSQL cluster of this file's own
 * (stopping it must not break the other tests' cluster); the cluster is
 * stopped as an administrator's restart does (`pg_ctl stop -m fast`) in the
 * middle of the crawl and started again on the same data and port. Both
 * workers wait and go on: exit 0, every page saved once, IDs 1..90, every
 * host's interval held at the server. When the database does not come back
 * within --frontier-wait, a worker exits 1 with one line naming the cause
 * and saying how to go on, and running the same command again once the
 * database is back finishes the crawl.
 */
// run-tests: long (24 s: a PostgreSQL restart under the workers)
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROJECT_ROOT } from '../helpers/conformance.js';
import { numberedFiles } from '../helpers/page-files.js';
import { pgSkipReason } from '../helpers/postgres.js';
import { assertHostsPolite, assertSavedOnce, startSharedHosts, type SharedHosts } from '../helpers/shared-hosts.js';
import { runProgram, startProgram, type RunResult } from '../helpers/spawn.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const { temp: tempDir } = useTempDirs('workers-db-restart-');

const DELAY = 0.1;
const HOSTS = 3;
const PAGES = 30;

/** The throwaway cluster of scripts/pg-cluster.js. */
interface Cluster {
  url: string;
  stop(): void;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
}

/** A cluster of this test's own, stopped and removed after it; undefined (the test skipped) when none starts. */
async function ownCluster(t: TestContext): Promise<Cluster | undefined> {
  const { startCluster } = (await import(pathToFileURL(join(PROJECT_ROOT, 'scripts', 'pg-cluster.js')).href)) as {
    startCluster(): Promise<Cluster | { skip: string }>;
  };
  const cluster = await startCluster();
  if ('skip' in cluster) {
    t.skip(cluster.skip);
    return undefined;
  }
  t.after(() => cluster.stop());
  return cluster;
}

function worker(cluster: Cluster, hosts: SharedHosts, dir: string, name: string, extra: string[] = []): { done: Promise<RunResult> } {
  const args = ['--frontier', cluster.url, '--delay', String(DELAY), '--quiet', '--user-agent', name, ...extra, ...hosts.internal, hosts.seed, dir, '1'];
  return startProgram('crawler', args, { timeoutMs: 90_000 });
}

function savedIn(dirs: readonly string[]): number {
  return dirs.reduce((n, d) => n + numberedFiles(d).length, 0);
}

/** Waits `ms`, and on a slow machine longer, until the workers have saved some pages (the crawl is under way). */
async function midCrawl(dirs: readonly string[], ms: number): Promise<void> {
  await sleep(ms);
  const until = performance.now() + 20_000;
  while (savedIn(dirs) < 10 && performance.now() < until) await sleep(10);
}

describe('crawler --frontier postgresql://: the database restarts under the workers', () => {
  test('stopped (pg_ctl stop -m fast) after 2 s for 5 s: both workers go on and exit 0, every page once, IDs 1..90, intervals held', { skip: pgSkipReason, timeout: 120_000 }, async (t) => {
    const cluster = await ownCluster(t);
    if (cluster === undefined) return;
    const hosts = await startSharedHosts(HOSTS, PAGES);
    t.after(() => hosts.close());
    const dirs = [tempDir(), tempDir()];
    const workers = dirs.map((dir, i) => worker(cluster, hosts, dir, `worker-${i}`));
    await midCrawl(dirs, 2000);
    await cluster.stopServer();
    const atStop = savedIn(dirs);
    const requestsAtStop = hosts.sites.reduce((n, s) => n + s.requests.length, 0);
    await sleep(5000);
    await cluster.startServer();
    const ends = await Promise.all(workers.map((w) => w.done));
    for (const [i, end] of ends.entries()) {
      assert.equal(end.code, 0, `worker ${i}: ${end.stderr}`);
      assert.match(end.stderr, /the frontier database at 127\.0\.0\.1:\d+ is unreachable \(.+\); waiting up to 60 s for it/, `worker ${i} said it waits`);
      assert.match(end.stderr, /the frontier database at 127\.0\.0\.1:\d+ is back after [0-9.]+ s; going on/);
      assert.match(end.stderr, new RegExp(`the crawl is done: ${HOSTS * PAGES} pages in all`));
    }
    assert.ok(atStop > 0 && atStop < HOSTS * PAGES, `the database stopped mid-crawl (${atStop} pages saved then)`);
    assert.ok(hosts.sites.reduce((n, s) => n + s.requests.length, 0) > requestsAtStop, 'requests went on after the restart');
    assertSavedOnce(dirs, hosts.reachable);
    assertHostsPolite(hosts, DELAY * 1000, 'across the restart');
  });

  test('the database does not come back within --frontier-wait: exit 1 at once with one line; the same command, run again once it is back, finishes the crawl', { skip: pgSkipReason, timeout: 120_000 }, async (t) => {
    const cluster = await ownCluster(t);
    if (cluster === undefined) return;
    const hosts = await startSharedHosts(HOSTS, PAGES);
    t.after(() => hosts.close());
    // One pageDirectory for both: a page whose file was in place when its worker gave up, before the
    // database heard so, is saved again under the same ID by the worker that claims it after the lease
    // (in a directory of its own it would be there twice: see the report of this branch).
    const shared = tempDir();
    const dirs = [shared, shared];
    // A short lease: the claims the workers held when they gave up are taken again soon after the rerun starts.
    const flags = ['--frontier-wait', '1', '--lease', '2'];
    const workers = dirs.map((dir, i) => worker(cluster, hosts, dir, `worker-${i}`, flags));
    await midCrawl([shared], 1500);
    await cluster.stopServer();
    const stoppedAt = performance.now();
    const ends = await Promise.all(workers.map((w) => w.done));
    const took = performance.now() - stoppedAt;
    assert.ok(took < 8000, `both exited ${(took / 1000).toFixed(1)} s after the stop (--frontier-wait 1)`);
    const port = new URL(cluster.url).port;
    for (const [i, end] of ends.entries()) {
      assert.equal(end.code, 1, `worker ${i}: ${end.stderr}`);
      const lines = end.stderr.trimEnd().split('\n');
      const last = lines.at(-1) ?? '';
      assert.match(
        last,
        new RegExp(`^crawler: the frontier database at 127\\.0\\.0\\.1:${port} has been unreachable for [0-9.]+ s \\(.+\\); once it is back, run the same command again: the shared crawl is joined where it stands`),
      );
      assert.ok(lines.every((l) => l.startsWith('crawler: ')), `only the program's own lines: ${end.stderr}`);
      assert.doesNotMatch(end.stderr, /\n\s+at |Error:/, 'no stack trace');
    }
    assert.ok(savedIn([shared]) < HOSTS * PAGES, 'the crawl was not finished');
    await cluster.startServer();
    const again = await Promise.all(dirs.map((dir, i) => worker(cluster, hosts, dir, `worker-${i}-again`, flags).done));
    for (const [i, end] of again.entries()) assert.equal(end.code, 0, `worker ${i} again: ${end.stderr}`);
    assertSavedOnce([shared], hosts.reachable);
    assertHostsPolite(hosts, DELAY * 1000, 'across the stop and the rerun');
  });

  test('--frontier-wait takes a non-negative number of seconds: anything else is one line, exit 1, before any request', async (t) => {
    const hosts = await startSharedHosts(1, 1);
    t.after(() => hosts.close());
    for (const bad of ['-1', 'abc', '1s', '']) {
      const r = await runProgram('crawler', ['--frontier', 'postgresql://postgres@127.0.0.1:1/none', '--frontier-wait', bad, hosts.seed, tempDir(), '1']);
      assert.equal(r.code, 1, `--frontier-wait ${JSON.stringify(bad)}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^crawler: --frontier-wait must be a non-negative number of seconds, got "${bad}"\n`));
      assert.ok(r.stderr.trimEnd().split('\n').length <= 2, `one line (and the usage hint): ${r.stderr}`);
    }
    const help = await runProgram('crawler', ['--help']);
    assert.match(help.stdout, /--frontier-wait SECONDS\b/, '--help explains the flag');
    assert.equal(hosts.sites[0]?.requests.length, 0, 'nothing was requested');
  });
});
