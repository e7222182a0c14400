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
}

/** A counter of open connections (see the module comment). */
export function openConnections(): OpenConnections {
  let open = 0;
  let most = 0;
  let accepted = 0;
  const onConnection = (socket: Socket): void => {
    open++;
    accepted++;
    let gone = false;
    const end = (): void => {
      if (gone) return;
      gone = true;
      open--;
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
  };
}
