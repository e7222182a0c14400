/**
 * The default connector (src/http/socket-connector.ts) under the HTTP
 * client, against servers on 127.0.0.1 reached by made-up names through an
 * injected resolver: names resolved once, IP literals never, and each way
 * of not reaching a host a ConnectError whose message names the cause in
 * words (refused, not resolved, TLS spoken to a plain port, a certificate
 * not trusted, no answer in time).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpClient } from '../../src/http/client.js';
import { ConnectError } from '../../src/http/connect-error.js';
import { HostResolver, type LookupAnswer, type LookupBackend } from '../../src/http/host-resolver.js';
import { socketConnector } from '../../src/http/socket-connector.js';
import { parseHttpUrl } from '../../src/url/http-url.js';
import { startRaw } from '../helpers/raw-server.js';
import { refusedPort } from '../helpers/refused-port.js';
import { startSite, startTlsSite } from '../helpers/site-server.js';

const LOOPBACK: LookupAnswer = { addresses: [{ address: '127.0.0.1', family: 4 }] };

/** A client whose names `backend` resolves; `lookups` counts what it was asked. */
function client(backend: LookupBackend, extra: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}): { c: HttpClient; resolver: HostResolver } {
  const resolver = new HostResolver({ backend });
  const c = new HttpClient({ userAgent: 'connector-test', connectTimeoutMs: 2000, idleTimeoutMs: 2000, responseTimeoutMs: 4000, connector: socketConnector(resolver), ...extra });
  return { c, resolver };
}

/** Rejects with a ConnectError of `code` whose message is `message`; resolves with it. */
async function connectError(p: Promise<unknown>, code: string, message: RegExp): Promise<ConnectError> {
  let caught: unknown;
  await assert.rejects(p, (e: unknown) => {
    caught = e;
    return true;
  });
  assert.ok(caught instanceof ConnectError, `a ConnectError: ${String(caught)}`);
  assert.equal(caught.code, code);
  assert.match(caught.message, message);
  return caught;
}

test('a name is resolved by the injected resolver once, over any number of connections; an IP literal is never looked up', async (t) => {
  const site = await startSite({ '/a': { body: 'a' }, '/b': { body: 'b' } });
  t.after(() => site.close());
  const asked: string[] = [];
  const { c, resolver } = client(async (name) => (asked.push(name), LOOPBACK), { keepAlive: false });
  t.after(() => c.close());
  for (const path of ['/a', '/b', '/a']) {
    const res = await c.fetch(parseHttpUrl(`http://made-up-name.test:${site.port}${path}`));
    assert.equal(res.status, 200);
  }
  assert.equal((await c.fetch(parseHttpUrl(`http://127.0.0.1:${site.port}/b`))).status, 200);
  assert.equal(site.connections, 4, 'a connection per request (no keep-alive)');
  assert.deepEqual(asked, ['made-up-name.test']);
  assert.equal(resolver.lookups, 1);
});

test('a name that does not resolve: ERR_DNS "cannot resolve NAME: host name not found", no connection tried', async () => {
  const { c } = client(async () => {
    throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
  });
  const e = await connectError(c.fetch(parseHttpUrl('http://dead.test:8080/x')), 'ERR_DNS', /^cannot resolve dead\.test: host name not found$/);
  assert.equal(e.host, 'dead.test');
  assert.equal(e.port, undefined);
});

test('connection refused: ERR_CONNECT "cannot connect to HOST:PORT: connection refused", with the host and port', async () => {
  const port = await refusedPort();
  const { c } = client(async () => LOOPBACK);
  for (const host of ['127.0.0.1', 'named.test']) {
    const e = await connectError(c.fetch(parseHttpUrl(`http://${host}:${port}/`)), 'ERR_CONNECT', new RegExp(`^cannot connect to ${host.replace('.', '\\.')}:${port}: connection refused$`));
    assert.equal(e.systemCode, 'ECONNREFUSED');
    assert.equal(e.host, host);
    assert.equal(e.port, port);
  }
});

test('https to a port that speaks plain http: ERR_TLS "TLS handshake failed with HOST:PORT: the server did not answer in TLS"', async (t) => {
  const site = await startSite({ '/': { body: 'plain' } });
  t.after(() => site.close());
  const { c } = client(async () => LOOPBACK);
  const e = await connectError(c.fetch(parseHttpUrl(`https://127.0.0.1:${site.port}/`)), 'ERR_TLS', new RegExp(`^TLS handshake failed with 127\\.0\\.0\\.1:${site.port}: the server did not answer in TLS$`));
  assert.equal(e.systemCode, 'ERR_SSL_WRONG_VERSION_NUMBER');
});

test('a server that closes during the handshake: ERR_TLS, "the server closed the connection during the handshake"', async (t) => {
  const server = await startRaw((conn) => void conn.socket.once('data', () => conn.socket.destroy()));
  t.after(() => server.close());
  const { c } = client(async () => LOOPBACK);
  await connectError(c.fetch(parseHttpUrl(`https://127.0.0.1:${server.port}/`)), 'ERR_TLS', /^TLS handshake failed with 127\.0\.0\.1:\d+: the server closed the connection during the handshake$/);
});

test('a certificate no authority signed: ERR_TLS naming it self-signed; accepted when not verified', async (t) => {
  const site = await startTlsSite({ '/': { body: 'secret' } });
  t.after(() => site.close());
  const { c } = client(async () => LOOPBACK);
  const e = await connectError(c.fetch(parseHttpUrl(`https://localhost:${site.port}/`)), 'ERR_TLS', /^TLS handshake failed with localhost:\d+: self-signed certificate$/);
  assert.equal(e.systemCode, 'DEPTH_ZERO_SELF_SIGNED_CERT');
  const { c: insecure } = client(async () => LOOPBACK, { rejectUnauthorized: false });
  t.after(() => insecure.close());
  assert.equal((await insecure.fetch(parseHttpUrl(`https://localhost:${site.port}/`))).body.toString(), 'secret');
});

test('the connect timeout covers the lookup: a resolver that never answers fails within it, as a name not resolved', async () => {
  const { c } = client(() => new Promise<LookupAnswer>(() => undefined), { connectTimeoutMs: 150 });
  const started = performance.now();
  await connectError(c.fetch(parseHttpUrl('http://stuck.test/')), 'ERR_DNS', /^cannot resolve stuck\.test: no answer within 150 ms \(connect timeout\)$/);
  const took = performance.now() - started;
  assert.ok(took >= 145 && took < 2000, `${took.toFixed(0)} ms`);
});

test('a TLS handshake the server never answers: ERR_CONNECT_TIMEOUT saying so', async (t) => {
  const server = await startRaw(() => undefined);
  t.after(() => server.close());
  const { c } = client(async () => LOOPBACK, { connectTimeoutMs: 150 });
  await connectError(c.fetch(parseHttpUrl(`https://127.0.0.1:${server.port}/`)), 'ERR_CONNECT_TIMEOUT', /^TLS handshake failed with 127\.0\.0\.1:\d+: not done within 150 ms \(connect timeout\)$/);
});

test('200 hosts whose lookups take 100 ms each: the lookups run at once, not one or four at a time', async (t) => {
  const site = await startSite({ '/': { body: 'ok' } });
  t.after(() => site.close());
  let lookups = 0;
  let inFlight = 0;
  let most = 0;
  const { c } = client(async () => {
    lookups++;
    most = Math.max(most, ++inFlight);
    await new Promise((r) => setTimeout(r, 100));
    inFlight--;
    return LOOPBACK;
  });
  t.after(() => c.close());
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => c.fetch(parseHttpUrl(`http://host-${i}.test:${site.port}/`))));
  const took = performance.now() - started;
  assert.ok(answers.every((r) => r.status === 200));
  assert.equal(lookups, 200);
  // Counted, not timed: the load of a busy machine cannot make this pass or fail.
  assert.ok(most > 4, `at most ${most} lookups at once`);
  // One at a time would take 200 x 100 ms: the slack is for a loaded machine.
  assert.ok(took >= 100 && took < 15_000, `${took.toFixed(0)} ms`);
});
