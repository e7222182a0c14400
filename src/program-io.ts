/**
 * What a program may use of the outside world, and the exit statuses it
 * returns: below the command line, so that programs (src/programs) and
 * outputs (src/output) use them without reaching up into src/cli. Only
 * src/cli/run-cli.ts makes a CliIo from `process`; tests make their own.
 */

/** What a program may use of the outside world. */
export interface CliIo {
  /** Machine-readable output. Each call is queued at once, in order; nothing queued is lost at exit. */
  stdout: (text: string | Uint8Array) => void;
  /**
   * Undefined while stdout's reader keeps up; else a promise that resolves
   * once it has caught up. Long work awaits it between pages, so that a
   * stalled reader holds the crawl back instead of filling memory.
   */
  stdoutRoom: () => Promise<void> | undefined;
  /** Messages for people, each ending in a line end: control characters in them are escaped where they are written. */
  stderr: (text: string) => void;
  /** Replaces the one-line status display on stderr with `line` ('' erases it). Only for a terminal. */
  status: (line: string) => void;
  /** True when stderr is a terminal (progress may be drawn). */
  stderrIsTTY: boolean;
  /** True when stdout is a terminal (a progress line would then mix with the output). */
  stdoutIsTTY: boolean;
  /** Aborted on SIGINT or SIGTERM, or when stdout's reader went away: the run stops as it would on SIGINT. */
  signal: AbortSignal;
}

export type Main = (argv: string[], io: CliIo) => Promise<number>;

/** Width of the status line (a terminal of 80 columns, less the cursor). */
export const STATUS_WIDTH = 78;

/** Exit status for a stop by signal (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

/** Exit status when stdout's reader went away (EPIPE), as a program killed by SIGPIPE would give (128 + 13). */
export const EXIT_OUTPUT_CLOSED = 141;
