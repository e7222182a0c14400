/**
 * The only code that touches `process`: runs a program's `main(argv, io)`,
 * wires SIGINT/SIGTERM to an abort signal (a second signal exits at once),
 * prints a CrawlerError as one line and maps it to an exit status. It is also
 * the one place that writes stderr, so every message passes `terminalText`:
 * whatever it quotes from the network, no control character reaches the terminal.
 */
import { describeError, isCrawlerError } from '../errors.js';
import { terminalText } from '../output/terminal-text.js';

/** What a program may use of the outside world. */
export interface CliIo {
  /** Machine-readable output. Each call is written at once. */
  stdout: (text: string | Uint8Array) => void;
  /** Messages for people, each ending in a line end: control characters in them are escaped where they are written. */
  stderr: (text: string) => void;
  /** Replaces the one-line status display on stderr with `line` ('' erases it). Only for a terminal. */
  status: (line: string) => void;
  /** True when stderr is a terminal (progress may be drawn). */
  stderrIsTTY: boolean;
  /** True when stdout is a terminal (a progress line would then mix with the output). */
  stdoutIsTTY: boolean;
  /** Aborted on SIGINT or SIGTERM. */
  signal: AbortSignal;
}

export type Main = (argv: string[], io: CliIo) => Promise<number>;

/** Width of the status line (a terminal of 80 columns, less the cursor). */
export const STATUS_WIDTH = 78;

/** Exit status for a stop by signal (128 + SIGINT). */
export const EXIT_INTERRUPTED = 130;

export function runCli(main: Main, programName: string): void {
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) process.exit(EXIT_INTERRUPTED);
    io.stderr(`${programName}: ${sig} received, stopping after the page in flight (again to quit now)\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // A reader that closed its end of the pipe (e.g. `| head`) is not an error of ours.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  const io: CliIo = {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(terminalText(text)),
    status: (line) => void process.stderr.write(line === '' ? `\r${' '.repeat(STATUS_WIDTH)}\r` : `\r${terminalText(line)}`),
    stderrIsTTY: process.stderr.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    signal: controller.signal,
  };
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
      // Anything still pending (idle sockets, timers) must not hold the exit.
      setImmediate(() => process.exit(code));
    },
    (err: unknown) => {
      if (isCrawlerError(err)) {
        io.stderr(`${programName}: ${err.message}\n`);
        if (err.hint !== undefined) io.stderr(`${err.hint}\n`);
      } else {
        // A bug of ours: the stack helps to find it, but its first line quotes the message, so it is escaped too.
        io.stderr(`${programName}: internal error: ${describeError(err)}\n`);
        for (const line of ((err as Error)?.stack ?? '').split('\n')) io.stderr(`${line}\n`);
      }
      process.exit(1);
    },
  );
}
