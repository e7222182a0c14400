/**
 * A site of several loopback hosts (127.0.0.1, 127.0.0.2, ... on one port)
 * for shared-crawl tests: each host serves /p0.html .. /p(N-1).html and an
 * allow-all robots.txt; the seed (/p0.html on the first host) links to every
 * page of every host, so after the seed all hosts have work at once and
 * every worker competes for every host. With maxDepth 1 a full crawl saves
 * hosts x pages pages.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { assertStartsApart } from './arrivals.js';
import { readPages } from './page-files.js';
import { page, startSite, type Route, type SiteServer } from './site-server.js';

export interface SharedHosts {
  sites: SiteServer[];
  /** The --internal flags that make the hosts one crawl. */
  internal: string[];
  seed: string;
  /** Every page a full crawl (maxDepth 1) saves, sorted. */
  reachable: string[];
  close(): Promise<void>;
}

/** Starts `hosts` loopback hosts with `pages` pages each (see the file comment). */
export async function startSharedHosts(hosts: number, pages: number): Promise<SharedHosts> {
  const first = await startSite(new Map<string, Route>(), '127.0.0.1');
  const sites = [first];
  for (let h = 2; h <= hosts; h++) sites.push(await startSite(new Map<string, Route>(), `127.0.0.${h}`, first.port));
  const reachable: string[] = [];
  for (const s of sites) for (let p = 0; p < pages; p++) reachable.push(`${s.origin}/p${p}.html`);
  for (const site of sites) {
    site.routes.set('/robots.txt', { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\n' });
    for (let p = 0; p < pages; p++) {
      const links = site === first && p === 0 ? reachable : [`/p${(p + 1) % pages}.html`];
      site.routes.set(`/p${p}.html`, { body: page(`${site.host} page ${p}`, links) });
    }
  }
  // Warm each server up (its parser compiled) so arrival times are those of the requests.
  for (const s of sites) {
    await fetch(`${s.origin}/robots.txt`).then((r) => r.text());
    s.requests.length = 0;
  }
  return {
    sites,
    internal: sites.flatMap((s) => ['--internal', s.origin]),
    seed: `${first.origin}/p0.html`,
    reachable: reachable.sort(),
    close: async () => void (await Promise.all(sites.map((s) => s.close()))),
  };
}

/** Every reachable page saved exactly once across `dirs`, IDs 1..N with no gap or duplicate, no temporary file. */
export function assertSavedOnce(dirs: readonly string[], reachable: readonly string[]): void {
  const saved = dirs.flatMap((d) => readPages(d));
  assert.deepEqual(saved.map((p) => p.url).sort(), reachable, 'each reachable page saved exactly once, across all workers');
  assert.deepEqual(
    saved.map((p) => p.id).sort((a, b) => a - b),
    reachable.map((_, i) => i + 1),
    'IDs 1..N with no gap and no duplicate',
  );
  for (const d of dirs) assert.deepEqual(readdirSync(d).filter((n) => n.startsWith('.tmp')), [], `no temporary file in ${d}`);
}

/** At each host's server, no two request starts certainly closer than `ms` (arrivals.ts); `what` labels the run. */
export function assertHostsPolite(hosts: SharedHosts, ms: number, what: string): void {
  for (const site of hosts.sites) assertStartsApart(site.requests, ms, `${what}: ${site.host}`, (i) => site.requests[i]?.path ?? '');
}
