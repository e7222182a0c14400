/**
 * The hosts' pacing a private crawl keeps across a restart (spec decision
 * "When the server pushes back": --resume keeps retry counts and pauses):
 * a Retry-After pause still running, the back-off streak, and a refusal
 * (a pause asked beyond --max-retry-after). It is written beside the crawl
 * state, atomically, whenever one of them changes, which is rare, so a
 * crawl killed with SIGKILL right after a 429 still waits it out when it
 * is resumed. Times are wall-clock epoch ms, which survive the process.
 */
import { readFileSync } from 'node:fs';
import { removeFileSync } from '../sink/atomic-file.js';
import { join } from 'node:path';
import { CrawlerError } from '../errors.js';
import { writeFileAtomicSync } from '../sink/atomic-file.js';
import type { PacingObserver, Politeness } from './politeness.js';

/** The file's name in the page directory. */
export const PACING_FILE = '.crawler-pacing.json';

interface HostPacing {
  /** Epoch ms when a Retry-After pause ends (absent: none running). */
  pausedUntil?: number;
  streak?: number;
  refusal?: string;
}

export class PacingState {
  private readonly hosts: Map<string, HostPacing>;
  private written = '';

  /** Opens the pacing of the crawl in `dir`: kept with `resume`, else forgotten (the file is ours: the directory carries our marker). */
  constructor(
    private readonly dir: string,
    resume: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.hosts = new Map();
    const path = join(dir, PACING_FILE);
    if (!resume) {
      removeFileSync(path);
      return;
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return; // no host ever pushed back
    }
    try {
      for (const [host, p] of Object.entries(JSON.parse(text) as Record<string, HostPacing>)) this.hosts.set(host, p);
    } catch (err) {
      throw new CrawlerError('ERR_STATE', `cannot read ${path}: ${(err as Error).message}`, { cause: err });
    }
    this.written = text;
  }

  /** Gives the hosts back their pauses still running, streaks and refusals. */
  restore(politeness: Politeness): void {
    const now = this.now();
    for (const [host, p] of this.hosts) {
      if (p.pausedUntil !== undefined && p.pausedUntil > now) politeness.pause(host, p.pausedUntil - now);
      if (p.streak !== undefined) politeness.setStreak(host, p.streak);
      if (p.refusal !== undefined) politeness.refuse(host, p.refusal);
    }
  }

  /** A politeness observer that keeps each host's pacing in the file. */
  readonly observe: PacingObserver = (host, pacing) => {
    const p: HostPacing = {};
    if (pacing.pauseMs > 0) p.pausedUntil = Math.ceil(this.now() + pacing.pauseMs);
    if (pacing.failures > 0) p.streak = pacing.failures;
    if (pacing.refusal !== undefined) p.refusal = pacing.refusal;
    if (Object.keys(p).length === 0) this.hosts.delete(host);
    else this.hosts.set(host, p);
    const text = JSON.stringify(Object.fromEntries(this.hosts));
    if (text === this.written) return;
    writeFileAtomicSync(this.dir, PACING_FILE, [Buffer.from(text)]);
    this.written = text;
  };
}
