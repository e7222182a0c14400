/**
 * Counts, at the servers, the connections a client holds open at once,
 * across any number of servers: a connection counts from its accept until
 * the server reads its end (the client's FIN) or it closes (a reset).
 *
 * The most at once is read after each batch of network events
 * (setImmediate after an accept): a client that closes one socket and then
 * opens another sends the FIN first, but the server may handle the new
 * accept before that FIN in the same batch. Reading after the batch counts
 * what was open together, not the order of one poll.
 */
import type { Server, Socket } from 'node:net';

export interface OpenConnections {
  /** Counts the connections `server` accepts from now on. */
  watch(server: Server): void;
  /** Connections open now. */
  readonly open: number;
  /** The most open at once so far. */
  readonly most: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Resolves once `n` connections have ended (or after `timeoutMs`, with the count then). */
  ended(n: number, timeoutMs?: number): Promise<number>;
}

/** A counter of open connections (see the module comment). */
export function openConnections(): OpenConnections {
  let open = 0;
  let most = 0;
  let accepted = 0;
  let ends = 0;
  const waiters: Array<() => void> = [];
  const onConnection = (socket: Socket): void => {
    open++;
    accepted++;
    let gone = false;
    const end = (): void => {
      if (gone) return;
      gone = true;
      open--;
      ends++;
      for (const w of waiters.splice(0)) w();
    };
    socket.once('end', end);
    socket.once('close', end);
    setImmediate(() => {
      most = Math.max(most, open);
    });
  };
  return {
    watch: (server) => void server.on('connection', onConnection),
    get open() {
      return open;
    },
    get most() {
      return most;
    },
    get accepted() {
      return accepted;
    },
    ended: async (n, timeoutMs = 5000) => {
      const deadline = performance.now() + timeoutMs;
      while (ends < n && performance.now() < deadline) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(1, deadline - performance.now()));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return ends;
    },
  };
}
