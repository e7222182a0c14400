/**
 * The SQLite shared frontier's hosts' min_depth, which its claims find the
 * next host by (index hosts_turn): after every call of a long random mix of
 * claims, completions with links, retries, releases and leases that run out
 * (two handles on one file, a clock the test moves), each host's min_depth
 * is exactly the least depth of its waiting URLs, NULL when none wait.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { SqliteClaimStore } from '../../src/frontier/claim-sqlite.js';
import type { Claim, ClaimEntry } from '../../src/frontier/claim-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs();
const origin = (i: number): string => `http://127.0.1.${1 + i}:8000`;
const entry = (i: number, path: string, depth: number): ClaimEntry => ({ key: `${origin(i)}${path}`, url: `${origin(i)}${path}`, depth, origin: origin(i) });

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

test('SQLite: every host’s min_depth is exactly its least waiting depth after every call of a random mix', async (t) => {
  const file = `${dirs.temp('turns-')}/frontier.db`;
  let clock = 1_000_000;
  const now = (): number => clock;
  const stores = [new SqliteClaimStore(file, { now }), new SqliteClaimStore(file, { now })];
  const check = new Database(file, { readonly: true });
  t.after(async () => {
    check.close();
    for (const s of stores) await s.close();
  });
  const hosts = 30;
  const maxDepth = 6;
  for (const s of stores) await s.open({ seed: entry(0, '/', 0), maxDepth, delayMs: 0, robots: false });
  const wrong = check.prepare(`SELECT h.origin, h.min_depth, (SELECT min(q.depth) FROM queue q WHERE q.host_id = h.id AND q.state = 0) AS least
    FROM hosts h WHERE h.min_depth IS NOT (SELECT min(q.depth) FROM queue q WHERE q.host_id = h.id AND q.state = 0)`);
  const next = random(11);
  const out: Array<{ store: SqliteClaimStore; claim: Claim }> = [];
  let claims = 0;
  const kinds = { saved: 0, retried: 0, released: 0, expired: 0 };
  for (let step = 0; step < 3000; step++) {
    const store = stores[step % 2]!;
    const roll = next();
    if (out.length === 0 || roll < 0.45) {
      const r = await store.claim({ leaseMs: 50, strictBfs: next() < 0.3 });
      if ('done' in r) break;
      if ('claim' in r) {
        claims++;
        out.push({ store, claim: r.claim });
      } else clock += 1;
    } else {
      const [{ store: owner, claim }] = out.splice(Math.floor(next() * out.length), 1) as [{ store: SqliteClaimStore; claim: Claim }];
      const what = next();
      if (what < 0.1) {
        await owner.release(claim);
        kinds.released++;
      } else if (what < 0.2) {
        await owner.complete(claim, { startedAt: clock, links: [], saved: false, retry: true });
        kinds.retried++;
      } else if (what < 0.27) {
        clock += 60; // its lease runs out: a later claim reaps it (its completion, never made, is lost)
        kinds.expired++;
      } else {
        const depth = claim.depth + 1;
        const links = depth > maxDepth ? [] : Array.from({ length: 5 }, () => entry(Math.floor(next() * hosts), `/p${Math.floor(next() * 25)}`, depth));
        const r = await owner.complete(claim, { startedAt: clock, links, saved: true });
        if (r.ok) await owner.published([claim]);
        kinds.saved++;
      }
    }
    const bad = wrong.all() as Array<{ origin: string; min_depth: number | null; least: number | null }>;
    assert.deepEqual(bad, [], `after step ${step}`);
  }
  assert.ok(claims > 500 && kinds.saved > 300 && kinds.retried > 30 && kinds.released > 30 && kinds.expired > 20, JSON.stringify({ claims, ...kinds }));
});
