/**
 * The host resolver (src/http/host-resolver.ts) over a backend of the test's
 * own: each name looked up once (answers for their TTL, failures for the
 * failure TTL), callers sharing a lookup under way, every lookup bounded,
 * RFC 6761's special names answered without a lookup, failures worded, and
 * slow lookups never queued behind one another.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectError } from '../../src/http/connect-error.js';
import { HostResolver, type LookupAnswer, type LookupBackend } from '../../src/http/host-resolver.js';

const V4 = (address: string): LookupAnswer => ({ addresses: [{ address, family: 4 }] });
const failure = (code: string): Error => Object.assign(new Error(code), { code });

/** A backend that answers by `script` and counts its lookups per name (and the most under way at once). */
function counting(script: (name: string) => Promise<LookupAnswer>): LookupBackend & { calls: string[]; most: number } {
  let running = 0;
  const backend = Object.assign(
    async (name: string): Promise<LookupAnswer> => {
      backend.calls.push(name);
      running++;
      backend.most = Math.max(backend.most, running);
      try {
        return await script(name);
      } finally {
        running--;
      }
    },
    { calls: [] as string[], most: 0 },
  );
  return backend;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('a name is looked up once: callers at the same time share the lookup, later ones get the answer kept', async () => {
  const backend = counting(async () => (await sleep(20), V4('192.0.2.7')));
  const r = new HostResolver({ backend });
  const at = await Promise.all(Array.from({ length: 50 }, () => r.resolve('site.example')));
  assert.ok(at.every((a) => a[0]?.address === '192.0.2.7'));
  assert.deepEqual(await r.resolve('SITE.example.'), [{ address: '192.0.2.7', family: 4 }], 'the same name in other case, with the final dot');
  assert.deepEqual(backend.calls, ['site.example']);
  assert.equal(r.lookups, 1);
});

test('a name that cannot be resolved costs one lookup: every later caller gets the same ERR_DNS at once, worded', async () => {
  const backend = counting(async () => {
    throw failure('ENOTFOUND');
  });
  const r = new HostResolver({ backend });
  const errors: unknown[] = [];
  for (let i = 0; i < 100; i++) await r.resolve('dead.example').catch((e: unknown) => void errors.push(e));
  assert.equal(errors.length, 100);
  assert.deepEqual(backend.calls, ['dead.example']);
  const first = errors[0];
  assert.ok(first instanceof ConnectError);
  assert.equal(first.code, 'ERR_DNS');
  assert.equal(first.message, 'cannot resolve dead.example: host name not found');
  assert.equal(first.host, 'dead.example');
  assert.equal(first.port, undefined);
  assert.equal(first.systemCode, 'ENOTFOUND');
  assert.ok(errors.every((e) => e === first), 'the very error, remembered');
});

test('each failure is worded: offline (EAI_AGAIN) is "cannot resolve" too; no address is ENODATA', async () => {
  const cases: Array<[string, Promise<LookupAnswer>, RegExp]> = [
    ['eai-again.example', Promise.reject(failure('EAI_AGAIN')), /^cannot resolve eai-again\.example: no name server answered/],
    ['servfail.example', Promise.reject(failure('ESERVFAIL')), /^cannot resolve servfail\.example: the name server failed$/],
    ['nodata.example', Promise.resolve({ addresses: [] }), /^cannot resolve nodata\.example: the host name has no address$/],
    ['odd.example', Promise.reject(failure('EWHATEVER')), /^cannot resolve odd\.example: lookup failed: EWHATEVER$/],
  ];
  for (const [name, answer, words] of cases) {
    answer.catch(() => undefined);
    const r = new HostResolver({ backend: () => answer });
    await assert.rejects(r.resolve(name), (e: unknown) => e instanceof ConnectError && e.code === 'ERR_DNS' && words.test(e.message));
  }
});

test('answers are kept for their TTL, held between the least and the most; failures for the failure TTL', async () => {
  let now = 0;
  const backend = counting(async (name) => (name.startsWith('dead') ? Promise.reject(failure('ENOTFOUND')) : { ...V4('192.0.2.1'), ttlMs: name === 'short.example' ? 1 : name === 'long.example' ? 86_400_000 : 30_000 }));
  const r = new HostResolver({ backend, now: () => now, minTtlMs: 10_000, maxTtlMs: 60_000, failureTtlMs: 5_000 });
  const ask = (name: string): Promise<unknown> => r.resolve(name).catch(() => undefined);
  for (const name of ['ttl.example', 'short.example', 'long.example', 'dead.example']) await ask(name);
  now = 4_999;
  for (const name of ['ttl.example', 'short.example', 'long.example', 'dead.example']) await ask(name);
  assert.equal(backend.calls.length, 4, 'all kept at 4.999 s');
  now = 5_001;
  await ask('dead.example');
  assert.equal(backend.calls.at(-1), 'dead.example', 'a failure is asked again after the failure TTL');
  now = 10_001;
  await ask('short.example');
  await ask('ttl.example');
  assert.equal(backend.calls.at(-1), 'short.example', 'a TTL of 1 ms is held to the least, 10 s; 30 s is kept');
  now = 60_001;
  await ask('long.example');
  assert.equal(backend.calls.at(-1), 'long.example', 'a TTL of a day is held to the most, 60 s');
  assert.deepEqual(backend.calls.slice(4), ['dead.example', 'short.example', 'long.example']);
});

test('a lookup is bounded: past lookupTimeoutMs it fails as unanswered, the backend is told to give up, and the failure is kept', async () => {
  let signal: AbortSignal | undefined;
  let calls = 0;
  const r = new HostResolver({
    lookupTimeoutMs: 100,
    backend: (_name, s) => {
      calls++;
      signal = s;
      return new Promise<LookupAnswer>(() => undefined);
    },
  });
  const started = performance.now();
  await assert.rejects(r.resolve('slow.example'), (e: unknown) => e instanceof ConnectError && e.code === 'ERR_DNS' && e.message === 'cannot resolve slow.example: no answer within 0.1 s');
  const took = performance.now() - started;
  assert.ok(took >= 95 && took < 2000, `${took} ms`);
  assert.equal(signal?.aborted, true);
  await assert.rejects(r.resolve('slow.example'), /no answer within/);
  assert.equal(calls, 1, 'the timeout is remembered like any failure');
});

test('RFC 6761: localhost names are the loopback addresses and .invalid names do not exist, without a lookup', async () => {
  const backend = counting(async () => V4('192.0.2.99'));
  const r = new HostResolver({ backend });
  const loopback = [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }];
  assert.deepEqual(await r.resolve('localhost'), loopback);
  assert.deepEqual(await r.resolve('api.LOCALHOST'), loopback);
  for (const name of ['no-such-host.invalid', 'x.y.INVALID.', 'invalid']) {
    await assert.rejects(r.resolve(name), (e: unknown) => e instanceof ConnectError && e.code === 'ERR_DNS' && e.message === `cannot resolve ${name}: host name not found`);
  }
  assert.deepEqual(backend.calls, []);
  assert.deepEqual(await r.resolve('localhost.example'), [{ address: '192.0.2.99', family: 4 }], 'only the localhost domain itself');
});

test('at most maxEntries names are remembered, the oldest dropped first', async () => {
  const backend = counting(async () => V4('192.0.2.5'));
  const r = new HostResolver({ backend, maxEntries: 2 });
  for (const name of ['a.example', 'b.example', 'c.example', 'b.example', 'c.example', 'a.example']) await r.resolve(name);
  assert.deepEqual(backend.calls, ['a.example', 'b.example', 'c.example', 'a.example']);
});

test('slow lookups do not queue: 200 names whose lookups take 100 ms each are all under way at once', async () => {
  const backend = counting(async (name) => (await sleep(100), V4(`192.0.2.${name.length}`)));
  const r = new HostResolver({ backend });
  const started = performance.now();
  await Promise.all(Array.from({ length: 200 }, (_, i) => r.resolve(`host-${i}.example`)));
  const took = performance.now() - started;
  assert.equal(backend.calls.length, 200);
  assert.equal(backend.most, 200, 'every lookup under way at once');
  // Four at a time (libuv's threads) would take 5 s; one at a time 20 s.
  assert.ok(took >= 99 && took < 2000, `${took.toFixed(0)} ms for 200 lookups of 100 ms`);
});
