/**
 * Serving the synthetic site on loopback: nginx when it is installed (one
 * worker, access log off, keep-alive without a practical request cap), else
 * the built-in node:http static server in a child process. Both ignore the
 * query and serve files as they are.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A program on PATH (or at an absolute path), or undefined. */
export function which(program: string): string | undefined {
  if (program.startsWith('/')) return existsSync(program) ? program : undefined;
  for (const dir of (process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin').split(':').concat(['/usr/sbin', '/sbin'])) {
    const p = join(dir, program);
    if (dir !== '' && existsSync(p)) return p;
  }
  return undefined;
}

/** A TCP port free on `host` right now (listen on 0, read it, close). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on host:port; rejects after `timeoutMs`. */
export async function waitForPort(port: number, host = '127.0.0.1', timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = connect(port, host);
      sock.once('connect', () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface SiteServer {
  kind: 'nginx' | 'node';
  /** What the table prints, e.g. "nginx/1.22.1 (1 worker)". */
  description: string;
  port: number;
  pid: number | undefined;
  stop(): Promise<void>;
}

/** The nginx.conf the benchmark writes (also printed into the JSON for the record). */
export function nginxConf(root: string, prefix: string, port: number): string {
  const asRoot = process.getuid?.() === 0;
  const tmp = (name: string): string => `${name}_temp_path ${join(prefix, 'tmp', name)};`;
  return `# Written by bench/servers.ts for one benchmark run.
${asRoot ? 'user root;\n' : ''}worker_processes 1;
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  types {
    text/html html; text/plain txt; text/css css; application/javascript js;
    image/png png; application/pdf pdf; application/xml xml;
  }
  default_type application/octet-stream;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 10000000;
  keepalive_timeout 120s;
  open_file_cache max=20000 inactive=60s;
  ${tmp('client_body')} ${tmp('proxy')} ${tmp('fastcgi')} ${tmp('uwsgi')} ${tmp('scgi')}
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
    location / { }
  }
}
`;
}

function nginxVersion(nginx: string): string {
  const r = spawnSync(nginx, ['-v'], { encoding: 'utf8' });
  return /nginx\/[\w.]+/.exec(`${r.stderr}${r.stdout}`)?.[0] ?? 'nginx';
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM'); // nginx: fast shutdown; node server: exits
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function startNginx(nginx: string, root: string, prefix: string, port: number): Promise<SiteServer> {
  mkdirSync(join(prefix, 'tmp'), { recursive: true });
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, nginxConf(root, prefix, port));
  const child = spawn(nginx, ['-c', conf, '-p', prefix, '-e', join(prefix, 'error.log'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const failed = new Promise<never>((_, reject) =>
    child.once('exit', (code) => {
      let log = '';
      try {
        log = readFileSync(join(prefix, 'error.log'), 'utf8');
      } catch {
        // no log
      }
      reject(new Error(`nginx exited (${code}): ${stderr}${log}`.trim()));
    }),
  );
  failed.catch(() => undefined);
  await Promise.race([waitForPort(port), failed]);
  return { kind: 'nginx', description: `${nginxVersion(nginx)} (1 worker, sendfile, access_log off)`, port, pid: child.pid, stop: () => stopChild(child) };
}

async function startNode(root: string, port: number): Promise<SiteServer> {
  const script = fileURLToPath(new URL('./static-server.js', import.meta.url));
  // With validators (ETag, Last-Modified, 304), as nginx serves by default: the refresh section needs them.
  const child = spawn(process.execPath, [script, '--validators', root, String(port)], { stdio: ['ignore', 'ignore', 'inherit'] });
  const failed = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`built-in server exited (${code})`))));
  failed.catch(() => undefined);
  await Promise.race([waitForPort(port), failed]);
  return { kind: 'node', description: `built-in node:http static server (node ${process.version}, own process)`, port, pid: child.pid, stop: () => stopChild(child) };
}

/**
 * Serves `root` on 127.0.0.1:port: nginx when installed (and `preferNode`
 * is false), else the built-in server. `prefix` is a scratch directory for
 * nginx's conf, pid and logs.
 */
export async function startSiteServer(root: string, prefix: string, port: number, preferNode = false): Promise<SiteServer> {
  const nginx = preferNode ? undefined : which('nginx');
  if (nginx !== undefined) {
    try {
      return await startNginx(nginx, root, prefix, port);
    } catch (err) {
      console.error(`bench: nginx did not start (${(err as Error).message}); using the built-in server`);
    }
  }
  return startNode(root, port);
}
