/**
 * The default lookup backend (src/http/system-lookup.ts) against a name
 * server of the test's own on loopback (test/helpers/dns-server.ts): the
 * hosts file answers first, DNS through c-ares next, and slow name servers
 * do not make lookups queue behind libuv's four threads. No query leaves
 * the machine: every Resolver here asks only the test's server, and the
 * getaddrinfo fallback is asked only for a name of the machine's hosts file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HostResolver } from '../../src/http/host-resolver.js';
import { parseHostsFile, systemLookup } from '../../src/http/system-lookup.js';
import { startDnsServer, TYPE_A, TYPE_AAAA, type DnsQuestion, type DnsReply, type DnsServer } from '../helpers/dns-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const dirs = useTempDirs('system-lookup-');
const never = new AbortController().signal;

async function server(t: import('node:test').TestContext, script: (q: DnsQuestion) => DnsReply): Promise<DnsServer> {
  const s = await startDnsServer(script);
  t.after(() => s.close());
  return s;
}

/** A hosts file of the test's own (the machine's is not read). */
function hostsFile(text: string): string {
  const path = join(dirs.temp(), 'hosts');
  writeFileSync(path, text);
  return path;
}

test('the hosts file: address then names, comments and blank lines skipped, IPv4 first, names in any case', () => {
  const hosts = parseHostsFile('# a comment\n\n::1 both.test\n127.0.0.1\tBoth.test alias.test # trailing\n127.0.1.1 both.test\nnot-an-ip ignored.test\nfe80::1%eth0 scoped.test\n');
  assert.deepEqual(hosts.get('both.test'), [
    { address: '127.0.0.1', family: 4 },
    { address: '127.0.1.1', family: 4 },
    { address: '::1', family: 6 },
  ]);
  assert.deepEqual(hosts.get('alias.test'), [{ address: '127.0.0.1', family: 4 }]);
  assert.equal(hosts.get('ignored.test'), undefined);
  assert.deepEqual(hosts.get('scoped.test'), [{ address: 'fe80::1%eth0', family: 6 }]);
});

test('a name of the hosts file is answered from it; DNS is not asked', async (t) => {
  const dns = await server(t, () => ({ addresses: ['192.0.2.1'] }));
  const lookup = systemLookup({ servers: [dns.address], hostsFile: hostsFile('127.0.0.9 listed.test\n'), fallback: false });
  assert.deepEqual(await lookup('listed.test', never), { addresses: [{ address: '127.0.0.9', family: 4 }] });
  assert.deepEqual(dns.questions, []);
});

test('DNS through c-ares: A and AAAA asked, IPv4 first, the least TTL kept; NXDOMAIN is ENOTFOUND', async (t) => {
  const dns = await server(t, (q) => (q.name === 'gone.test' ? { rcode: 3 } : q.type === TYPE_A ? { addresses: ['127.0.0.5'], ttl: 120 } : { addresses: ['::1'], ttl: 60 }));
  const lookup = systemLookup({ servers: [dns.address], hostsFile: hostsFile(''), fallback: false });
  assert.deepEqual(await lookup('both.test', never), { addresses: [{ address: '127.0.0.5', family: 4 }, { address: '::1', family: 6 }], ttlMs: 60_000 });
  assert.deepEqual(dns.questions.map((q) => `${q.name} ${q.type}`).sort(), [`both.test ${TYPE_A}`, `both.test ${TYPE_AAAA}`]);
  await assert.rejects(lookup('gone.test', never), { code: 'ENOTFOUND' });
});

test('RFC 8305 §3: once the A answer is in, a silent AAAA is awaited 50 ms, not until c-ares gives up (seconds)', async (t) => {
  const dns = await server(t, (q) => (q.type === TYPE_A ? { addresses: ['127.0.0.6'] } : 'drop'));
  const lookup = systemLookup({ servers: [dns.address], hostsFile: hostsFile(''), fallback: false });
  const started = performance.now();
  assert.deepEqual((await lookup('v4only.test', never)).addresses, [{ address: '127.0.0.6', family: 4 }]);
  const took = performance.now() - started;
  assert.ok(took >= 45 && took < 1000, `${took.toFixed(0)} ms`);
});

test('a name DNS does not know is asked of getaddrinfo (which reads nsswitch): localhost from the machine\'s hosts file', async (t) => {
  const dns = await server(t, () => ({ rcode: 3 }));
  // Our own hosts file is empty, so only getaddrinfo can find it.
  const lookup = systemLookup({ servers: [dns.address], hostsFile: hostsFile('') });
  const { addresses } = await lookup('localhost', never);
  assert.ok(addresses.some((a) => a.address === '127.0.0.1' || a.address === '::1'), JSON.stringify(addresses));
  assert.ok(dns.questions.length >= 1, 'DNS was asked first');
  const without = systemLookup({ servers: [dns.address], hostsFile: hostsFile(''), fallback: false });
  await assert.rejects(without('localhost', never), { code: 'ENOTFOUND' });
});

test('slow name servers do not queue lookups: 200 names answered 100 ms late take well under 200 / 4 x 100 ms', async (t) => {
  const dns = await server(t, (q) => (q.type === TYPE_A ? { delayMs: 100, addresses: ['127.0.0.1'] } : { delayMs: 100 }));
  const resolver = new HostResolver({ backend: systemLookup({ servers: [dns.address], hostsFile: hostsFile(''), fallback: false }) });
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => resolver.resolve(`host-${i}.slow.test`)));
  const took = performance.now() - started;
  assert.ok(answers.every((a) => a[0]?.address === '127.0.0.1'));
  const names = new Set(dns.questions.filter((q) => q.type === TYPE_A).map((q) => q.name));
  assert.equal(names.size, 200, 'each name asked');
  // The server held every answer 100 ms; four lookups at a time would take 5 s, one at a time 20 s.
  assert.ok(took >= 100 && took < 3000, `${took.toFixed(0)} ms for 200 lookups of 100 ms`);
});
