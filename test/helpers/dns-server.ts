/**
 * A name server on loopback (UDP, 127.0.0.1, port 0) for the tests of the
 * DNS lookups: a script answers each question (an A or AAAA record, a
 * refusal such as NXDOMAIN, or nothing at all), after a delay when asked.
 * Only what c-ares sends is understood: one question per query; anything
 * after it (an EDNS record) is ignored. Records every question it got.
 */
import { createSocket, type Socket } from 'node:dgram';

export const TYPE_A = 1;
export const TYPE_AAAA = 28;

/** What the server answers: addresses (none: NODATA), a response code (3: NXDOMAIN), or no answer at all. */
export type DnsReply = { delayMs?: number; addresses?: string[]; ttl?: number; rcode?: number } | 'drop';

export interface DnsQuestion {
  name: string;
  type: number;
  /** performance.now() when it arrived. */
  at: number;
}

export interface DnsServer {
  /** `127.0.0.1:port`, for Resolver.setServers. */
  address: string;
  questions: DnsQuestion[];
  close(): Promise<void>;
}

/** Starts a name server whose answers `script` decides. */
export async function startDnsServer(script: (q: DnsQuestion) => DnsReply): Promise<DnsServer> {
  const socket: Socket = createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
  const questions: DnsQuestion[] = [];
  const timers = new Set<NodeJS.Timeout>();
  socket.on('message', (msg, from) => {
    const parsed = parseQuery(msg);
    if (parsed === undefined) return;
    const q: DnsQuestion = { name: parsed.name, type: parsed.type, at: performance.now() };
    questions.push(q);
    const reply = script(q);
    if (reply === 'drop') return;
    const send = (): void => socket.send(response(msg, parsed.questionEnd, q.type, reply), from.port, from.address);
    if ((reply.delayMs ?? 0) <= 0) send();
    else {
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, reply.delayMs);
      timers.add(timer);
    }
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        socket.close(() => resolve());
      }),
  };
}

/** The question of a query: its name (lower case, no final dot), type, and where the question ends. */
function parseQuery(msg: Buffer): { name: string; type: number; questionEnd: number } | undefined {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let i = 12;
  while (i < msg.length && msg[i] !== 0) {
    const len = msg[i] as number;
    labels.push(msg.subarray(i + 1, i + 1 + len).toString('latin1'));
    i += 1 + len;
  }
  if (i + 5 > msg.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(i + 1), questionEnd: i + 5 };
}

/** The response to `query`: its header and question echoed, with the answers. */
function response(query: Buffer, questionEnd: number, type: number, reply: Exclude<DnsReply, 'drop'>): Buffer {
  const rdatas = (reply.addresses ?? []).map((a) => (type === TYPE_AAAA ? ipv6Bytes(a) : Buffer.from(a.split('.').map(Number))));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // the ID
  const rd = (query[2] as number) & 0x01;
  header[2] = 0x80 | 0x04 | rd; // QR, AA, RD as asked
  header[3] = 0x80 | ((reply.rcode ?? 0) & 0x0f); // RA, RCODE
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(rdatas.length, 6);
  const answers = rdatas.map((rdata) => {
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(1, 4); // class IN
    rr.writeUInt32BE(reply.ttl ?? 300, 6);
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...answers]);
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const h = head === '' ? [] : head.split(':');
  const t = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}
