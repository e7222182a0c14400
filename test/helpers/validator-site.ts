/**
 * A directory served as nginx serves it, validators included
 * (bench/static-server.ts with `validators`), on loopback for one test:
 * each answer is noted as `STATUS PATH`, with ` conditional` when the
 * request carried If-None-Match, and `change` rewrites a file with a later
 * modification time (so its validators change).
 */
import type { TestContext } from 'node:test';
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { staticServer } from '../../bench/static-server.js';

export interface ValidatorSite {
  origin: string;
  /** Each answer, told as its response ends (or is cut): compare them sorted. */
  answers: string[];
  change(name: string, body: string): void;
}

/** Serves `root` until the test ends. */
export async function serveWithValidators(t: TestContext, root: string): Promise<ValidatorSite> {
  const answers: string[] = [];
  const server: Server = staticServer(root, { validators: true });
  server.on('request', (req, res) => res.on('close', () => answers.push(`${res.statusCode} ${req.url ?? ''}${req.headers['if-none-match'] === undefined ? '' : ' conditional'}`)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answers,
    change: (name, body) => {
      const file = join(root, name);
      writeFileSync(file, body);
      const later = new Date(statSync(file).mtimeMs + 10_000);
      utimesSync(file, later, later);
    },
  };
}
