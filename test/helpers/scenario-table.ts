/**
 * The scheduler scenario table's driver: each scenario is one test, with one
 * subtest per runner (scenario-runs.ts), so a drift shows as the runner that
 * fails. Every run is compared with what the scenario pins (the events, the
 * stderr notes, the URLs never requested) and with the private crawl's run
 * (the pages saved, the CS50 log, the requests the servers got). The
 * private crawl keeps the order and its page IDs; one worker keeps each
 * host's order (hosts interleave as their turns come); two workers at once
 * are compared order aside. Page IDs may differ between runners (the README
 * says so), so only the private crawl's are compared.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pgSkipReason } from './postgres.js';
import { RUNNERS, runWith, type Run, type RunFlags, type RunnerName } from './scenario-runs.js';
import { startScenarioSites, type SiteSpec } from './scenario-sites.js';
import { useTempDirs } from './temp-dirs.js';

export { page } from './site-server.js';
export type { Route } from './site-server.js';

export interface Scenario extends RunFlags, SiteSpec {
  name: string;
  /** The events every run must tell (the origins named H, O and R), in order unless `unordered`. */
  expect: string[];
  /** The stderr notes every run must print (default none). */
  notes?: string[];
  /** Requests (`NAME METHOD PATH`) no run may make; with them, every run's set of requests is the private crawl's. */
  never?: string[];
  /** The events, log and notes are compared order aside in every run (lanes and a window finish in their own order). */
  unordered?: boolean;
  /** The final answers (`response` events) every run gets, when the scenario is about their number. */
  answers?: number;
}

export const robotsTxt = (text: string): { headers: Record<string, string>; body: string } => ({ headers: { 'content-type': 'text/plain' }, body: text });
export const html = (body: string, status = 200): { status: number; headers: Record<string, string>; body: string } => ({ status, headers: { 'content-type': 'text/html' }, body });

const sorted = (a: readonly string[]): string[] => [...a].sort();
const unique = (a: readonly string[]): string[] => [...new Set(a)].sort();
const urls = (saved: readonly string[]): string[] => sorted(saved.map((s) => s.replace(/^#\d+ /, '')));
/** Events without page IDs: between workers, which page gets which ID is whoever saves first (the README names IDs as what may differ). */
const withoutIds = (events: readonly string[]): string[] => events.map((e) => (e.startsWith('saved ') ? e.replace(/ #\d+$/, '') : e));

/**
 * The events of several workers, order aside: each worker learns a host's
 * robots.txt rules for itself (from the store, or by fetching them), so a
 * `robots` line is counted once.
 */
function workersEvents(events: readonly string[]): string[] {
  const robots = new Set(events.filter((e) => e.startsWith('robots ')));
  return sorted([...events.filter((e) => !e.startsWith('robots ')), ...robots]);
}

/** The first origin a line names (H, O, R, ...), or '' for none. */
const hostOf = (line: string): string => /(?:^|[ (])([A-Z])(?:\/| |$)/.exec(line)?.[1] ?? '';
/**
 * A worker's lines, host by host, each host's in its order: a worker takes
 * whichever host's turn comes first, so hosts interleave as they will (the
 * README names the order of log lines as what may differ); within a host,
 * the order is breadth-first as in a private crawl.
 */
const byHost = (a: readonly string[]): string[] => [...a].sort((x, y) => (hostOf(x) < hostOf(y) ? -1 : hostOf(x) > hostOf(y) ? 1 : 0));

/** How a run is compared: as the private crawl ran (in order, with IDs), host by host (one worker), or order aside (two workers, or an unordered row). */
type Order = 'exact' | 'by host' | 'aside';

function orderOf(scenario: Scenario, runner: RunnerName): Order {
  if (scenario.unordered === true || runner === 'two workers on PostgreSQL') return 'aside';
  return runner === 'private' ? 'exact' : 'by host';
}

/** Lines as `order` compares them. */
function arrange(a: readonly string[], order: Order): string[] {
  return order === 'exact' ? [...a] : order === 'by host' ? byHost(a) : sorted(a);
}

/** What a run is compared on. */
function view(run: Run, order: Order) {
  const events = order === 'exact' ? [...run.events] : order === 'by host' ? byHost(withoutIds(run.events)) : workersEvents(withoutIds(run.events));
  return { events, notes: arrange(run.notes, order), log: arrange(run.log, order), saved: order === 'exact' ? [...run.saved] : urls(run.saved) };
}

/** Registers one test per scenario, run through every runner. */
export function scenarioTable(scenarios: readonly Scenario[]): void {
  const dirs = useTempDirs('polite-crawler-scenario-');
  for (const scenario of scenarios) {
    test(`one crawl, whatever runs it: ${scenario.name}`, async (t) => {
      let reference: Run | undefined;
      for (const runner of RUNNERS) {
        const skip = runner.includes('PostgreSQL') ? pgSkipReason : undefined;
        await t.test(runner, { skip }, async () => {
          const run = await runOnce(scenario, runner, () => dirs.temp());
          if (runner === 'private') reference = run;
          check(scenario, runner, run, reference);
        });
      }
    });
  }
}

async function runOnce(scenario: Scenario, runner: RunnerName, temp: () => string): Promise<Run> {
  const sites = await startScenarioSites(scenario);
  try {
    return await runWith(runner, scenario, sites, temp);
  } finally {
    await sites.close();
  }
}

function check(scenario: Scenario, runner: RunnerName, run: Run, reference: Run | undefined): void {
  const order = orderOf(scenario, runner);
  // What the scenario pins, and (the pages, the log) what the private crawl did.
  const pinned = { events: scenario.expect, notes: scenario.notes ?? [] };
  const expected = {
    events: order === 'exact' ? [...pinned.events] : arrange(withoutIds(pinned.events), order),
    notes: arrange(pinned.notes, order),
    log: view(reference ?? run, order).log,
    saved: view(reference ?? run, order).saved,
  };
  const got = view(run, order);
  const never = (scenario.never ?? []).filter((r) => run.requests.includes(r));
  const answers = run.events.filter((e) => e.startsWith('response ')).length;
  assert.deepEqual(
    { ...got, neverRequested: never, ...(scenario.answers === undefined ? {} : { answers }) },
    { ...expected, neverRequested: [], ...(scenario.answers === undefined ? {} : { answers: scenario.answers }) },
    `${runner}: the events, notes, log and pages must be the private crawl's, as the spec has them`,
  );
  if (scenario.never !== undefined && reference !== undefined) {
    assert.deepEqual(unique(run.requests), unique(reference.requests), `${runner}: the servers must get the requests the private crawl made`);
  }
}
