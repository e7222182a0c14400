/**
 * The PostgreSQL store's fault model in process: which errors mean the
 * database went away (retried) and which do not (never retried), and how
 * the waiting behaves (back-off, one outage for all calls, the wait bound,
 * the message when it runs out), on an injected clock.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isCrawlerError } from '../../src/errors.js';
import { BACKOFF_MAX_MS, databaseAddress, isConnectionLoss, lossCause, Reconnect } from '../../src/frontier/pg-faults.js';

/** An error as pg reports one from the server (a SQLSTATE in `code`). */
function sqlError(code: string, message = `server error ${code}`): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

/** An error as node:net reports one (an errno name in `code`). */
function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -1, syscall: 'connect' });
}

describe('isConnectionLoss', () => {
  test('the server or the connection went away: retried', () => {
    for (const code of ['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006']) assert.equal(isConnectionLoss(sqlError(code)), true, code);
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']) assert.equal(isConnectionLoss(socketError(code)), true, code);
    for (const message of ['Connection terminated unexpectedly', 'Client has encountered a connection error and is not queryable', 'timeout exceeded when trying to connect']) {
      assert.equal(isConnectionLoss(new Error(message)), true, message);
    }
    assert.equal(isConnectionLoss(new Error('Connection terminated due to connection timeout', { cause: socketError('ETIMEDOUT') })), true);
  });

  test('anything else is the same on every try: never retried', () => {
    // A constraint violation, a syntax error, a refused login, too many connections, a serialization failure, a deadlock.
    for (const code of ['23505', '23503', '42601', '42883', '28P01', '3D000', '53300', '40001', '40P01', 'XX000']) assert.equal(isConnectionLoss(sqlError(code)), false, code);
    assert.equal(isConnectionLoss(socketError('ENOTFOUND')), false, 'a host name that does not resolve');
    assert.equal(isConnectionLoss(new Error('Connection terminated')), false, 'the store closed it itself');
    assert.equal(isConnectionLoss(new Error('Cannot use a pool after calling end on the pool')), false);
    assert.equal(isConnectionLoss(new TypeError('x is undefined')), false);
    assert.equal(isConnectionLoss('57P01'), false, 'not an Error');
    assert.equal(isConnectionLoss(undefined), false);
  });

  test('a refused connection before the database was ever reached is not an outage (a wrong host or port), after it is', () => {
    assert.equal(isConnectionLoss(socketError('ECONNREFUSED'), false), false);
    assert.equal(isConnectionLoss(socketError('ECONNREFUSED'), true), true);
    // A server that is there but restarting is waited for even on the first call.
    assert.equal(isConnectionLoss(sqlError('57P03'), false), true);
  });
});

/** A Reconnect on a fake clock: sleeping advances it. */
function fake(waitMs: number): { r: Reconnect; clock: { now: number }; sleeps: number[]; notes: string[] } {
  const clock = { now: 1000 };
  const sleeps: number[] = [];
  const notes: string[] = [];
  const r = new Reconnect({
    where: '127.0.0.1:5432',
    waitMs,
    now: () => clock.now,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.now += ms;
    },
    onOutage: (note) => notes.push(note),
  });
  return { r, clock, sleeps, notes };
}

describe('Reconnect', () => {
  test('a call that lost its connection is made again with back-off until it succeeds; the user hears of the outage and its end', async () => {
    const { r, sleeps, notes } = fake(60_000);
    await r.run(async () => 'open');
    const attempts: number[] = [];
    const result = await r.run(async (attempt) => {
      attempts.push(attempt);
      if (attempt < 6) throw attempt < 2 ? sqlError('57P01', 'terminating connection due to administrator command') : socketError('ECONNREFUSED');
      return 'claimed';
    });
    assert.equal(result, 'claimed');
    assert.deepEqual(attempts, [0, 1, 2, 3, 4, 5, 6], 'the attempt number tells a call it is made again');
    assert.deepEqual(sleeps, [100, 200, 400, 800, 1600, BACKOFF_MAX_MS]);
    assert.deepEqual(notes, [
      'the frontier database at 127.0.0.1:5432 is unreachable (terminating connection due to administrator command); waiting up to 60 s for it',
      'the frontier database at 127.0.0.1:5432 is back after 5.1 s; going on',
    ]);
  });

  test('an error that is no lost connection is thrown at once, untried again', async () => {
    const { r, sleeps } = fake(60_000);
    let calls = 0;
    await assert.rejects(
      r.run(async () => {
        calls++;
        throw sqlError('23505', 'duplicate key value violates unique constraint "pc_seen_pkey"');
      }),
      /duplicate key/,
    );
    assert.equal(calls, 1);
    assert.deepEqual(sleeps, []);
  });

  test('when the database stays away past the wait: one ERR_STATE line, the cause first, then how to go on; the outage is the store\'s, not each call\'s', async () => {
    const { r, clock } = fake(5_000);
    await r.run(async () => 'open');
    const down = async (): Promise<never> => {
      throw socketError('ECONNREFUSED');
    };
    // The database went away during a first call ...
    const first = r.run(down);
    await assert.rejects(first, (err: unknown) => {
      assert.ok(isCrawlerError(err) && err.code === 'ERR_STATE');
      assert.equal(
        err.message,
        'the frontier database at 127.0.0.1:5432 has been unreachable for 5 s (connection refused); once it is back, run the same command again: ' +
          'the shared crawl is joined where it stands (--frontier-wait sets how long a worker waits)',
      );
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    // ... so a call made later gives up at once: the database has been away for the whole wait already.
    const at = clock.now;
    await assert.rejects(r.run(down), /unreachable for 5 s/);
    assert.equal(clock.now, at, 'no further wait');
  });

  test('--frontier-wait 0: the first lost connection ends the call, without a note that it waits', async () => {
    const { r, sleeps, notes } = fake(0);
    await assert.rejects(r.run(async () => Promise.reject(sqlError('57P01', 'terminating connection due to administrator command'))), /unreachable for 0 s \(terminating connection/);
    assert.deepEqual(sleeps, []);
    assert.deepEqual(notes, []);
  });

  test('a refused first connection (never reached: a wrong port) fails at once; once reached, a refusal is waited out', async () => {
    const { r, sleeps } = fake(60_000);
    await assert.rejects(r.run(async () => Promise.reject(socketError('ECONNREFUSED'))), /ECONNREFUSED/);
    assert.deepEqual(sleeps, []);
    assert.equal(await r.run(async () => 'open'), 'open');
    let n = 0;
    assert.equal(await r.run(async () => (n++ === 0 ? Promise.reject(socketError('ECONNREFUSED')) : 'again')), 'again');
    assert.deepEqual(sleeps, [100]);
  });

  test('after close() nothing is waited for', async () => {
    const { r, sleeps } = fake(60_000);
    await r.run(async () => 'open');
    r.close();
    await assert.rejects(r.run(async () => Promise.reject(socketError('ECONNRESET'))), /ECONNRESET/);
    assert.deepEqual(sleeps, []);
  });

  test('databaseAddress names HOST:PORT, never the user or the password', () => {
    assert.equal(databaseAddress('postgresql://crawler:secret@db.example:6543/crawl'), 'db.example:6543');
    assert.equal(databaseAddress('postgres://db.example/crawl'), 'db.example:5432');
    assert.equal(databaseAddress('postgresql://[bad'), 'the --frontier URL');
  });
});

test('lossCause: a socket error in the words the crawl uses for any connection, else the database\'s message on one line', () => {
  const sys = (code: string): Error => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });
  assert.equal(lossCause(sys('ECONNREFUSED')), 'connection refused');
  assert.equal(lossCause(sys('ECONNRESET')), 'connection reset by the server');
  assert.equal(lossCause(sys('EHOSTUNREACH')), 'host unreachable');
  assert.equal(lossCause(Object.assign(new Error('the database system is\n  shutting down'), { code: '57P03' })), 'the database system is shutting down');
  assert.equal(lossCause('gone'), 'gone');
});
