/**
 * The only code that touches `process`: runs a program's `main(argv, io)`,
 * wires SIGINT/SIGTERM to an abort signal (a second signal exits at once),
 * prints a CrawlerError as one line and maps it to an exit status. It is also
 * the one place that writes stderr, so every message passes `terminalText`:
 * whatever it quotes from the network, no control character reaches the terminal.
 *
 * Its last act is to drain stdout and stderr: the exit waits until the reader
 * has taken every byte (a pipe read slowly included), on every path.
 */
import { describeError, isCrawlerError } from '../errors.js';
import { terminalText } from '../output/terminal-text.js';
import { StreamWriter } from './stream-writer.js';
import { EXIT_INTERRUPTED, EXIT_OUTPUT_CLOSED, STATUS_WIDTH, type CliIo, type Main } from '../program-io.js';

/** What a program adds to the runner's messages. */
export interface CliOptions {
  /** Said after "SIGINT received, stopping after the pages in flight", given the arguments: what the user can do next. */
  afterStop?: (argv: readonly string[]) => string;
}

export function runCli(main: Main, programName: string, options: CliOptions = {}): void {
  const controller = new AbortController();
  const argv = process.argv.slice(2);
  const afterStop = options.afterStop === undefined ? '' : `; ${options.afterStop(argv)}`;
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) process.exit(EXIT_INTERRUPTED);
    io.stderr(`${programName}: ${sig} received, stopping after the pages in flight${afterStop} (again to quit now)\n`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const errors = new StreamWriter(process.stderr);
  // A reader that closed its end of the pipe (e.g. `| head`) is normal use, not an error: the run
  // stops as on SIGINT (what it saved stays saved, the directory resumable), says nothing more
  // (spec decision "What the programs say"), and exits as SIGPIPE would have it.
  let quiet = false;
  const output = new StreamWriter(process.stdout, (err) => {
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') quiet = true;
    else if (!controller.signal.aborted) io.stderr(`${programName}: standard output failed (${describeError(err)}); stopping after the pages in flight${afterStop}\n`);
    controller.abort();
  });
  const io: CliIo = {
    stdout: (text) => output.write(text),
    stdoutRoom: () => output.room(),
    stderr: (text) => {
      if (!quiet) errors.write(terminalText(text));
    },
    status: (line) => {
      if (!quiet) errors.write(line === '' ? `\r${' '.repeat(STATUS_WIDTH)}\r` : `\r${terminalText(line)}`);
    },
    stderrIsTTY: process.stderr.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    signal: controller.signal,
  };
  /** Exits once the readers have every byte; anything else still pending (idle sockets, timers) does not hold the exit. */
  const exit = (code: number): void => {
    process.exitCode = code;
    void Promise.all([output.flushed(), errors.flushed()]).then(() => process.exit(output.broken === undefined ? code : EXIT_OUTPUT_CLOSED));
  };
  main(argv, io).then(exit, (err: unknown) => {
    if (isCrawlerError(err)) {
      io.stderr(`${programName}: ${err.message}\n`);
      if (err.hint !== undefined) io.stderr(`${err.hint}\n`);
    } else {
      // A bug of ours: the stack helps to find it, but its first line quotes the message, so it is escaped too.
      io.stderr(`${programName}: internal error: ${describeError(err)}\n`);
      for (const line of ((err as Error)?.stack ?? '').split('\n')) io.stderr(`${line}\n`);
    }
    exit(1);
  });
}
