/**
 * retryWhileBusy (src/frontier/sqlite-busy.ts): a lock SQLite's busy handler
 * does not wait for (two workers opening a new shared frontier file at once)
 * is waited for by trying the step again, within the time limit; any other
 * error is thrown at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { isBusy, retryWhileBusy } from '../../src/frontier/sqlite-busy.js';
import { SqliteClaimStore } from '../../src/frontier/claim-sqlite.js';

const busy = (): Error => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

test('a step that meets SQLITE_BUSY is tried again after a short pause, and its value returned', () => {
  let calls = 0;
  const pauses: number[] = [];
  const value = retryWhileBusy(
    () => {
      if (++calls < 3) throw busy();
      return 7;
    },
    1000,
    (ms) => void pauses.push(ms),
  );
  assert.equal(value, 7);
  assert.equal(calls, 3);
  assert.equal(pauses.length, 2);
  for (const ms of pauses) assert.ok(ms >= 5 && ms < 25, `pause ${ms} ms`);
});

test('any other error is thrown at once; a busy step is given up at the time limit with its error', () => {
  let calls = 0;
  const other = Object.assign(new Error('no such table: crawl'), { code: 'SQLITE_ERROR' });
  assert.throws(() => retryWhileBusy(() => void (calls++, (() => { throw other; })()), 1000, () => assert.fail('no pause for another error')), other);
  assert.equal(calls, 1);
  let clock = 0;
  calls = 0;
  assert.throws(
    () => retryWhileBusy(() => void (calls++, (() => { throw busy(); })()), 100, (ms) => void (clock += ms), () => clock),
    /database is locked/,
  );
  assert.ok(clock >= 100 && clock < 125, `gave up at ${clock} ms`);
  assert.ok(calls >= 5, `${calls} tries`);
  assert.equal(isBusy(busy()), true);
  assert.equal(isBusy(Object.assign(new Error('x'), { code: 'SQLITE_BUSY_SNAPSHOT' })), true);
  assert.equal(isBusy(other), false);
  assert.equal(isBusy(undefined), false);
});

test('a real SQLITE_BUSY (no busy wait) is waited out: the step succeeds once the other connection lets go', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-busy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'f.db');
  const holder = new Database(path);
  const waiter = new Database(path, { timeout: 0 });
  t.after(() => {
    holder.close();
    waiter.close();
  });
  holder.exec('CREATE TABLE t (x); BEGIN EXCLUSIVE');
  let pauses = 0;
  retryWhileBusy(
    () => waiter.exec('INSERT INTO t VALUES (1)'),
    1000,
    () => {
      if (++pauses === 2) holder.exec('COMMIT');
    },
  );
  assert.equal(pauses, 2, 'busy until the holder committed');
  assert.equal(waiter.prepare('SELECT count(*) FROM t').pluck().get(), 1);
});

test('workers opening one new shared frontier file together all open it', async (t) => {
  const { spawn } = await import('node:child_process');
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-busy-open-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = new URL('../../src/frontier/claim-sqlite.js', import.meta.url).href;
  for (let round = 0; round < 3; round++) {
    const path = join(dir, `f${round}.db`);
    const at = Date.now() + 300;
    const code = `const { SqliteClaimStore } = await import(${JSON.stringify(store)}); while (Date.now() < ${at}) {} new SqliteClaimStore(${JSON.stringify(path)}); console.log('ok');`;
    const outs = await Promise.all(
      Array.from({ length: 6 }, () => new Promise<string>((ok) => {
        const c = spawn(process.execPath, ['--input-type=module', '-e', code]);
        let out = '';
        c.stdout.on('data', (d: Buffer) => (out += d.toString()));
        c.stderr.on('data', (d: Buffer) => (out += d.toString()));
        c.on('close', () => ok(out.trim()));
      })),
    );
    assert.deepEqual(outs, Array(6).fill('ok'), `round ${round}`);
  }
  // And the file is one crawl's frontier, usable by this process too.
  const s = new SqliteClaimStore(join(dir, 'f0.db'));
  await s.close();
});
