/**
 * The Worker of a shared crawl, in process, over the in-memory ClaimStore:
 * two workers split one crawl, a lost lease saves nothing, a stop signal
 * gives the claim back, a redirect's target is queued at the same depth, a
 * completion carries only the links the store may not have.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import type { CrawlEvent } from '../../src/engine/events.js';
import { MemoryClaimStore } from '../../src/frontier/claim-memory.js';
import { lostLease, type ClaimStore } from '../../src/frontier/claim-store.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { readPages } from '../helpers/page-files.js';
import { makeWorker } from '../helpers/worker-run.js';
import { page, startSite, type SiteServer } from '../helpers/site-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs();

async function site(t: import('node:test').TestContext): Promise<SiteServer> {
  const s = await startSite({
    '/': { body: page('home', ['/a.html', '/b.html', '/moved']) },
    '/a.html': { body: page('a', ['/c.html', '/']) },
    '/b.html': { body: page('b', ['/c.html']) },
    '/c.html': { body: page('c') },
    '/moved': { status: 301, headers: { location: '/d.html' } },
    '/d.html': { body: page('d') },
  });
  t.after(() => s.close());
  return s;
}

/** `inner` with some methods replaced. */
function wrap(inner: ClaimStore, over: Partial<ClaimStore>): ClaimStore {
  return {
    open: (c) => inner.open(c),
    add: (e) => inner.add(e),
    claim: (o, p) => inner.claim(o, p),
    complete: (c, x) => inner.complete(c, x),
    published: (c) => inner.published(c),
    release: (c) => inner.release(c),
    robotsFor: (o, d, x) => inner.robotsFor(o, d, x),
    turn: (o, x) => inner.turn(o, x),
    lastDocumentId: () => inner.lastDocumentId(),
    close: () => inner.close(),
    ...over,
  };
}

/** The link events of the page saved at `path`: a page's events come together, saved, scanning, then its links. */
function linksOfSaved(events: CrawlEvent[], path: string): Array<CrawlEvent & { type: 'link' }> | undefined {
  const at = events.findIndex((e) => e.type === 'saved' && e.url.path === path);
  if (at === -1 || events[at + 1]?.type !== 'scanning') return undefined;
  const links: Array<CrawlEvent & { type: 'link' }> = [];
  for (const e of events.slice(at + 2)) {
    if (e.type !== 'link') break;
    links.push(e);
  }
  return links;
}

test('two workers split one crawl: every page saved once, IDs 1..N across their directories; a redirect target is queued at the same depth', async (t) => {
  const s = await site(t);
  const seed = parseHttpUrl(`${s.origin}/`);
  const store = new MemoryClaimStore();
  const [d1, d2] = [dirs.temp('worker-a-'), dirs.temp('worker-b-')];
  const reports: CrawlEvent[] = [];
  const sums = await Promise.all([makeWorker(store, seed, d1, reports).run(), makeWorker(store, seed, d2, reports).run()]);
  assert.ok(sums.every((x) => x.crawlDone && x.stoppedBy === 'done'));
  const pages = [...readPages(d1), ...readPages(d2)];
  assert.deepEqual(pages.map((p) => p.url.slice(s.origin.length)).sort(), ['/', '/a.html', '/b.html', '/c.html', '/d.html']);
  assert.deepEqual(pages.map((p) => p.id).sort(), [1, 2, 3, 4, 5]);
  assert.equal(sums[0].saved + sums[1].saved, 5);
  assert.equal(pages.find((p) => p.url.endsWith('/d.html'))?.depth, 1, 'the redirect target keeps the depth of the link');
  const redirect = reports.find((r) => r.type === 'redirect');
  assert.deepEqual(redirect?.type === 'redirect' && { url: redirect.from.key, action: redirect.action }, { url: `${s.origin}/moved`, action: 'follow' });
  // Each URL requested once: the store gave each to one worker.
  assert.deepEqual([...s.paths()].sort(), ['/', '/a.html', '/b.html', '/c.html', '/d.html', '/moved']);
  const home = linksOfSaved(reports, '/');
  assert.deepEqual(home?.map((l) => l.action), ['follow', 'follow', 'follow']);
  const a = linksOfSaved(reports, '/a.html');
  assert.ok(['follow', 'duplicate'].includes(a?.[0]?.action ?? ''), '/c.html: queued by /a.html or by /b.html, whichever came first');
  assert.equal(a?.[1]?.action, 'duplicate', 'the seed is a duplicate');
});

test('a completion whose lease was lost saves nothing: the staged page is dropped, no page file, no temporary file', async (t) => {
  const s = await site(t);
  const seed = parseHttpUrl(`${s.origin}/`);
  const inner = new MemoryClaimStore();
  // A store that refuses the first completion, as it does when the lease ran out.
  let refused = false;
  const store = wrap(inner, {
    complete: async (claim: Parameters<ClaimStore['complete']>[0], c: Parameters<ClaimStore['complete']>[1]) => {
      if (!refused) {
        refused = true;
        await inner.release(claim);
        return lostLease(c);
      }
      return inner.complete(claim, c);
    },
  });
  const dir = dirs.temp('worker-lost-');
  const reports: CrawlEvent[] = [];
  await makeWorker(store, seed, dir, reports).run();
  assert.equal(reports.find((r) => r.type !== 'response')?.type, 'lost');
  assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.tmp')), []);
  // The URL went back to the store and was done again: saved once, ID 1..5 with no gap.
  assert.deepEqual(readPages(dir).map((p) => p.id), [1, 2, 3, 4, 5]);
  assert.equal(s.paths().filter((p) => p === '/').length, 2, 'the seed was fetched twice');
});

test('a worker that dies after the store recorded its page, before the page had its name: the URL is claimed again when the lease runs out and saved under the same ID', async (t) => {
  const s = await site(t);
  const seed = parseHttpUrl(`${s.origin}/`);
  const inner = new MemoryClaimStore();
  // The first saved completion is recorded, then the worker dies (as with SIGKILL while the answer is on its way).
  let died = false;
  const dying = wrap(inner, {
    complete: async (claim: Parameters<ClaimStore['complete']>[0], c: Parameters<ClaimStore['complete']>[1]) => {
      const result = await inner.complete(claim, c);
      if (c.saved && !died) {
        died = true;
        throw new Error('killed');
      }
      return result;
    },
  });
  const [dead, alive] = [dirs.temp('worker-dead-'), dirs.temp('worker-alive-')];
  await assert.rejects(makeWorker(dying, seed, dead, [], { leaseMs: 200 }).run(), /killed/);
  const sum = await makeWorker(inner, seed, alive, []).run();
  assert.ok(sum.crawlDone);
  assert.deepEqual(readdirSync(dead).filter((n) => n !== '.crawler'), [], 'the dead worker left no page file');
  const pages = readPages(alive);
  assert.deepEqual(pages.map((p) => p.url.slice(s.origin.length)).sort(), ['/', '/a.html', '/b.html', '/c.html', '/d.html']);
  assert.deepEqual(pages.map((p) => p.id).sort(), [1, 2, 3, 4, 5]);
  assert.equal(pages.find((p) => p.url === `${s.origin}/`)?.id, 1, 'the seed keeps the ID its first completion took');
  assert.equal(s.paths().filter((p) => p === '/').length, 2, 'the seed was fetched twice');
});

test('a stop signal between the claim and the request gives the claim back: nothing fetched, the URL waits for the next worker', async (t) => {
  const s = await site(t);
  const seed = parseHttpUrl(`${s.origin}/`);
  const inner = new MemoryClaimStore();
  const stop = new AbortController();
  // The signal arrives while the claim is on its way back.
  const store = wrap(inner, {
    claim: async (o: Parameters<ClaimStore['claim']>[0]) => {
      const r = await inner.claim(o);
      stop.abort();
      return r;
    },
  });
  const reports: CrawlEvent[] = [];
  const sum = await makeWorker(store, seed, dirs.temp('worker-stop-'), reports, { signal: stop.signal }).run();
  assert.equal(sum.stoppedBy, 'signal');
  assert.equal(sum.crawlDone, false);
  assert.deepEqual(s.paths(), []);
  assert.deepEqual(reports, []);
  const next = await inner.claim({ leaseMs: 1000, strictBfs: false });
  assert.ok('claim' in next && next.claim.key === seed.key, 'the seed waits again, not held by a lease');
});

test('a saved page is published with the lane\'s next claim: one call to the store per page besides its completion, not two', async (t) => {
  const s = await site(t);
  const seed = parseHttpUrl(`${s.origin}/`);
  const inner = new MemoryClaimStore();
  const calls = { claim: 0, withPublished: 0, published: 0 };
  const store = wrap(inner, {
    claim: (o, p = []) => (calls.claim++, (calls.withPublished += p.length), inner.claim(o, p)),
    published: (c) => ((calls.published += c.length), inner.published(c)),
  });
  const sum = await makeWorker(store, seed, dirs.temp('worker-publish-'), [], { lanes: 1 }).run();
  assert.ok(sum.crawlDone);
  assert.equal(sum.saved, 5);
  // Each of the 5 saves rides on a claim, and none costs a call of its own. How many claims in all
  // depends on timing (a claim may find nothing ready yet and wait): at least the 6 fetches and the last.
  assert.equal(calls.published, 0, 'no separate publish call');
  assert.equal(calls.withPublished, 5, 'each of the 5 saves rides on a claim');
  assert.ok(calls.claim >= 7, `6 claims (5 pages and the redirect) and the last one that says done, at least (${calls.claim})`);
});

test('a saved page is published at once: with the lane\'s next claim when it may ask at once, else on its own; every page published once', async (t) => {
  const paths = Array.from({ length: 8 }, (_, i) => `/p${i}.html`);
  const s = await startSite({ '/': { body: page('home', paths) }, ...Object.fromEntries(paths.map((p) => [p, { body: page(p) }])) });
  t.after(() => s.close());
  const seed = parseHttpUrl(`${s.origin}/`);
  const inner = new MemoryClaimStore(() => performance.now());
  const calls = { carried: 0, published: 0, startedAhead: -Infinity };
  const store = wrap(inner, {
    claim: (o, p = []) => {
      calls.carried += p.length;
      return inner.claim(o, p);
    },
    published: (c) => ((calls.published += c.length), inner.published(c)),
    complete: (c, x) => {
      // The store's clock is this process's: a request cannot have started after its completion (the
      // estimate may be later than the start by the claim call's own time: microseconds here).
      if (x.startedAt !== undefined) calls.startedAhead = Math.max(calls.startedAhead, x.startedAt - performance.now());
      return inner.complete(c, x);
    },
  });
  // One host at a 40 ms interval and 4 lanes: while the host waits its interval, one lane asks and the others wait in line.
  const sum = await makeWorker(store, seed, dirs.temp('worker-carry-'), [], { lanes: 4, delayMs: 40 }).run();
  assert.ok(sum.crawlDone);
  assert.equal(sum.saved, 9);
  // Carried by a claim or published on its own (the lanes wait in line while the host waits its interval): once each.
  assert.equal(calls.carried + calls.published, 9, `each saved page published once (${calls.carried} carried, ${calls.published} on their own)`);
  assert.ok(calls.published > 0, 'lanes waiting in line published on their own');
  assert.equal(new Set(s.paths()).size, s.paths().length, 'no page fetched twice');
  // A lane's turn in line is not part of the request's start: counted in, the host's next turn
  // moved later by each wait, and a crawl of 9 pages at 40 ms took 10 s.
  assert.ok(calls.startedAhead <= 5, `a request's start was put ${calls.startedAhead.toFixed(1)} ms after its completion`);
});

test('a lane that stops with a page saved publishes it on its own: no claim is left out, the next worker does not fetch it again', async (t) => {
  const s = await site(t);
  const seed = parseHttpUrl(`${s.origin}/`);
  const store = new MemoryClaimStore();
  const stop = new AbortController();
  const reports: CrawlEvent[] = [];
  // Stop once the seed is saved: the lane has its publication in hand and claims no more.
  const watch = new Proxy(reports, { get: (arr, k) => (k === 'push' ? (e: CrawlEvent) => (e.type === 'saved' && stop.abort(), arr.push(e)) : Reflect.get(arr, k)) });
  // A short lease: a seed left out would be claimed again (and fetched twice) after it.
  const first = await makeWorker(store, seed, dirs.temp('worker-stop-a-'), watch, { lanes: 1, signal: stop.signal, leaseMs: 300 }).run();
  assert.equal(first.stoppedBy, 'signal');
  assert.equal(first.saved, 1);
  await new Promise((r) => setTimeout(r, 400));
  const second = await makeWorker(store, seed, dirs.temp('worker-stop-b-'), [], { lanes: 1 }).run();
  assert.ok(second.crawlDone);
  assert.equal(second.saved, 4);
  assert.equal(s.paths().filter((p) => p === '/').length, 1, 'the seed was fetched once');
});

test('a link to a host whose robots.txt no worker has read yet is judged when it is found, as a private crawl judges it: IgnRobots, never Added then Failed', async (t) => {
  const b = await startSite({
    '/robots.txt': { body: 'User-agent: *\nDisallow: /private.html\n', headers: { 'content-type': 'text/plain' } },
    '/ok.html': { body: page('ok') },
    '/private.html': { body: page('private') },
  }, '127.0.0.2');
  t.after(() => b.close());
  const a = await startSite({ '/': { body: page('home', [`${b.origin}/private.html`, `${b.origin}/ok.html`]) } });
  t.after(() => a.close());
  const seed = parseHttpUrl(`${a.origin}/`);
  const events: CrawlEvent[] = [];
  const dir = dirs.temp('worker-robots-');
  await makeWorker(new MemoryClaimStore(), seed, dir, events, { robots: true, inScope: (u) => u.origin === a.origin || u.origin === b.origin }).run();
  const home = linksOfSaved(events, '/');
  assert.deepEqual(home?.map((l) => [l.url?.path, l.action]), [['/private.html', 'robots'], ['/ok.html', 'follow']]);
  assert.equal(events.filter((e) => e.type === 'disallowed').length, 0, 'nothing queued was found disallowed later');
  assert.deepEqual(b.paths(), ['/robots.txt', '/ok.html'], 'robots.txt once, and never the disallowed page');
  assert.deepEqual(readPages(dir).map((p) => p.url).sort(), [`${a.origin}/`, `${b.origin}/ok.html`]);
});

test('a completion carries only the links the store may not have: links it accepted once are left out after, and the log still says duplicate', async (t) => {
  const s = await startSite({
    '/': { body: page('home', ['/a.html', '/b.html', '/c.html']) },
    '/a.html': { body: page('a', ['/', '/b.html', '/c.html']) },
    '/b.html': { body: page('b', ['/', '/a.html', '/c.html']) },
    '/c.html': { body: page('c', ['/', '/a.html', '/b.html']) },
  });
  t.after(() => s.close());
  const seed = parseHttpUrl(`${s.origin}/`);
  const inner = new MemoryClaimStore();
  const carried = new Map<string, string[][]>();
  let lost = false;
  const store = wrap(inner, {
    complete: async (claim: Parameters<ClaimStore['complete']>[0], c: Parameters<ClaimStore['complete']>[1]) => {
      const path = claim.url.slice(s.origin.length);
      carried.set(path, [...(carried.get(path) ?? []), c.links.map((l) => l.key.slice(s.origin.length))]);
      // /a.html's first completion is refused (its lease ran out): nothing it carried is learnt.
      if (claim.url.endsWith('/a.html') && !lost) {
        lost = true;
        await inner.release(claim);
        return lostLease(c);
      }
      return inner.complete(claim, c);
    },
  });
  const reports: CrawlEvent[] = [];
  const sum = await makeWorker(store, seed, dirs.temp('worker-known-'), reports, { lanes: 1 }).run();
  assert.equal(sum.saved, 4);
  assert.deepEqual(carried.get('/'), [['/a.html', '/b.html', '/c.html']]);
  // /b.html and /c.html are known from the seed's page. The seed itself was queued by open, not by a
  // completion: /a.html's refused try carried it and learnt nothing, so its next try carries it again.
  assert.deepEqual(carried.get('/a.html'), [['/'], ['/']]);
  assert.deepEqual(carried.get('/b.html'), [[]]);
  assert.deepEqual(carried.get('/c.html'), [[]]);
  for (const path of ['/a.html', '/b.html', '/c.html']) {
    assert.deepEqual(linksOfSaved(reports, path)?.map((l) => l.action), ['duplicate', 'duplicate', 'duplicate'], `${path}: its links are told as before`);
  }
});
