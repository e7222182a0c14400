/**
 * A throwaway PostgreSQL cluster for the test suite (used by run-tests.js).
 *
 * startCluster() runs `initdb --no-sync` (trust auth, superuser "postgres")
 * and `pg_ctl -w start` in a private temp folder: data in DIR/data, the unix
 * socket in DIR/sock (-k), TCP on 127.0.0.1 only at a free port, fsync and
 * synchronous_commit off. As root both run as the postgres user through
 * `runuser -u postgres --` (initdb and pg_ctl refuse root), and DIR is chowned
 * to that user. stop() stops the server (immediate mode) and removes DIR.
 *
 * A missing or broken PostgreSQL is not an error: startCluster returns the
 * reason instead (postgresForTests also turns an exception into one), and the
 * PostgreSQL tests skip with it. Binaries are looked up in
 * PATH, then in Debian's /usr/lib/postgresql/<version>/bin (newest first).
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, chownSync, constants, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

const DEBIAN_LIB = '/usr/lib/postgresql';
const START_ATTEMPTS = 3; // a fresh port each time: another process may take the free one first

/**
 * stopServer() and startServer() stop the server (`pg_ctl stop -m fast`, as
 * an administrator's restart does) and start it again on the same data and
 * port, without blocking the caller's event loop (for fault tests).
 * socketUrl reaches the same server through its Unix socket (as psql does on its machine).
 * @typedef {{ url: string, socketUrl: string, stop(): void, stopServer(): Promise<void>, startServer(): Promise<void> }} Cluster
 */

/**
 * The tests' global setup: the environment for the test processes, with
 * PC_TEST_PG_URL (the cluster's URL) or PC_TEST_PG_SKIP (why there is none),
 * and stop() for afterwards. A PC_TEST_PG_URL already set (your own server)
 * is used as it is, and so is a PC_TEST_PG_SKIP; neither starts a cluster.
 * Prints one line on stderr saying which.
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{ env: NodeJS.ProcessEnv, stop(): void }>}
 */
export async function postgresForTests(env) {
  const noop = () => {};
  if (env['PC_TEST_PG_URL']) {
    say('PostgreSQL tests use the server in PC_TEST_PG_URL (no test cluster started)');
    const { PC_TEST_PG_SKIP: _, ...rest } = env;
    return { env: rest, stop: noop };
  }
  if (env['PC_TEST_PG_SKIP']) {
    say(`PostgreSQL tests skipped: ${env['PC_TEST_PG_SKIP']}`);
    return { env, stop: noop };
  }
  const started = performance.now();
  const cluster = await startCluster().catch((/** @type {Error} */ e) => ({ skip: `the PostgreSQL test cluster did not start: ${e.message}` }));
  if ('skip' in cluster) {
    say(`PostgreSQL tests skipped: ${cluster.skip}`);
    return { env: { ...env, PC_TEST_PG_SKIP: cluster.skip }, stop: noop };
  }
  say(`PostgreSQL test cluster at ${cluster.url} (started in ${seconds(started)})`);
  return {
    env: { ...env, PC_TEST_PG_URL: cluster.url },
    stop() {
      const stopping = performance.now();
      cluster.stop();
      say(`PostgreSQL test cluster stopped and removed (in ${seconds(stopping)})`);
    },
  };
}

/** @param {string} message */
function say(message) {
  process.stderr.write(`run-tests: ${message}\n`);
}

/** @param {number} since a performance.now() */
function seconds(since) {
  return `${((performance.now() - since) / 1000).toFixed(2)} s`;
}

/**
 * Starts a cluster, or says why it cannot. `maxConnections` sets the
 * server's max_connections (PostgreSQL's default, 100, when not given): the
 * bench's shared crawls open a connection per lane of every worker.
 * @param {{ maxConnections?: number, nice?: number }} [settings] nice: the server's niceness (nice(1); the bench runs it below its site server's)
 * @returns {Promise<Cluster | { skip: string }>}
 */
export async function startCluster(settings = {}) {
  const bin = findBinDir();
  if (bin === undefined) return { skip: `no PostgreSQL server binaries (initdb, pg_ctl) in PATH or ${DEBIAN_LIB}/*/bin` };
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUser() : undefined;
  if (asRoot && owner === undefined) return { skip: 'running as root and there is no postgres user to run the test cluster as' };

  const dir = mkdtempSync(join(tmpdir(), 'pc-pg-'));
  try {
    return await startIn(dir, bin, owner, settings);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

/**
 * startCluster's work in its fresh folder, which it removes unless it returns a Cluster.
 * @param {string} dir @param {string} bin @param {{ uid: number, gid: number } | undefined} owner
 * @param {{ maxConnections?: number, nice?: number }} settings
 * @returns {Promise<Cluster | { skip: string }>}
 */
async function startIn(dir, bin, owner, settings) {
  const data = join(dir, 'data');
  const sock = join(dir, 'sock');
  mkdirSync(sock);
  if (owner !== undefined) for (const d of [dir, sock]) chownSync(d, owner.uid, owner.gid);
  // The server inherits pg_ctl's niceness.
  const niced = settings.nice === undefined || settings.nice === 0 ? [] : ['nice', '-n', String(settings.nice)];
  /** The command line of a PostgreSQL tool: as user postgres when we are root, at the niceness asked for. @param {string} tool @param {string[]} args */
  const command = (tool, args) => [...niced, ...(owner !== undefined ? ['runuser', '-u', 'postgres', '--'] : []), join(bin, tool), ...args];
  /** @param {string} tool @param {string[]} args */
  const run = (tool, args) => {
    const cmd = command(tool, args);
    return spawnSync(cmd[0], cmd.slice(1), { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  };
  const cleanUp = () => rmSync(dir, { recursive: true, force: true });
  /** run's asynchronous twin: resolves with the exit status and the output. @param {string} tool @param {string[]} args */
  const runAsync = (tool, args) =>
    new Promise((/** @type {(r: { status: number | null, output: string }) => void} */ resolve) => {
      const cmd = command(tool, args);
      const child = spawn(cmd[0], cmd.slice(1), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
      let output = '';
      child.stdout.on('data', (d) => (output += d));
      child.stderr.on('data', (d) => (output += d));
      child.on('error', (e) => resolve({ status: null, output: e.message }));
      child.on('close', (status) => resolve({ status, output }));
    });

  const init = run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '--no-instructions', '-E', 'UTF8', '--locale=C']);
  if (init.status !== 0) {
    cleanUp();
    return { skip: `initdb failed: ${reasonLine(init.error?.message ?? init.stderr)}` };
  }
  let failure = '';
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const options = `-p ${port} -k ${shellQuote(sock)} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off${settings.maxConnections === undefined ? '' : ` -c max_connections=${settings.maxConnections}`}`;
    const start = run('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start']);
    if (start.status === 0) {
      let stopped = false;
      /** @param {string} what @param {string[]} args */
      const control = async (what, args) => {
        const r = await runAsync('pg_ctl', args);
        if (r.status !== 0) throw new Error(`pg_ctl ${what} failed: ${reasonLine(readLog(join(dir, 'server.log')) || r.output)}`);
      };
      return {
        url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
        socketUrl: `postgresql://postgres@/postgres?host=${encodeURIComponent(sock)}&port=${port}`,
        stopServer: () => control('stop', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']),
        startServer: () => control('start', ['-D', data, '-l', join(dir, 'server.log'), '-o', options, '-w', '-t', '30', 'start']),
        stop() {
          if (stopped) return;
          stopped = true;
          const stop = run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
          if (stop.status !== 0) killPostmaster(data);
          cleanUp();
        },
      };
    }
    failure = reasonLine(readLog(join(dir, 'server.log')) || start.error?.message || start.stderr);
    killPostmaster(data); // a timed-out start may have left a server behind
  }
  cleanUp();
  return { skip: `the PostgreSQL test cluster did not start: ${failure}` };
}

/** The folder holding initdb and pg_ctl, or undefined. */
function findBinDir() {
  const dirs = (process.env['PATH'] ?? '').split(delimiter).filter(Boolean).flatMap((d) => {
    const initdb = join(d, 'initdb');
    return isExecutable(initdb) ? [dirname(realpathSync(initdb)), d] : [];
  });
  if (existsSync(DEBIAN_LIB)) {
    const versions = readdirSync(DEBIAN_LIB).filter((v) => /^\d+(\.\d+)?$/.test(v)).sort((a, b) => Number(b) - Number(a));
    dirs.push(...versions.map((v) => join(DEBIAN_LIB, v, 'bin')));
  }
  return dirs.find((d) => isExecutable(join(d, 'initdb')) && isExecutable(join(d, 'pg_ctl')));
}

/** @param {string} p */
function isExecutable(p) {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** @returns {{ uid: number, gid: number } | undefined} */
function postgresUser() {
  const [uid, gid] = ['-u', '-g'].map((flag) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
  if (uid?.status !== 0 || gid?.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** @returns {Promise<number>} a TCP port on 127.0.0.1 that was free a moment ago */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address !== null && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** pg_ctl passes -o through /bin/sh. @param {string} s */
function shellQuote(s) {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** @param {string} path */
function readLog(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The line of a tool's output or log that says what went wrong. @param {string | undefined} text */
function reasonLine(text) {
  const lines = (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const line = lines.findLast((l) => /\b(FATAL|PANIC|ERROR)\b|error|failed|cannot|could not/i.test(l)) ?? lines.at(-1) ?? 'no output';
  return line.replace(/^.*?\b(FATAL|PANIC|ERROR):\s+/, '$1: '); // drop the log line's timestamp and pid
}

/** Last resort when pg_ctl cannot stop it: an immediate shutdown by signal. @param {string} data */
function killPostmaster(data) {
  const pid = Number(readLog(join(data, 'postmaster.pid')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return;
  try {
    process.kill(pid, 'SIGQUIT');
  } catch {
    // already gone
  }
}
