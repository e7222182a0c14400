/**
 * The client's connections, all origins together, and the budget of open
 * sockets they share (spec decision "Many hosts": open sockets stay under
 * the process's RLIMIT_NOFILE; past the cap requests wait).
 *
 * - Every socket counts against `maxSockets` from the moment a connect is
 *   reserved to the socket's 'close' event: connecting, carrying a request,
 *   and idle alike. The budget is thus never exceeded, even for a moment.
 * - A connect beyond the budget waits its turn (first come, first served)
 *   instead of failing with EMFILE. Idle connections make room first: the
 *   least recently used is closed for each waiting connect. Otherwise the
 *   connect waits for a socket to close. That wait is bounded: every socket
 *   counted is connecting (the connect timeout), carrying a request (the
 *   idle and response timeouts) or idle (closed at once for a waiter).
 * - Idle keep-alive connections are kept at most `maxIdle` in all, and
 *   `maxIdlePerOrigin` per origin; past either, the least recently used is
 *   closed. A broad crawl visits thousands of hosts and comes back to few
 *   of them soon: without the cap it would keep a socket to each.
 */
import type { Connection } from './connection.js';

export interface ConnectionPoolOptions {
  /** Sockets open at most at once: connecting, in use and idle (see socket-budget.ts). */
  maxSockets: number;
  /** Idle connections kept at most, all origins together. */
  maxIdle: number;
  /** Idle connections kept at most per origin. */
  maxIdlePerOrigin: number;
}

/** Connections and the socket budget (see the module comment). */
export class ConnectionPool {
  private readonly o: ConnectionPoolOptions;
  private readonly open = new Set<Connection>();
  /** Idle connections and their origins, least recently used first (a Map iterates in insertion order). */
  private readonly idle = new Map<Connection, string>();
  /** Idle connections per origin, most recently used last. */
  private readonly idleOf = new Map<string, Connection[]>();
  /** Sockets counted against maxSockets: a connect reserved, or a socket not closed yet. */
  private held = 0;
  /** Connections closed to make room for a waiting connect, whose sockets have not closed yet. */
  private readonly closingForRoom = new Set<Connection>();
  /** Connects waiting for room, first come first served; told false when the pool closed meanwhile. */
  private readonly waiting: Array<(granted: boolean) => void> = [];
  private closed = false;

  constructor(options: ConnectionPoolOptions) {
    if (!(options.maxSockets >= 1)) throw new RangeError(`maxSockets must be at least 1, got ${options.maxSockets}`);
    this.o = { ...options };
  }

  /** Sockets open or being opened. */
  get sockets(): number {
    return this.held;
  }

  /** Connections opened and not closed yet. */
  get openConnections(): number {
    return this.open.size;
  }

  /** Idle connections kept. */
  get idleConnections(): number {
    return this.idle.size;
  }

  /** Connects waiting for room. */
  get waitingConnects(): number {
    return this.waiting.length;
  }

  /** The most recently used idle connection to `origin`, taken out of the idle set; undefined when there is none. */
  take(origin: string): Connection | undefined {
    const list = this.idleOf.get(origin);
    while (list !== undefined && list.length > 0) {
      const conn = list.pop() as Connection;
      this.idle.delete(conn);
      if (list.length === 0) this.idleOf.delete(origin);
      if (conn.alive) return conn;
      conn.close();
    }
    return undefined;
  }

  /**
   * Room for one more socket: resolves true at once while the budget
   * allows, else once a socket has closed (an idle one is closed for it
   * when there is one). Resolves false when the pool is closed first. A
   * true must be followed by adopt() with the connection made, or by
   * unreserve() when none was.
   */
  reserve(): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    if (this.held < this.o.maxSockets) {
      this.held++;
      return Promise.resolve(true);
    }
    const granted = new Promise<boolean>((resolve) => this.waiting.push(resolve));
    this.makeRoom();
    return granted;
  }

  /** Gives back the room of a reserve() that made no connection (the connect failed). */
  unreserve(): void {
    this.free();
  }

  /** Counts `conn` (made with the room of a reserve()) until its socket closes. */
  adopt(conn: Connection, origin: string): void {
    const closed = (): void => {
      this.open.delete(conn);
      this.forgetIdle(conn, origin);
      this.closingForRoom.delete(conn);
      this.free();
    };
    // A socket whose 'close' was emitted already would never free its room.
    if (conn.socket.closed) {
      closed();
      return;
    }
    this.open.add(conn);
    conn.socket.once('close', closed);
    if (this.closed) conn.close();
  }

  /**
   * Takes `conn` back after an exchange: kept idle for `origin` when it may
   * carry another request and the caps allow (the least recently used idle
   * connection closing to make room), else closed. While connects wait for
   * room it is closed for them.
   */
  put(origin: string, conn: Connection): void {
    if (!conn.alive || this.closed || this.o.maxIdle < 1) {
      conn.close();
      return;
    }
    if (this.waiting.length > this.closingForRoom.size) {
      this.closingForRoom.add(conn);
      conn.close();
      return;
    }
    let list = this.idleOf.get(origin);
    if (list !== undefined && list.length >= this.o.maxIdlePerOrigin) this.closeIdle(list[0] as Connection);
    if (this.idle.size >= this.o.maxIdle) this.closeIdle(this.idle.keys().next().value as Connection);
    list = this.idleOf.get(origin);
    if (list === undefined) this.idleOf.set(origin, (list = []));
    list.push(conn);
    this.idle.set(conn, origin);
  }

  /** Closes every connection and tells waiting connects false; reserve() gives false from now on. */
  close(): void {
    this.closed = true;
    for (const resolve of this.waiting.splice(0)) resolve(false);
    for (const c of this.open) c.close();
    this.idle.clear();
    this.idleOf.clear();
  }

  /** A socket's room is free: it goes to the first waiting connect, else back to the budget. */
  private free(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(true);
    else this.held--;
  }

  /** Closes least recently used idle connections, one for each waiting connect no closing socket will serve. */
  private makeRoom(): void {
    while (this.waiting.length > this.closingForRoom.size && this.idle.size > 0) {
      const lru = this.idle.keys().next().value as Connection;
      this.closeIdle(lru);
      this.closingForRoom.add(lru);
    }
  }

  /** Closes an idle connection and takes it out of the idle set at once (its socket's 'close' comes later). */
  private closeIdle(conn: Connection): void {
    const origin = this.idle.get(conn);
    if (origin !== undefined) this.forgetIdle(conn, origin);
    conn.close();
  }

  private forgetIdle(conn: Connection, origin: string): void {
    if (!this.idle.delete(conn)) return;
    const list = this.idleOf.get(origin);
    if (list === undefined) return;
    const i = list.indexOf(conn);
    if (i !== -1) list.splice(i, 1);
    if (list.length === 0) this.idleOf.delete(origin);
  }
}
